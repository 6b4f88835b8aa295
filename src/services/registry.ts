// Pull, push and login through berth's registry client, with the engine's progress streams. Pulled layers are
// written with Content.Write (resumable: an interrupted download continues with a Range request), in parallel,
// under a lease, then unpacked by the image service's storeImage.
import { Readable, Transform } from 'node:stream';
import type { Containerd } from '../containerd/client';
import { readBlobStream, sha256Digest, writeBlob } from '../containerd/content';
import { addResource, withLease } from '../containerd/leases';
import { invalidParameter } from '../errors';
import { familiarName, familiarRepo, fullName, parseReference, Reference, repoName } from '../translate/reference';
import { Manifest, MT, RegistryClient, RegistryError } from '../registry/client';
import { chainIds, LayerDesc, progressBar, shortId } from './image-format';
import { SNAPSHOTTER, type ImageService } from './images';
import type { EventPublisher } from '../types/event';
import type { OCIImageConfig, ResolvedImage } from '../types/image';
import type { Credentials } from '../types/registry';

export type Progress = (msg: Record<string, unknown>) => void;

export interface RegistryServiceDeps {
  ctr: Containerd;
  images: ImageService;
  events: EventPublisher;
  /** The live daemon configuration's registry settings (daemon.json; SIGHUP changes them for the next pull or push):
   * max-concurrent-downloads/-uploads (the layers a pull fetches, a push uploads, at once; the engine's 3 and 5). */
  settings?: () => { maxConcurrentDownloads: number; maxConcurrentUploads: number; registryMirrors?: string[]; insecureRegistries?: string[] };
}

/** The platform a manifest list or index is resolved for. */
export function selectPlatform(index: { manifests: { digest: string; mediaType?: string; platform?: { os?: string; architecture?: string; variant?: string } }[] }, arch = 'amd64', os = 'linux'): string | undefined {
  const m = index.manifests.find((d) => d.platform?.os === os && d.platform?.architecture === arch) ?? (index.manifests.length === 1 && !index.manifests[0].platform ? index.manifests[0] : undefined);
  return m?.digest;
}

/** Throttles per-layer progress to what the engine sends: a line per ~512 KiB or at the end. */
function throttle(total: number): (current: number) => boolean {
  let last = -1;
  return (current) => {
    if (current === total || last < 0 || current - last >= 512 * 1024) {
      last = current;
      return true;
    }
    return false;
  };
}

/** fn over items, n at a time (0: all at once, as the engine's transfer manager reads a limit of 0). */
async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: n > 0 ? Math.min(n, items.length) : items.length }, async () => {
      while (i < items.length && errors.length === 0) {
        const item = items[i++];
        await fn(item).catch((e) => errors.push(e));
      }
    }),
  );
  if (errors.length) throw errors[0];
}

/** The tarball at a URL (fromSrc=URL); a host without a scheme is fetched over HTTP. */
async function fetchTarball(src: string): Promise<Readable> {
  let url: URL;
  try {
    url = new URL(src.includes('://') ? src : `http://${src}`);
  } catch {
    throw invalidParameter(`invalid URL: ${src}`);
  }
  const r = await fetch(url).catch((e: Error) => {
    throw invalidParameter(`Get "${url}": ${(e as { cause?: Error }).cause?.message ?? e.message}`);
  });
  if (!r.ok || !r.body) throw invalidParameter(`Get "${url}": ${r.status} ${r.statusText}`);
  return Readable.fromWeb(r.body as never);
}

export class RegistryService {
  constructor(private readonly d: RegistryServiceDeps) {}

  private settings() {
    return this.d.settings?.() ?? { maxConcurrentDownloads: 3, maxConcurrentUploads: 5 };
  }

  /** insecure-registries, read live (a SIGHUP changes them for the next pull, push, login or search). */
  private insecure(): string[] {
    return this.settings().insecureRegistries ?? [];
  }

  client(domain: string, creds: Credentials): RegistryClient {
    return new RegistryClient(domain === 'docker.io' ? 'registry-1.docker.io' : domain, creds, this.insecure());
  }

  /** GET /images/search: the registry's /v1/search — "host/term" searches that registry, anything else the default index, as the engine does. */
  async search(term: string, creds: Credentials): Promise<unknown[]> {
    const slash = term.indexOf('/');
    const first = slash > 0 ? term.slice(0, slash) : '';
    const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
    const host = isHost ? first : 'index.docker.io';
    const q = isHost ? term.slice(slash + 1) : term;
    const c = new RegistryClient(host, creds, this.insecure());
    const r = await c.request('GET', `/v1/search?q=${encodeURIComponent(q)}&n=25`, '');
    if (!r.ok) {
      await r.body?.cancel();
      throw new Error(`Unexpected status code ${r.status}`);
    }
    const j = (await r.json()) as { results?: unknown[] };
    return j.results ?? [];
  }

  /** POST /images/create?fromSrc=: the tarball in the request body, or fetched from a URL, imported as an image. */
  async importImage(source: Readable | string, o: { repo?: string; tag?: string; message?: string; changes?: string[]; source: string }): Promise<string> {
    return this.d.images.importTarball(typeof source === 'string' ? await fetchTarball(source) : source, o);
  }

  /** POST /auth: the registry's answer to the credentials. */
  async login(server: string, creds: Credentials): Promise<{ identityToken: string }> {
    let host = (server || 'docker.io').replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (host === 'index.docker.io' || host === 'docker.io') host = 'registry-1.docker.io';
    const c = new RegistryClient(host, creds, this.insecure());
    await c.ping();
    return { identityToken: c.identityToken };
  }

  /** POST /images/create?fromImage=&tag=. An empty tag pulls every tag of the repository. */
  async pull(fromImage: string, tag: string | undefined, creds: Credentials, progress: Progress, signal?: AbortSignal): Promise<void> {
    let ref = parseReference(fromImage);
    if (tag) {
      if (/^[a-z0-9]+:[a-f0-9]{32,}$/.test(tag)) ref = { ...ref, tag: undefined, digest: tag };
      else ref = { ...ref, tag, digest: undefined };
    }
    // The engine's endpoints: for docker.io each registry mirror first, then the hub; the next is tried when one
    // fails before the pull has begun (its tag list or manifest), and the last one's error is the answer.
    const mirrors = ref.domain === 'docker.io' ? (this.settings().registryMirrors ?? []) : [];
    const clients = [...mirrors.map((m) => new RegistryClient(new URL(m).host, creds, [], m.replace(/\/+$/, ''))), this.client(ref.domain, creds)];
    for (const [k, client] of clients.entries()) {
      const last = k === clients.length - 1;
      if (!ref.tag && !ref.digest) {
        let tags: string[];
        try {
          tags = await client.tags(ref.path, familiarRepo(ref));
        } catch (err) {
          if (last) throw err;
          continue;
        }
        for (const t of tags) await this.pullOne(client, { ...ref, tag: t }, progress, signal, true);
        progress({ status: `Status: Downloaded newer image for ${familiarRepo(ref)}` });
        return;
      }
      let top: Manifest;
      try {
        top = await client.getManifest(ref.path, ref.digest ?? ref.tag!, familiarName(ref));
      } catch (err) {
        if (last) throw err;
        continue;
      }
      await this.pullOne(client, ref, progress, signal, false, top);
      return;
    }
  }

  private async pullOne(client: RegistryClient, ref: Reference, progress: Progress, signal: AbortSignal | undefined, allTags: boolean, fetched?: Manifest): Promise<void> {
    const shown = familiarName(ref);
    const repoPath = ref.domain === 'docker.io' ? ref.path : familiarRepo(ref).slice(ref.domain.length + 1);
    const top = fetched ?? (await client.getManifest(ref.path, ref.digest ?? ref.tag!, shown));
    progress({ status: `Pulling from ${repoPath}`, id: ref.digest ?? ref.tag });
    let m: Manifest = top;
    if (m.mediaType === MT.dockerList || m.mediaType === MT.ociIndex) {
      const digest = selectPlatform(JSON.parse(m.bytes.toString('utf8')));
      if (!digest) throw new RegistryError(`no matching manifest for linux/amd64 in the manifest list entries`, 404);
      m = await client.getManifest(ref.path, digest, shown);
    }
    if (m.mediaType === MT.dockerSchema1 || m.mediaType === MT.dockerSchema1Signed)
      throw invalidParameter(`${shown}: schema 1 image manifests are not supported by berth; push the image with a current client (schema 2 or OCI)`);
    const man = JSON.parse(m.bytes.toString('utf8')) as { config: LayerDesc; layers: LayerDesc[] };
    const configBytes = await client.blobBytes(ref.path, man.config.digest);
    if (sha256Digest(configBytes) !== man.config.digest) throw new RegistryError(`config ${man.config.digest} does not match its digest`, 500);
    const config = JSON.parse(configBytes.toString('utf8')) as OCIImageConfig;
    const diffIds = config.rootfs?.diff_ids ?? [];
    if (diffIds.length !== man.layers.length) throw new RegistryError(`image config has ${diffIds.length} layers, the manifest ${man.layers.length}`, 500);
    const id = sha256Digest(configBytes);
    const name = fullName(ref);
    const digestName = `${repoName(ref)}@${top.digest}`;
    let existing: ResolvedImage | undefined;
    try {
      existing = await this.d.images.resolve(name);
    } catch {
      existing = undefined;
    }
    const upToDate = existing?.id === id;
    const chain = chainIds(diffIds);
    await withLease(this.d.ctr, 'berth-pull', async (lease) => {
      // "Already exists": unpacked and its blob kept (push and save need the blob). Both are put under the pull's
      // lease before they are looked at: an image removed just before leaves its snapshots to a garbage collection
      // that runs later, and one that ran between this check and the unpack of the layer above would remove its parent.
      await Promise.all(chain.flatMap((c, i) => [addResource(this.d.ctr, lease, `snapshots/${SNAPSHOTTER}`, c), addResource(this.d.ctr, lease, 'content', man.layers[i].digest)]));
      const present = await Promise.all(chain.map(async (c, i) => (await this.d.images.hasSnapshot(c)) && (await this.d.images.hasBlob(man.layers[i].digest))));
      const todo: number[] = [];
      man.layers.forEach((l, i) => {
        if (present[i]) progress({ status: 'Already exists', progressDetail: {}, id: shortId(l.digest) });
        else {
          progress({ status: 'Pulling fs layer', progressDetail: {}, id: shortId(l.digest) });
          todo.push(i);
        }
      });
      const fetchLayer = async (i: number) => {
        const l = man.layers[i];
        const sid = shortId(l.digest);
        if (!(await this.d.images.hasBlob(l.digest))) {
          const show = throttle(l.size);
          await writeBlob(
            this.d.ctr,
            async (offset) => {
              const src = await client.blob(ref.path, l.digest, offset);
              let current = offset;
              src.on('data', (c: Buffer) => {
                current += c.length;
                if (show(current)) progress({ status: 'Downloading', progressDetail: { current, total: l.size }, progress: progressBar(current, l.size), id: sid });
              });
              if (signal) signal.addEventListener('abort', () => src.destroy(new Error('pull cancelled')), { once: true });
              return src;
            },
            { ref: `berth-pull-${l.digest}`, expected: l.digest, total: l.size, lease },
          );
          progress({ status: 'Verifying Checksum', progressDetail: {}, id: sid });
        }
        progress({ status: 'Download complete', progressDetail: {}, id: sid });
      };
      const downloaded = man.layers.map(() => {
        let resolve!: () => void;
        let reject!: (e: unknown) => void;
        const p = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
        p.catch(() => undefined);
        return { p, resolve, reject };
      });
      present.forEach((x, i) => x && downloaded[i].resolve());
      const downloads = pool(todo, this.settings().maxConcurrentDownloads, async (i) => {
        try {
          await fetchLayer(i);
          downloaded[i].resolve();
        } catch (err) {
          downloaded[i].reject(err);
          throw err;
        }
      });
      const stored = this.d.images.storeImage(lease, {
        ready: (i) => downloaded[i].p,
        configBytes,
        diffIds,
        layers: man.layers,
        names: [name, digestName],
        manifest: { bytes: m.bytes, mediaType: m.mediaType },
        onLayer: (i, phase) => {
          if (present[i]) return;
          const l = man.layers[i];
          if (phase === 'extract') progress({ status: 'Extracting', progressDetail: { current: l.size, total: l.size }, progress: progressBar(l.size, l.size), id: shortId(l.digest) });
          else progress({ status: 'Pull complete', progressDetail: {}, id: shortId(l.digest) });
        },
      });
      // Unpacking runs as layers arrive; a failed download fails both.
      await Promise.all([downloads, stored]);
    });
    progress({ status: `Digest: ${top.digest}` });
    if (!allTags) progress({ status: upToDate ? `Status: Image is up to date for ${shown}` : `Status: Downloaded newer image for ${shown}` });
    this.d.events.publish('image', 'pull', shown, { name: shown });
  }

  /** POST /images/(name)/push?tag=: every tag of the repository when none is given. */
  async push(name: string, tag: string | undefined, creds: Credentials, progress: Progress, signal?: AbortSignal): Promise<void> {
    const ref = parseReference(name);
    if (ref.digest) throw invalidParameter('cannot push a digest reference');
    const repo = ref.tag ? { ...ref, tag: undefined } : ref;
    const wanted = tag || ref.tag;
    const all = await this.d.images.list();
    const tagged = all.flatMap((img) => img.names.filter((n) => n.startsWith(`${repoName(repo)}:`)).map((n) => ({ img, tag: n.slice(repoName(repo).length + 1) })));
    const targets = wanted ? tagged.filter((t) => t.tag === wanted) : tagged;
    progress({ status: `The push refers to repository [${familiarRepo(repo)}]` });
    if (targets.length === 0) throw new RegistryError(`An image does not exist locally with the tag: ${familiarRepo(repo)}`, 404);
    const client = this.client(repo.domain, creds);
    for (const t of targets) {
      const man = await this.d.images.manifestOf(t.img);
      const diffIds = t.img.diffIds;
      // Top layer first, as the engine lists them.
      const order = man.layers.map((l, i) => ({ l, diffId: diffIds[i] ?? l.digest })).reverse();
      const sameRegistryRepos = [
        ...new Set(
          t.img.names
            .map((n) => {
              try {
                return parseReference(n);
              } catch {
                return undefined;
              }
            })
            .filter((r): r is Reference => !!r && r.domain === repo.domain && r.path !== repo.path)
            .map((r) => r.path),
        ),
      ];
      for (const { diffId } of order) progress({ status: 'Preparing', progressDetail: {}, id: shortId(diffId) });
      await pool(order, this.settings().maxConcurrentUploads, async ({ l, diffId }) => {
        const sid = shortId(diffId);
        if (await client.blobExists(repo.path, l.digest)) {
          progress({ status: 'Layer already exists', progressDetail: {}, id: sid });
          return;
        }
        // The image's other repositories on the same registry: the registry can mount the blob from them.
        for (const from of sameRegistryRepos) {
          if (await client.mountBlob(repo.path, l.digest, from).catch(() => false)) {
            progress({ status: `Mounted from ${from}`, progressDetail: {}, id: sid });
            return;
          }
        }
        const show = throttle(l.size);
        await client.uploadBlob(
          repo.path,
          l.digest,
          l.size,
          () => {
            // Counted as it passes through: a 'data' listener on the source would set it flowing before the upload
            // reads it, and a small blob's only chunk went nowhere (the body fell short of its Content-Length).
            let current = 0;
            const src = readBlobStream(this.d.ctr, l.digest);
            const counted = new Transform({
              transform(c: Buffer, _enc, done) {
                current += c.length;
                if (show(current)) progress({ status: 'Pushing', progressDetail: { current, total: l.size }, progress: progressBar(current, l.size), id: sid });
                done(null, c);
              },
            });
            src.on('error', (err) => counted.destroy(err));
            return src.pipe(counted);
          },
          signal,
        );
        progress({ status: 'Pushed', progressDetail: {}, id: sid });
      });
      if (!(await client.blobExists(repo.path, man.configDigest))) {
        const cfg = await this.d.images.configBytes(man.configDigest);
        await client.uploadBlob(repo.path, man.configDigest, cfg.length, () => Readable.from([cfg]), signal);
      }
      const digest = (await client.putManifest(repo.path, t.tag, { bytes: man.bytes, mediaType: man.mediaType })) || sha256Digest(man.bytes);
      progress({ status: `${t.tag}: digest: ${digest} size: ${man.bytes.length}` });
      progress({ progressDetail: {}, aux: { Tag: t.tag, Digest: digest, Size: man.bytes.length } });
      this.d.events.publish('image', 'push', `${familiarRepo(repo)}:${t.tag}`, { name: `${familiarRepo(repo)}:${t.tag}` });
    }
  }
}
