// Images from archives: POST /images/load (docker-save and OCI-layout archives, layers written to the content
// store and unpacked) and POST /images/create?fromSrc= (a filesystem tarball as a one-layer image with the engine's
// config). Both end in ImageService.storeImage.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import type { Containerd } from '../containerd/client';
import { sha256Digest, writeBlob } from '../containerd/content';
import { withLease } from '../containerd/leases';
import { invalidParameter } from '../errors';
import { describeArchive, extractTo, ArchiveImage } from '../images/archive';
import { openTar } from '../fs/decompress';
import { applyChanges } from '../translate/request/changes';
import { familiarName, fullName, parseReference, withDefaultTag, withTag } from '../translate/reference';
import type { EventPublisher } from '../types/event';
import type { OCIImageConfig } from '../types/image';
import { BERTH_VERSION } from '../version';
import { LayerDesc, LoadProgress, MT_LAYER, MT_LAYER_GZIP, progressBar, shortId } from './image-format';
import type { ImageService } from './images';

export class ImageImporter {
  constructor(private readonly d: { ctr: Containerd; dataRoot: string; events: EventPublisher; images: ImageService }) {}

  async load(body: Readable, progress: LoadProgress, quiet: boolean): Promise<void> {
    const scratch = path.join(this.d.dataRoot, 'tmp');
    fs.mkdirSync(scratch, { recursive: true });
    const dir = scratchDir(scratch);
    try {
      // (compressed archives too, as the engine's load takes them: docker save | gzip)
      await extractTo(await openTar(body), dir);
      const images = describeArchive(dir);
      if (images.length === 0) throw invalidParameter('no images found in the archive');
      for (const img of images) await this.importOne(img, progress, quiet);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  private async importOne(img: ArchiveImage, progress: LoadProgress, quiet: boolean): Promise<void> {
    const configBytes = fs.readFileSync(img.configFile);
    const configDigest = sha256Digest(configBytes);
    if (img.configDigest && img.configDigest !== configDigest) throw invalidParameter(`config digest mismatch: ${img.configDigest}`);
    let config: OCIImageConfig;
    try {
      config = JSON.parse(configBytes.toString('utf8'));
    } catch {
      throw invalidParameter('invalid image config JSON');
    }
    const diffIds = config.rootfs?.diff_ids ?? [];
    if (diffIds.length !== img.layers.length) throw invalidParameter(`image config has ${diffIds.length} layers, the archive ${img.layers.length}`);
    await withLease(this.d.ctr, 'berth-load', async (lease) => {
      const layerDescs: LayerDesc[] = [];
      for (let i = 0; i < img.layers.length; i++) {
        const l = img.layers[i];
        const st = fs.statSync(l.file);
        const digest = l.digest ?? (await fileDigest(l.file));
        const mediaType = l.mediaType ?? ((await isGzip(l.file)) ? MT_LAYER_GZIP : MT_LAYER);
        if (!quiet) progress({ status: 'Loading layer', progressDetail: { current: 0, total: st.size }, id: shortId(digest) });
        await writeBlob(this.d.ctr, fs.createReadStream(l.file, { highWaterMark: 1 << 20 }), { ref: `berth-load-${digest}`, expected: digest, total: st.size, lease });
        if (!quiet) progress({ status: 'Loading layer', progressDetail: { current: st.size, total: st.size }, progress: progressBar(st.size, st.size), id: shortId(digest) });
        layerDescs.push({ mediaType, digest, size: st.size });
      }
      const tags = img.tags.map((t) => fullName(withDefaultTag(parseReference(t))));
      await this.d.images.storeImage(lease, { configBytes, diffIds, layers: layerDescs, names: tags });
      for (const t of tags) this.d.events.publish('image', 'load', familiarName(parseReference(t)), { name: familiarName(parseReference(t)) });
      if (!tags.length) this.d.events.publish('image', 'load', configDigest, { name: configDigest });
    });
    const loaded = img.tags.length ? img.tags.map((t) => `Loaded image: ${familiarName(withDefaultTag(parseReference(t)))}\n`) : [`Loaded image ID: ${configDigest}\n`];
    for (const line of loaded) progress({ stream: line });
  }

  /**
   * POST /images/create?fromSrc=: a filesystem tarball (plain or gzip) becomes a one-layer image, with the
   * engine's config (message as comment and history, `changes` applied). Returns the image id.
   */
  async importTarball(body: Readable, o: { repo?: string; tag?: string; message?: string; changes?: string[]; source: string }): Promise<string> {
    let names: string[] = [];
    if (o.repo) {
      const r = parseReference(o.repo);
      names = [fullName(withDefaultTag(o.tag ? withTag(r, o.tag) : r))];
    }
    const runConfig = applyChanges({}, o.changes ?? []);
    const scratch = path.join(this.d.dataRoot, 'tmp');
    await fs.promises.mkdir(scratch, { recursive: true });
    const dir = await fs.promises.mkdtemp(path.join(scratch, 'import-'));
    try {
      const raw = path.join(dir, 'raw');
      await pipeline(body, fs.createWriteStream(raw));
      const layer = path.join(dir, 'layer.tar');
      const h = crypto.createHash('sha256');
      const src = (await isGzip(raw)) ? fs.createReadStream(raw).pipe(zlib.createGunzip()) : fs.createReadStream(raw);
      await pipeline(
        src,
        new Transform({
          transform(chunk, _e, cb) {
            h.update(chunk);
            cb(null, chunk);
          },
        }),
        fs.createWriteStream(layer),
      );
      const diffId = 'sha256:' + h.digest('hex');
      const size = (await fs.promises.stat(layer)).size;
      const created = new Date().toISOString().replace(/\.(\d{3})Z$/, (_m, ms) => `.${ms}000000Z`);
      const config = {
        architecture: 'amd64',
        ...(o.message ? { comment: o.message } : {}),
        config: { Hostname: '', Domainname: '', User: '', AttachStdin: false, AttachStdout: false, AttachStderr: false, Tty: false, OpenStdin: false, StdinOnce: false, Env: null, Cmd: null, Image: '', Volumes: null, WorkingDir: '', Entrypoint: null, OnBuild: null, Labels: null, ...runConfig },
        created,
        docker_version: BERTH_VERSION,
        history: [{ created, ...(o.message ? { comment: o.message } : { comment: `Imported from ${o.source}` }) }],
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: [diffId] },
      };
      const configBytes = Buffer.from(JSON.stringify(config));
      const id = await withLease(this.d.ctr, 'berth-import', async (lease) => {
        await writeBlob(this.d.ctr, fs.createReadStream(layer, { highWaterMark: 1 << 20 }), { ref: `berth-import-${diffId}`, expected: diffId, total: size, lease });
        return (await this.d.images.storeImage(lease, { configBytes, diffIds: [diffId], layers: [{ mediaType: MT_LAYER, digest: diffId, size }], names })).id;
      });
      this.d.events.publish('image', 'import', id, { name: id });
      return id;
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }
}

/** A new folder under `scratch` named as the engine names its load's (Go's TempDir: docker-import-<random uint32>). */
function scratchDir(scratch: string): string {
  for (;;) {
    const dir = path.join(scratch, `docker-import-${crypto.randomInt(2 ** 32 - 1)}`);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function fileDigest(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = crypto.createHash('sha256');
    fs.createReadStream(file, { highWaterMark: 1 << 20 })
      .on('data', (c) => h.update(c))
      .on('end', () => resolve('sha256:' + h.digest('hex')))
      .on('error', reject);
  });
}

async function isGzip(file: string): Promise<boolean> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    await fd.read(b, 0, 2, 0);
    return b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fd.close();
  }
}
