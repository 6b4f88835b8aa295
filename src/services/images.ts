// Local images in containerd: resolve, list, inspect, store (layers unpacked into snapshots, config and manifest
// written, names set), tag bookkeeping and removal; load and import are in image-import.ts. Image id = config
// digest. Tags are containerd image names in full form (docker.io/library/busybox:latest); an image with no tag
// left is kept under a dangling name.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { Containerd } from '../containerd/client';
import * as diffApi from '../containerd/diff';
import * as snapshotApi from '../containerd/snapshots';
import { info as blobInfo, readBlob, setLabels, sha256Digest, writeBlob } from '../containerd/content';
import { withLease } from '../containerd/leases';
import * as imageApi from '../containerd/images';
import { isGrpcAlreadyExists, isGrpcNotFound } from '../containerd/errors';
import { conflict, invalidParameter, notFound } from '../errors';
import { contentSize } from '../fs/usage';
import { layerDirs, MountLike } from './rootfs';
import { danglingName, familiarName, familiarNames, fullName, isDanglingName, isFullId, parseReference, Reference, withDefaultTag } from '../translate/reference';
import { ImageImporter } from './image-import';
import { chainIds, LayerDesc, LoadProgress, shortId } from './image-format';
import type { ContainerStore } from '../store/containers';
import type { EventPublisher } from '../types/event';
import type { DeleteResult, OCIImageConfig, ResolvedImage } from '../types/image';
import { now } from '../runtime/clock';
import { rfc3339Nano } from '../translate/time';
import { applyTarFailure, UNTAR_FAILED } from '../translate/tar-errors';

export const SNAPSHOTTER = 'overlayfs';
const MT_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const MT_CONFIG = 'application/vnd.oci.image.config.v1+json';
const LABEL_SIZE = 'berth.size';
/** On a layer blob: the bytes of the files it holds, as the engine counts a layer's size (from unpack). */
const LABEL_FILES_SIZE = 'berth.files-size';

/** A layer's size from its blob's labels: its files' bytes; for layers unpacked before that label, the archive's. */
function layerSize(labels: Record<string, string> | null | undefined, fallback: number): number {
  return Number(labels?.[LABEL_FILES_SIZE] ?? labels?.['berth.uncompressed-size'] ?? fallback);
}
/** The image a commit started from (the engine's Parent; pulled and loaded images have none). */
const LABEL_PARENT = 'berth.parent';
/** When the name was made by a tag (RFC 3339): the image's Metadata.LastTagTime (loaded and pulled names have none). */
const LABEL_TAGGED = 'berth.tagged';

export interface ImageServiceDeps {
  ctr: Containerd;
  dataRoot: string;
  events: EventPublisher;
  /** The container records (which containers use an image). */
  store: ContainerStore;
}

interface ManifestInfo {
  configDigest: string;
  layers: { digest: string; size: number; mediaType: string }[];
}

export class ImageService {
  readonly snapshotter = SNAPSHOTTER;
  private readonly importer: ImageImporter;
  private readonly manifests = new Map<string, ManifestInfo>();
  private readonly configs = new Map<string, OCIImageConfig>();
  /** The image records last listed, and the imageApi.generation they were read at (allImages). */
  private listed?: { gen: number; all: { image: imageApi.ImageRecord; id: string }[] };
  /** GraphDriver.Data by snapshot chain: a committed snapshot's directories never change while it exists. */
  private readonly graphData = new Map<string, Record<string, string>>();

  constructor(private readonly deps: ImageServiceDeps) {
    this.importer = new ImageImporter({ ctr: deps.ctr, dataRoot: deps.dataRoot, events: deps.events, images: this });
  }

  private get ctr(): Containerd {
    return this.deps.ctr;
  }

  // ---- reading -------------------------------------------------------------------------------------------

  private async manifest(digest: string): Promise<ManifestInfo> {
    const hit = this.manifests.get(digest);
    if (hit) return hit;
    const m = JSON.parse((await readBlob(this.ctr, digest)).toString('utf8'));
    const info = { configDigest: m.config.digest, layers: m.layers };
    this.manifests.set(digest, info);
    return info;
  }

  async config(digest: string): Promise<OCIImageConfig> {
    const hit = this.configs.get(digest);
    if (hit) return hit;
    const c = JSON.parse((await readBlob(this.ctr, digest)).toString('utf8')) as OCIImageConfig;
    this.configs.set(digest, c);
    return c;
  }

  /**
   * Every image record with its id, read from containerd. The list is kept (`listed`) for resolve while the records
   * do not change (a write through the images facade or one of containerd's /images/ events changes
   * imageApi.generation; with no event stream watching them there is none, and nothing is kept): a create resolves
   * its image without a round trip.
   */
  private async allImages(): Promise<{ image: imageApi.ImageRecord; id: string }[]> {
    const gen = imageApi.generation(this.ctr);
    const images = await imageApi.list(this.ctr);
    const out: { image: imageApi.ImageRecord; id: string }[] = [];
    await Promise.all(
      images.map(async (image) => {
        try {
          const m = await this.manifest(image.target!.digest);
          out.push({ image, id: m.configDigest });
        } catch (err) {
          if (!isGrpcNotFound(err)) throw err; // content collected under us: not an image any more
        }
      }),
    );
    // (kept only when nothing changed while it was read)
    if (gen !== undefined && imageApi.generation(this.ctr) === gen) this.listed = { gen, all: out };
    return out;
  }

  private async build(id: string, images: imageApi.ImageRecord[]): Promise<ResolvedImage> {
    const config = await this.config(id);
    const names = images.map((i) => i.name);
    const diffIds = config.rootfs?.diff_ids ?? [];
    const chain = chainIds(diffIds);
    const size = Math.max(0, ...images.map((i) => Number(i.labels?.[LABEL_SIZE] ?? 0)));
    return {
      id,
      names,
      // a stored name berth cannot parse must never make a list fail
      repoTags: familiarNames(names.filter((n) => !isDanglingName(n) && !n.includes('@'))),
      repoDigests: familiarNames(names.filter((n) => !isDanglingName(n) && n.includes('@'))),
      config,
      chainId: chain[chain.length - 1] ?? '',
      diffIds,
      size,
      created: config.created ?? '0001-01-01T00:00:00Z',
      manifestDigest: images[0]?.target?.digest ?? '',
      parent: images.map((i) => i.labels?.[LABEL_PARENT]).find(Boolean) ?? '',
      // When a name last came to point at it (a tag, pull, load or commit): the latest of its tagged names' records.
      lastTagTime: images
        .map((i) => i.labels?.[LABEL_TAGGED])
        .filter((t): t is string => !!t)
        .sort()
        .pop(),
    };
  }

  /** By name[:tag], name@digest, full id, or unique id prefix. */
  async resolve(ref: string): Promise<ResolvedImage> {
    // From the list last read when nothing changed since (allImages): what is not found there, found twice or gone
    // meanwhile is asked again.
    const gen = imageApi.generation(this.ctr);
    const listed = gen !== undefined && this.listed?.gen === gen ? this.listed.all : undefined;
    if (listed) {
      try {
        return await this.resolveIn(listed, ref);
      } catch {
        /* asked again */
      }
    }
    return this.resolveIn(await this.allImages(), ref);
  }

  private async resolveIn(all: { image: imageApi.ImageRecord; id: string }[], ref: string): Promise<ResolvedImage> {
    const byId = (id: string) => all.filter((a) => a.id === id).map((a) => a.image);
    const hex = ref.replace(/^sha256:/, '');
    if (isFullId(ref)) {
      const imgs = byId('sha256:' + hex);
      if (imgs.length) return this.build('sha256:' + hex, imgs);
      throw notFound(`No such image: ${ref}`);
    }
    let parsed: Reference | undefined;
    try {
      parsed = withDefaultTag(parseReference(ref));
    } catch {
      parsed = undefined;
    }
    if (parsed) {
      const name = fullName(parsed);
      const hit = all.find((a) => a.image.name === name);
      if (hit) return this.build(hit.id, byId(hit.id));
    }
    if (/^(sha256:)?[a-f0-9]{1,63}$/.test(ref)) {
      const ids = [...new Set(all.filter((a) => a.id.slice(7).startsWith(hex)).map((a) => a.id))];
      if (ids.length === 1) return this.build(ids[0], byId(ids[0]));
      if (ids.length > 1) throw invalidParameter(`multiple IDs found with provided prefix: ${ref}`);
    }
    throw notFound(`No such image: ${parsed ? familiarName(parsed) : ref}`);
  }

  async count(): Promise<number> {
    return new Set((await this.allImages()).map((a) => a.id)).size;
  }

  async list(): Promise<ResolvedImage[]> {
    const all = await this.allImages();
    const groups = new Map<string, imageApi.ImageRecord[]>();
    for (const a of all) groups.set(a.id, [...(groups.get(a.id) ?? []), a.image]);
    const out = await Promise.all([...groups].map(([id, imgs]) => this.build(id, imgs)));
    return out.sort((a, b) => (b.created > a.created ? 1 : b.created < a.created ? -1 : 0));
  }

  /**
   * The images whose parent is `parent` (the build cache's candidates), newest first. Only their records are listed
   * (a label filter in containerd), so a lookup does not grow with every image there is; each record of such an
   * image carries the label (commits store it on the image's first name, tags copy it), and `names` holds those.
   */
  async children(parent: string): Promise<ResolvedImage[]> {
    const records = await imageApi.list(this.ctr, [`labels."${LABEL_PARENT}"==${JSON.stringify(parent)}`]);
    const groups = new Map<string, imageApi.ImageRecord[]>();
    await Promise.all(
      records.map(async (image) => {
        try {
          const { configDigest } = await this.manifest(image.target!.digest);
          groups.set(configDigest, [...(groups.get(configDigest) ?? []), image]);
        } catch (err) {
          if (!isGrpcNotFound(err)) throw err;
        }
      }),
    );
    const out = await Promise.all([...groups].map(([id, imgs]) => this.build(id, imgs)));
    return out.sort((a, b) => (b.created > a.created ? 1 : b.created < a.created ? -1 : 0));
  }

  /** Unpacked size of each layer, bottom first (from the labels written at unpack). */
  async layerSizes(img: ResolvedImage): Promise<number[]> {
    const m = await this.manifest(img.manifestDigest);
    return Promise.all(
      m.layers.map(async (l) => {
        const info = await blobInfo(this.ctr, l.digest).catch(() => undefined);
        return layerSize(info?.labels, l.size);
      }),
    );
  }

  // ---- load and import (image-import.ts) ------------------------------------------------------------------

  /** POST /images/load: the images of a docker-save or OCI-layout archive. */
  load(body: Readable, progress: LoadProgress, quiet: boolean): Promise<void> {
    return this.importer.load(body, progress, quiet);
  }

  /** POST /images/create?fromSrc=: a filesystem tarball as a one-layer image; returns its id. */
  importTarball(body: Readable, o: { repo?: string; tag?: string; message?: string; changes?: string[]; source: string }): Promise<string> {
    return this.importer.importTarball(body, o);
  }

  /**
   * Makes an image of blobs already in the content store (under `lease`): unpacks the layers into snapshots,
   * writes the config and the manifest (the given bytes, or an OCI manifest made here) with their GC labels, and
   * points the names at it (none: a dangling name). Used by load, pull, import and commit.
   */
  async storeImage(
    lease: string,
    o: {
      configBytes: Buffer;
      diffIds: string[];
      layers: LayerDesc[];
      names: string[];
      parent?: string;
      manifest?: { bytes: Buffer; mediaType: string };
      onLayer?: (i: number, phase: 'extract' | 'done') => void;
      ready?: (i: number) => Promise<void>;
      /**
       * An active snapshot (on the chain below the top layer) that already holds the top layer's files (a build
       * step's): committed as the top chain instead of unpacking the layer's blob again. `filesSize`: the bytes
       * of the files it holds when the caller knows them (else counted).
       */
      activeTop?: { key: string; filesSize?: number };
    },
  ): Promise<{ id: string; size: number; manifestDigest: string; manifestSize: number }> {
    const configDigest = sha256Digest(o.configBytes);
    const chain = chainIds(o.diffIds);
    let size = 0;
    // Unpack into snapshots, layer by layer, skipping chains that exist.
    for (let i = 0; i < o.layers.length; i++) {
      await o.ready?.(i); // a pull unpacks each layer as soon as it (and those below) are downloaded
      o.onLayer?.(i, 'extract');
      const active = i === o.layers.length - 1 ? o.activeTop : undefined;
      size += active ? await this.adoptLayer(o.layers[i], o.diffIds[i], chain[i], active, lease) : await this.unpackLayer(o.layers[i], o.diffIds[i], chain[i], i ? chain[i - 1] : '', lease);
      o.onLayer?.(i, 'done');
    }
    const snapLabel = `containerd.io/gc.ref.snapshot.${SNAPSHOTTER}`;
    await writeBlob(this.ctr, o.configBytes, { ref: `berth-config-${configDigest}`, expected: configDigest, total: o.configBytes.length, lease, labels: chain.length ? { [snapLabel]: chain[chain.length - 1] } : {} });
    // Make sure the config label is there even when the blob already existed.
    await setLabels(this.ctr, configDigest, { [snapLabel]: chain[chain.length - 1] ?? '' }, { lease });
    const manifest = o.manifest ?? {
      mediaType: MT_MANIFEST,
      bytes: Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MT_MANIFEST, config: { mediaType: MT_CONFIG, digest: configDigest, size: o.configBytes.length }, layers: o.layers })),
    };
    const manifestDigest = sha256Digest(manifest.bytes);
    const labels: Record<string, string> = { 'containerd.io/gc.ref.content.config': configDigest };
    o.layers.forEach((l, i) => (labels[`containerd.io/gc.ref.content.l.${i}`] = l.digest));
    await writeBlob(this.ctr, manifest.bytes, { ref: `berth-manifest-${manifestDigest}`, expected: manifestDigest, total: manifest.bytes.length, lease, labels });
    await setLabels(this.ctr, manifestDigest, labels, { lease });
    const target = { media_type: manifest.mediaType, digest: manifestDigest, size: String(manifest.bytes.length) };
    const names = o.names.length ? o.names : [danglingName(configDigest)];
    const imageLabels: Record<string, string> = { [LABEL_SIZE]: String(size), ...(o.parent ? { [LABEL_PARENT]: o.parent } : {}) };
    for (const name of names) await this.setName(name, target, imageLabels, configDigest, lease);
    // An image that gains a tag is no longer dangling.
    if (o.names.length) await imageApi.remove(this.ctr, danglingName(configDigest)).catch(() => undefined);
    return { id: configDigest, size, manifestDigest, manifestSize: manifest.bytes.length };
  }

  /** A blob's raw bytes (an image config as stored, for push). */
  configBytes(digest: string): Promise<Buffer> {
    return readBlob(this.ctr, digest);
  }

  /** Whether an unpacked snapshot of a layer chain exists. */
  async hasSnapshot(chainId: string): Promise<boolean> {
    try {
      await snapshotApi.stat(this.ctr, SNAPSHOTTER, chainId);
      return true;
    } catch (err) {
      if (isGrpcNotFound(err)) return false;
      throw err;
    }
  }

  /** Whether the content store has a blob. */
  async hasBlob(digest: string): Promise<boolean> {
    try {
      await blobInfo(this.ctr, digest);
      return true;
    } catch (err) {
      if (isGrpcNotFound(err)) return false;
      throw err;
    }
  }

  /** The manifest (layers with media types and sizes) of a resolved image. */
  async manifestOf(img: ResolvedImage): Promise<{ bytes: Buffer; mediaType: string; configDigest: string; layers: LayerDesc[] }> {
    const bytes = await readBlob(this.ctr, img.manifestDigest);
    const m = JSON.parse(bytes.toString('utf8'));
    const head = await imageApi.get(this.ctr, img.names[0]);
    return { bytes, mediaType: head.target?.media_type || m.mediaType || MT_MANIFEST, configDigest: m.config.digest, layers: m.layers };
  }

  private async unpackLayer(desc: { mediaType: string; digest: string; size: number }, diffId: string, chainId: string, parent: string, lease: string): Promise<number> {
    try {
      await snapshotApi.stat(this.ctr, SNAPSHOTTER, chainId, { lease });
      const info = await blobInfo(this.ctr, desc.digest).catch(() => undefined);
      return layerSize(info?.labels, desc.size);
    } catch (err) {
      if (!isGrpcNotFound(err)) throw err;
    }
    const key = `extract-${crypto.randomBytes(6).toString('hex')} ${chainId}`;
    const mounts = await snapshotApi.prepare(this.ctr, SNAPSHOTTER, key, parent, { labels: { 'containerd.io/snapshot.ref': chainId }, lease });
    let applied;
    let filesSize = 0;
    try {
      applied = await diffApi.apply(this.ctr, desc, mounts, lease);
      if (applied?.digest !== diffId) throw invalidParameter(`layer ${desc.digest} does not match its diff id ${diffId} (got ${applied?.digest})`);
      // The layer's size as the engine counts it: the bytes of its files (not the archive's, headers and all).
      const upper = layerDirs(mounts as MountLike[]).upper;
      filesSize = upper ? await contentSize(upper) : Number(applied.size);
      await snapshotApi.commit(this.ctr, SNAPSHOTTER, chainId, key, { labels: { 'containerd.io/snapshot.ref': chainId }, lease });
    } catch (err) {
      await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
      if (isGrpcAlreadyExists(err)) return desc.size; // a concurrent unpack won
      // a layer whose tar is broken: the archive's fault, in the engine's words
      const broken = err instanceof Error ? applyTarFailure(err.message) : undefined;
      if (broken) throw invalidParameter(`${UNTAR_FAILED}${broken}`);
      throw err;
    }
    const unpacked = Number(applied.size);
    const labels = { 'containerd.io/uncompressed': diffId, 'berth.uncompressed-size': String(unpacked), [LABEL_FILES_SIZE]: String(filesSize) };
    await setLabels(this.ctr, desc.digest, labels, { lease });
    return filesSize;
  }

  /**
   * A layer whose files are already in the active snapshot `key` (prepared on the chain below): the snapshot is
   * committed as chain `chainId` (or dropped when that chain exists), and the blob gets the labels an unpack gives.
   */
  private async adoptLayer(desc: LayerDesc, diffId: string, chainId: string, active: { key: string; filesSize?: number }, lease: string): Promise<number> {
    const { key } = active;
    let filesSize = active.filesSize;
    if (filesSize === undefined) {
      const upper = layerDirs((await snapshotApi.mounts(this.ctr, SNAPSHOTTER, key)) as MountLike[]).upper;
      filesSize = upper ? await contentSize(upper) : desc.size;
    }
    try {
      await snapshotApi.commit(this.ctr, SNAPSHOTTER, chainId, key, { labels: { 'containerd.io/snapshot.ref': chainId }, lease });
    } catch (err) {
      if (!isGrpcAlreadyExists(err)) throw err;
      await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
    }
    const labels = { 'containerd.io/uncompressed': diffId, 'berth.uncompressed-size': String(desc.size), [LABEL_FILES_SIZE]: String(filesSize) };
    await setLabels(this.ctr, desc.digest, labels, { lease });
    return filesSize;
  }

  /** Points a name at a manifest; an image that loses its last name this way is kept as dangling. */
  private async setName(name: string, target: { media_type: string; digest: string; size: string }, labels: Record<string, string>, newId: string, lease?: string): Promise<void> {
    let previous: imageApi.ImageRecord | undefined;
    try {
      previous = await imageApi.get(this.ctr, name);
    } catch (err) {
      if (!isGrpcNotFound(err)) throw err;
    }
    if (previous) {
      if (previous.target?.digest === target.digest) return;
      await imageApi.update(this.ctr, { name, labels, target }, lease);
      const oldId = (await this.manifest(previous.target!.digest)).configDigest;
      if (oldId !== newId && !(await this.allImages()).some((a) => a.id === oldId)) {
        await imageApi.create(this.ctr, { name: danglingName(oldId), labels: previous.labels ?? {}, target: previous.target! }, lease).catch(() => undefined);
      }
      return;
    }
    try {
      await imageApi.create(this.ctr, { name, labels, target }, lease);
    } catch (err) {
      if (!isGrpcAlreadyExists(err)) throw err;
      await imageApi.update(this.ctr, { name, labels, target }, lease);
    }
  }

  /**
   * GraphDriver.Data of an image as the engine's overlay2 shows it: its top layer's directory as UpperDir with that
   * layer's work directory as WorkDir, the layers below (top first) as LowerDir. Read from the mounts of a short-lived
   * read-only view of its snapshot chain (under a lease, so a berth killed meanwhile leaves nothing), then cached.
   * MergedDir: the engine names its top layer's 'merged' folder, one it never mounts for an image; berth never mounts
   * an image's layers at a fixed place either, so it names the same sibling of the top layer's directories, which
   * does not exist. Null when the image has no layers.
   */
  async graphDriverData(img: ResolvedImage): Promise<Record<string, string> | null> {
    if (!img.chainId) return null;
    const known = this.graphData.get(img.chainId);
    if (known) return known;
    // The view is removed once read (its mounts name the layers' own folders): left to containerd's GC it would
    // linger as a snapshot berth has no record of.
    const key = `graphdriver-${crypto.randomBytes(6).toString('hex')} ${img.chainId}`;
    const mounts = await withLease(this.ctr, 'berth-graphdriver', async (lease) => {
      try {
        return await snapshotApi.view(this.ctr, SNAPSHOTTER, key, img.chainId!, { lease });
      } finally {
        await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
      }
    }).catch(() => undefined);
    const m = mounts?.[0] as MountLike | undefined;
    if (!m) return null;
    // One layer: a read-only bind of its directory; more: an overlay of them all as lower directories.
    const dirs = m.type === 'bind' ? [m.source] : layerDirs([m]).lower;
    if (!dirs.length) return null;
    const data: Record<string, string> = {};
    if (dirs.length > 1) data.LowerDir = dirs.slice(1).join(':');
    data.MergedDir = path.join(path.dirname(dirs[0]), 'merged');
    data.UpperDir = dirs[0];
    data.WorkDir = path.join(path.dirname(dirs[0]), 'work');
    this.graphData.set(img.chainId, data);
    return data;
  }

  /** Adds a tag (used by the tag endpoint and by commit/pull). */
  async tag(image: ResolvedImage, ref: Reference): Promise<void> {
    const name = fullName(ref);
    const tagged = rfc3339Nano(now());
    // A name the image already has is left as it is (a rebuilt image's tag: no round trip).
    if (!image.names.includes(name)) {
      const first = await imageApi.get(this.ctr, image.names[0]);
      await this.setName(name, first.target!, { ...(first.labels ?? {}), [LABEL_TAGGED]: tagged }, image.id);
    }
    // The reference keeps LastTagTime on the image, not on the name: the image's other names carry it too, so that
    // removing the new tag again does not take it away.
    for (const n of image.names.filter((n) => n !== name)) await imageApi.setLabel(this.ctr, n, LABEL_TAGGED, tagged).catch(() => undefined);
    if (image.names.includes(danglingName(image.id))) await imageApi.remove(this.ctr, danglingName(image.id)).catch(() => undefined);
    this.deps.events.publish('image', 'tag', image.id, { name: familiarName(ref) });
  }

  // ---- remove --------------------------------------------------------------------------------------------

  async remove(ref: string, opts: { force: boolean; noprune: boolean }): Promise<DeleteResult[]> {
    const img = await this.resolve(ref);
    const users = this.deps.store.usingImage(img.id);
    const tags = img.names.filter((n) => !isDanglingName(n));
    let byName: string | undefined;
    try {
      const r = withDefaultTag(parseReference(ref));
      if (img.names.includes(fullName(r))) byName = fullName(r);
    } catch {
      byName = undefined;
    }
    const out: DeleteResult[] = [];
    const untag = async (name: string, sync = false) => {
      await imageApi.remove(this.ctr, name, sync);
      const familiar = familiarName(parseReference(name));
      out.push({ Untagged: familiar });
      // The reference names the image by its id in an untag event, not by the name removed.
      this.deps.events.publish('image', 'untag', img.id, { name: img.id });
    };
    if (byName && tags.length > 1) {
      // Removing one of several names only untags.
      await untag(byName);
      return out;
    }
    if (!byName && tags.length > 1 && !opts.force) {
      throw conflict(`conflict: unable to delete ${shortId(img.id)} (must be forced) - image is referenced in multiple repositories`);
    }
    // An image that others were committed from stays (as <none>) while they exist, as with the engine.
    const hasChildren = (await this.list()).some((i) => i.parent === img.id);
    if (hasChildren && !byName) throw conflict(`conflict: unable to delete ${shortId(img.id)} (cannot be forced) - image has dependent child images`);
    if (users.length) {
      const running = users.find((u) => u.running);
      if (running && !opts.force) throw conflict(`conflict: unable to delete ${shortId(img.id)} (cannot be forced) - image is being used by running container ${shortId(running.id)}`);
      if (!opts.force) {
        if (byName) throw conflict(`conflict: unable to remove repository reference "${familiarName(parseReference(byName))}" (must force) - container ${shortId(users[0].id)} is using its referenced image ${shortId(img.id)}`);
        throw conflict(`conflict: unable to delete ${shortId(img.id)} (must be forced) - image is being used by stopped container ${shortId(users[0].id)}`);
      }
      // Forced with containers using it: untag only, keep the image for them (as the engine does).
      const kept = await imageApi.get(this.ctr, img.names[0]);
      for (const t of tags) await untag(t);
      if (tags.length) await this.setName(danglingName(img.id), kept.target!, kept.labels ?? {}, img.id);
      return out;
    }
    if (hasChildren) {
      const kept = await imageApi.get(this.ctr, img.names[0]);
      for (const t of tags) await untag(t);
      await this.setName(danglingName(img.id), kept.target!, kept.labels ?? {}, img.id);
      return out;
    }
    // The image's last name goes with a synchronous collection: its layers are freed before the answer, as the
    // engine's are (a pull right after downloads them again, and the disk space is back).
    const dangling = img.names.filter(isDanglingName);
    for (const [i, t] of tags.entries()) await untag(t, !dangling.length && i === tags.length - 1);
    for (const [i, n] of dangling.entries()) await imageApi.remove(this.ctr, n, i === dangling.length - 1).catch(() => undefined);
    out.push({ Deleted: img.id });
    const parent = img.parent ? await this.resolve(img.parent).catch(() => undefined) : undefined;
    // The layers this image added (a parent's stay with the parent).
    if (!opts.noprune) for (const d of img.diffIds.slice(parent?.diffIds.length ?? 0).reverse()) out.push({ Deleted: d });
    this.deps.events.publish('image', 'delete', img.id, { name: img.id });
    // Pruning: an untagged parent left without children and containers goes too, as with the engine.
    if (!opts.noprune && parent && !parent.repoTags.length && !parent.repoDigests.length) {
      const orphan = !(await this.list()).some((i) => i.parent === parent.id) && !this.deps.store.usingImage(parent.id).length;
      if (orphan) out.push(...(await this.remove(parent.id, opts)));
    }
    return out;
  }
}
