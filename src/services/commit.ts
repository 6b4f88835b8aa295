// POST /commit: a container's changes (its rw snapshot against its init layer, so /etc/hosts and the mountpoint
// dirs stay out) become a new gzip layer through containerd's diff service (a build step's: uncompressed), on top of the image's layers, with
// the engine's config (the container's Config, the body's config and `changes`) and a history entry.
import type { Containerd } from '../containerd/client';
import * as diffApi from '../containerd/diff';
import * as snapshotApi from '../containerd/snapshots';
import * as taskApi from '../containerd/tasks';
import { info as blobInfo, readBlob } from '../containerd/content';
import { withLease } from '../containerd/leases';
import { familiarName, fullName, parseReference, withDefaultTag, withTag } from '../translate/reference';
import { applyChanges } from '../translate/request/changes';
import { BERTH_VERSION } from '../version';
import type { ContainerService } from './containers';
import { LayerDesc, MT_LAYER, MT_LAYER_GZIP } from './image-format';
import { ImageService, SNAPSHOTTER } from './images';
import type { EventPublisher } from '../types/event';
import type { CommitOptions, ImageRunConfig, OCIImageConfig, ResolvedImage } from '../types/image';


export const nowNano = () => new Date().toISOString().replace(/\.(\d{3})Z$/, (_m, ms) => `.${ms}000000Z`);

/** The diff id of an empty tar (1024 zero bytes): a step that changed nothing makes no layer. */
export const EMPTY_TAR_DIFF_ID = 'sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef';

/** One build step's image: its config, and the changes of a snapshot (or none) as its layer. */
export interface BuildStepCommit {
  /** The image the step started from; undefined for `FROM scratch`. */
  base: ResolvedImage | undefined;
  /**
   * The active snapshot holding the step's changes and the snapshot it is diffed against ('' for none). `adopt`:
   * the snapshot was prepared on the base image's chain and is not needed after the step, so it becomes the new
   * layer's snapshot (committed) instead of the layer being unpacked again; `filesSize`, the bytes of the files
   * written, when the step knows them.
   */
  changes?: { key: string; parent: string; adopt?: boolean; filesSize?: number };
  /** The step's container id (recorded as `container`), '' when it had none. */
  container: string;
  config: ImageRunConfig;
  containerConfig: ImageRunConfig;
  createdBy: string;
  /** MAINTAINER of the stage so far. */
  author?: string;
}

export class CommitService {
  constructor(
    private readonly ctr: Containerd,
    private readonly images: ImageService,
    private readonly containers: ContainerService,
    private readonly events: EventPublisher,
  ) {}

  /**
   * The changes of snapshot `key` against `parent` as a layer through containerd's diff service (under `lease`),
   * gzip by default, with its uncompressed digest.
   */
  async diffLayer(lease: string, key: string, parent: string, mediaType = MT_LAYER_GZIP): Promise<{ layer: LayerDesc; diffId: string }> {
    const right = await snapshotApi.mounts(this.ctr, SNAPSHOTTER, key);
    const viewKey = `berth-commit-view-${key}-${Date.now()}`;
    const left = parent ? await snapshotApi.view(this.ctr, SNAPSHOTTER, viewKey, parent, { lease }) : [];
    try {
      const layer = (await diffApi.diff(this.ctr, left, right, { mediaType, ref: `berth-commit-${key}`, lease }))!;
      if (mediaType === MT_LAYER) return { layer: { mediaType, digest: layer.digest, size: layer.size }, diffId: layer.digest };
      const info = await blobInfo(this.ctr, layer.digest);
      const diffId = info.labels['containerd.io/uncompressed'] ?? layer.digest;
      return { layer: { mediaType, digest: layer.digest, size: layer.size }, diffId };
    } finally {
      if (parent) await snapshotApi.remove(this.ctr, SNAPSHOTTER, viewKey).catch(() => undefined);
    }
  }

  /**
   * What a step's changes are diffed against. A container's init layer named the engine's way, `<container>-init`
   * (as the builder names it), is the layer below the container's rw snapshot: since init layers are shared per
   * image (container-config's prepareRootfs), that is asked of containerd.
   */
  private async diffBase(changes: { key: string; parent: string }): Promise<string> {
    return changes.parent === `${changes.key}-init` ? snapshotApi.parentOf(this.ctr, SNAPSHOTTER, changes.key) : changes.parent;
  }

  /**
   * A build step's image (untagged, its parent the step's base), as the engine's builder commits it: the layer
   * only when the step changed the filesystem, else `empty_layer` in its history entry. Returns the image id.
   */
  async commitBuildStep(o: BuildStepCommit): Promise<string> {
    return withLease(this.ctr, 'berth-build', async (lease) => {
      const baseConfig = o.base ? (JSON.parse((await readBlob(this.ctr, o.base.id)).toString('utf8')) as OCIImageConfig) : undefined;
      const baseLayers = o.base ? (await this.images.manifestOf(o.base)).layers : [];
      let layer: { layer: LayerDesc; diffId: string } | undefined;
      if (o.changes) {
        // Uncompressed, as the engine's builder keeps its layers until a push.
        layer = await this.diffLayer(lease, o.changes.key, await this.diffBase(o.changes), MT_LAYER);
        if (layer.diffId === EMPTY_TAR_DIFF_ID) layer = undefined;
      }
      const created = nowNano();
      const diffIds = [...(o.base?.diffIds ?? []), ...(layer ? [layer.diffId] : [])];
      const config: OCIImageConfig = {
        architecture: baseConfig?.architecture ?? 'amd64',
        ...(o.author ? { author: o.author } : {}),
        config: o.config,
        container: o.container,
        container_config: o.containerConfig,
        created,
        docker_version: BERTH_VERSION,
        history: [...(baseConfig?.history ?? []), { created, created_by: o.createdBy, ...(layer ? {} : { empty_layer: true }) }],
        os: baseConfig?.os ?? 'linux',
        rootfs: { type: 'layers', diff_ids: diffIds },
      };
      if (!o.container) delete config.container;
      const stored = await this.images.storeImage(lease, {
        configBytes: Buffer.from(JSON.stringify(config)),
        diffIds,
        layers: [...baseLayers, ...(layer ? [layer.layer] : [])],
        names: [],
        parent: o.base?.id,
        activeTop: layer && o.changes?.adopt ? { key: o.changes.key, filesSize: o.changes.filesSize } : undefined,
      });
      return stored.id;
    });
  }

  async commit(o: CommitOptions): Promise<string> {
    const rec = this.containers.find(o.container);
    let names: string[] = [];
    if (o.repo) {
      const r = parseReference(o.repo);
      names = [fullName(withDefaultTag(o.tag ? withTag(r, o.tag) : r))];
    }
    const base = await this.images.resolve(rec.Image);
    const baseManifest = await this.images.manifestOf(base);
    // The engine pauses for the copy and goes on without the pause when it fails (runc's cgroup v1 freezer can
    // fail to freeze a container that forks busily; berth answered 409 there); only a pause made is undone.
    const paused = o.pause && rec.State.Running && !rec.State.Paused && (await taskApi.pause(this.ctr, rec.Id).then(() => true, () => false));
    try {
      return await withLease(this.ctr, 'berth-commit', async (lease) => {
        // against the init layer below the rw snapshot (the image's shared one; `<id>-init` for containers made before it)
        const { layer, diffId } = await this.diffLayer(lease, rec.Id, await snapshotApi.parentOf(this.ctr, SNAPSHOTTER, rec.Id));
        const baseConfig = JSON.parse((await readBlob(this.ctr, base.id)).toString('utf8')) as OCIImageConfig;
        // The container's config, then the body's, then the changes (the engine's order).
        const c = rec.Config as Record<string, unknown>;
        let run: ImageRunConfig = {
          Hostname: c.Hostname ?? '', Domainname: c.Domainname ?? '', User: (c.User as string) ?? '', AttachStdin: false, AttachStdout: false, AttachStderr: false,
          ExposedPorts: (c.ExposedPorts as Record<string, object>) ?? undefined, Tty: !!c.Tty, OpenStdin: !!c.OpenStdin, StdinOnce: !!c.StdinOnce, Env: (c.Env as string[]) ?? null,
          Cmd: (c.Cmd as string[]) ?? null, Image: base.id, Volumes: (c.Volumes as Record<string, object>) ?? null, WorkingDir: (c.WorkingDir as string) ?? '',
          Entrypoint: (c.Entrypoint as string[]) ?? null, OnBuild: (c.OnBuild as string[]) ?? null, Labels: (c.Labels as Record<string, string>) ?? {},
        };
        if (run.ExposedPorts === undefined) delete run.ExposedPorts;
        if (o.config) run = { ...run, ...Object.fromEntries(Object.entries(o.config).filter(([, v]) => v !== undefined && v !== null && v !== '')) };
        run = applyChanges(run, o.changes);
        const created = nowNano();
        const config: OCIImageConfig = {
          architecture: baseConfig.architecture ?? 'amd64',
          ...(o.author ? { author: o.author } : {}),
          ...(o.comment ? { comment: o.comment } : {}),
          config: run,
          container: rec.Id,
          container_config: { ...run, Image: rec.ImageName },
          created,
          docker_version: BERTH_VERSION,
          history: [...(baseConfig.history ?? []), { created, created_by: [rec.Path, ...rec.Args].join(' '), ...(o.author ? { author: o.author } : {}), ...(o.comment ? { comment: o.comment } : {}) }],
          os: baseConfig.os ?? 'linux',
          rootfs: { type: 'layers', diff_ids: [...base.diffIds, diffId] },
        };
        const stored = await this.images.storeImage(lease, {
          configBytes: Buffer.from(JSON.stringify(config)),
          diffIds: config.rootfs.diff_ids,
          layers: [...baseManifest.layers, layer],
          names,
          parent: base.id,
        });
        this.events.publish('container', 'commit', rec.Id, {
          comment: o.comment ?? '',
          imageID: stored.id,
          imageRef: names[0] ? familiarName(parseReference(names[0])) : stored.id,
          image: rec.ImageName,
          name: rec.Name.slice(1),
        });
        return stored.id;
      });
    } finally {
      if (paused) await taskApi.resume(this.ctr, rec.Id).catch(() => undefined);
    }
  }
}
