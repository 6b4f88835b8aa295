// GET /images/get and /images/(name)/get: images as a docker-save archive (manifest.json, the configs, one
// directory per layer with an uncompressed layer.tar, VERSION and v1 json, and `repositories` for tagged names),
// streamed as it is built, loadable by the reference engine and by berth.
import * as crypto from 'node:crypto';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
// (tar-stream is loaded at the first archive: an idle berth does not hold it)
import type * as tar from 'tar-stream';
import type { Containerd } from '../containerd/client';
import { info as blobInfo, readBlobStream } from '../containerd/content';
import { familiarName, familiarRepo, isFullId, parseReference, withDefaultTag } from '../translate/reference';
import { ImageService } from './images';
import type { EventPublisher } from '../types/event';
import type { ResolvedImage } from '../types/image';

interface Wanted {
  img: ResolvedImage;
  /** tags to record: repository → tag (none when asked by id) */
  tags: string[];
}

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

export class SaveService {
  constructor(
    private readonly ctr: Containerd,
    private readonly images: ImageService,
    private readonly events: EventPublisher,
  ) {}

  /** GET /images/get: the named images resolved, then their archive to `start()`. */
  async save(names: string[], start: () => Writable): Promise<void> {
    const wanted = await this.resolve(names);
    await this.write(wanted, start());
  }

  /** Resolves every name first (a missing one is an error before anything is written). */
  async resolve(names: string[]): Promise<Wanted[]> {
    const out = new Map<string, Wanted>();
    for (const n of names) {
      const img = await this.images.resolve(n);
      const w = out.get(img.id) ?? { img, tags: [] };
      if (!isFullId(n) && !/^(sha256:)?[a-f0-9]{1,63}$/.test(n)) {
        const r = withDefaultTag(parseReference(n));
        if (r.tag) {
          const t = familiarName(r);
          if (!w.tags.includes(t)) w.tags.push(t);
        } else {
          // a repository without a tag: all its tags on this image
          for (const t of img.repoTags) if (t.startsWith(`${familiarRepo(r)}:`) && !w.tags.includes(t)) w.tags.push(t);
        }
      }
      out.set(img.id, w);
    }
    return [...out.values()];
  }

  async write(wanted: Wanted[], out: Writable): Promise<void> {
    const pack = (require('tar-stream') as typeof tar).pack();
    const done = pipeline(pack, out);
    const entry = (name: string, body: Buffer | string) =>
      new Promise<void>((resolve, reject) => pack.entry({ name, mtime: new Date(0), mode: 0o644 }, body, (err) => (err ? reject(err) : resolve())));
    const manifest: { Config: string; RepoTags: string[] | null; Layers: string[] }[] = [];
    const repositories: Record<string, Record<string, string>> = {};
    const written = new Set<string>();
    for (const w of wanted) {
      const m = await this.images.manifestOf(w.img);
      const configHex = w.img.id.replace(/^sha256:/, '');
      const configName = `${configHex}.json`;
      if (!written.has(configName)) await entry(configName, await this.images.configBytes(w.img.id));
      written.add(configName);
      const layers: string[] = [];
      let parent = '';
      for (let i = 0; i < m.layers.length; i++) {
        const l = m.layers[i];
        const diffId = w.img.diffIds[i];
        // v1 layer ids as a chain, so equal layer stacks share directories
        const id = sha(`${parent} ${diffId}`);
        const dir = `${id}`;
        layers.push(`${dir}/layer.tar`);
        if (!written.has(dir)) {
          written.add(dir);
          pack.entry({ name: `${dir}/`, type: 'directory', mtime: new Date(0), mode: 0o755 });
          await entry(`${dir}/VERSION`, '1.0');
          await entry(`${dir}/json`, JSON.stringify({ id, ...(parent ? { parent } : {}), created: '1970-01-01T00:00:00Z', container_config: { Cmd: null } }));
          await this.layerEntry(pack, `${dir}/layer.tar`, l);
        }
        parent = id;
      }
      manifest.push({ Config: configName, RepoTags: w.tags.length ? w.tags : null, Layers: layers });
      for (const t of w.tags) {
        const i = t.lastIndexOf(':');
        (repositories[t.slice(0, i)] ??= {})[t.slice(i + 1)] = parent;
      }
    }
    await entry('manifest.json', JSON.stringify(manifest));
    if (Object.keys(repositories).length) await entry('repositories', JSON.stringify(repositories));
    pack.finalize();
    await done;
    for (const w of wanted) this.events.publish('image', 'save', w.img.id, { name: w.tags[0] ?? w.img.id });
  }

  /** One layer as an uncompressed tar entry: gzip layers are inflated on the way (their size is known from unpack). */
  private async layerEntry(pack: tar.Pack, name: string, l: { digest: string; size: number; mediaType: string }): Promise<void> {
    const gz = /gzip/.test(l.mediaType);
    const info = await blobInfo(this.ctr, l.digest);
    let size = gz ? Number(info.labels['berth.uncompressed-size'] ?? -1) : l.size;
    if (size < 0) {
      // unpacked from another blob of the same content: count the inflated bytes once
      size = 0;
      for await (const c of readBlobStream(this.ctr, l.digest).pipe(zlib.createGunzip())) size += (c as Buffer).length;
    }
    await new Promise<void>((resolve, reject) => {
      const sink = pack.entry({ name, size, mtime: new Date(0), mode: 0o644 }, (err) => (err ? reject(err) : resolve()));
      const src = readBlobStream(this.ctr, l.digest);
      (gz ? src.pipe(zlib.createGunzip()) : src).on('error', reject).pipe(sink);
    });
  }
}
