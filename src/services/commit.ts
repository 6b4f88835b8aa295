// POST /commit: a container's changes (its rw snapshot against its init layer, so /etc/hosts and the mountpoint
// dirs stay out) become a new gzip layer through containerd's diff service, on top of the image's layers, with
// the engine's config (the container's Config, the body's config and `changes`) and a history entry.
import type { Containerd } from '../containerd/client';
import { readBlob, withLease } from '../containerd/content';
import { conflict } from '../errors';
import { familiarName, fullName, parseReference, withDefaultTag } from '../translate/reference';
import { applyChanges } from '../translate/request/changes';
import { BERTH_VERSION } from '../version';
import type { ContainerService } from './containers';
import { ImageService, LayerDesc, SNAPSHOTTER } from './images';
import type { EventPublisher } from '../types/event';
import type { OCIImageConfig } from '../types/image';
import type { CommitOptions, ImageRunConfig } from '../types/image';

const MT_LAYER_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';

const nowNano = () => new Date().toISOString().replace(/\.(\d{3})Z$/, (_m, ms) => `.${ms}000000Z`);

export class CommitService {
  constructor(
    private readonly ctr: Containerd,
    private readonly images: ImageService,
    private readonly containers: ContainerService,
    private readonly events: EventPublisher,
  ) {}

  async commit(o: CommitOptions): Promise<string> {
    const rec = this.containers.find(o.container);
    let names: string[] = [];
    if (o.repo) {
      const r = parseReference(o.repo);
      names = [fullName(withDefaultTag(o.tag ? { ...r, tag: o.tag, digest: undefined } : r))];
    }
    const base = await this.images.resolve(rec.Image);
    const baseManifest = await this.images.manifestOf(base);
    const paused = o.pause && rec.State.Running && !rec.State.Paused;
    if (paused) await this.ctr.tasks.Pause({ container_id: rec.Id }).catch((err) => {
      throw conflict(`Cannot pause container ${rec.Id}: ${(err as Error).message}`);
    });
    try {
      return await withLease(this.ctr, 'berth-commit', async (lease) => {
        const right = (await this.ctr.snapshots.Mounts({ snapshotter: SNAPSHOTTER, key: rec.Id })).mounts;
        const viewKey = `berth-commit-view-${rec.Id}-${Date.now()}`;
        const left = (await this.ctr.snapshots.View({ snapshotter: SNAPSHOTTER, key: viewKey, parent: `${rec.Id}-init` }, { lease })).mounts;
        let layer: LayerDesc;
        let diffId: string;
        try {
          const { diff } = await this.ctr.diff.Diff({ left, right, media_type: MT_LAYER_GZIP, ref: `berth-commit-${rec.Id}`, labels: {} }, { lease });
          const info = await this.ctr.content.Info({ digest: diff!.digest });
          diffId = info.info?.labels?.['containerd.io/uncompressed'] ?? diff!.digest;
          layer = { mediaType: MT_LAYER_GZIP, digest: diff!.digest, size: Number(diff!.size) };
        } finally {
          await this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: viewKey }).catch(() => undefined);
        }
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
      if (paused) await this.ctr.tasks.Resume({ container_id: rec.Id }).catch(() => undefined);
    }
  }
}
