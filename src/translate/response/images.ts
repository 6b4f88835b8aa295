// Image list, inspect and history bodies per API version — pure.
import { ApiVersion, supports } from '../version/features';
import type { ResolvedImage } from '../../types/image';
import { ZERO_TIME } from '../time';
import { storageDriverName } from './storage-driver';

const toUnix = (rfc: string): number => Math.floor(Date.parse(rfc) / 1000) || 0;

/** The engine's container.Config shape as images show it (zero values written out; omitempty fields only when set). */
export function toImageContainerConfig(c: Record<string, any> | undefined): Record<string, unknown> {
  const cfg = c ?? {};
  const out: Record<string, unknown> = {
    Hostname: cfg.Hostname ?? '',
    Domainname: cfg.Domainname ?? '',
    User: cfg.User ?? '',
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
  };
  if (cfg.ExposedPorts && Object.keys(cfg.ExposedPorts).length) out.ExposedPorts = cfg.ExposedPorts;
  Object.assign(out, {
    Tty: false,
    OpenStdin: false,
    StdinOnce: false,
    Env: cfg.Env ?? null,
    Cmd: cfg.Cmd ?? null,
  });
  if (cfg.Healthcheck) out.Healthcheck = cfg.Healthcheck;
  if (cfg.ArgsEscaped) out.ArgsEscaped = true;
  Object.assign(out, {
    Image: cfg.Image ?? '',
    Volumes: cfg.Volumes ?? null,
    WorkingDir: cfg.WorkingDir ?? '',
    Entrypoint: cfg.Entrypoint ?? null,
    OnBuild: cfg.OnBuild ?? null,
    Labels: cfg.Labels ?? null,
  });
  if (cfg.StopSignal) out.StopSignal = cfg.StopSignal;
  if (cfg.Shell && cfg.Shell.length) out.Shell = cfg.Shell;
  return out;
}

export function toImageSummary(img: ResolvedImage, v: ApiVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Id: img.id,
  };
  // The spec: "ParentId string (absent for root images)" (the 20.10 reference sends "" there; the spec wins).
  if (img.parent) out.ParentId = img.parent;
  out.RepoTags = img.repoTags.length ? img.repoTags : ['<none>:<none>'];
  // The spec: "RepoDigests ... (present when `digests` is requested)"; it is silent on the other requests, where the
  // reference sends it too (the docker CLI's `images --digests` never asks and reads it). A tagged image with no
  // digest: null, as the engine sends (its list leaves the slice nil; inspect sends []).
  out.RepoDigests = img.repoDigests.length ? img.repoDigests : img.repoTags.length ? null : ['<none>@<none>'];
  out.Created = toUnix(img.created);
  // Not in the spec's image summary (silent on them); the reference sends -1 ("not computed") at every version.
  out.SharedSize = -1;
  out.Size = img.size;
  out.VirtualSize = img.size;
  if (supports(v, 'ImageLabels')) out.Labels = img.config.config?.Labels ?? null;
  out.Containers = -1;
  return out;
}

export function toImageInspect(img: ResolvedImage, snapshotter: string, graphDriverData: Record<string, string> | null = null): Record<string, unknown> {
  const c = img.config;
  return {
    Id: img.id,
    RepoTags: img.repoTags,
    RepoDigests: img.repoDigests,
    Parent: img.parent,
    Comment: c.comment ?? c.history?.[c.history.length - 1]?.comment ?? '',
    Created: c.created ?? '0001-01-01T00:00:00Z',
    Container: c.container ?? '',
    ContainerConfig: toImageContainerConfig(c.container_config),
    DockerVersion: c.docker_version ?? '',
    Author: c.author ?? '',
    Config: toImageContainerConfig(c.config),
    Architecture: c.architecture ?? 'amd64',
    Os: c.os ?? 'linux',
    Size: img.size,
    VirtualSize: img.size,
    GraphDriver: { Data: graphDriverData, Name: storageDriverName(snapshotter) },
    RootFS: { Type: 'layers', Layers: img.diffIds },
    // Not in the spec's image inspect (silent on it); the reference sends it at every version.
    Metadata: { LastTagTime: img.lastTagTime ?? ZERO_TIME },
  };
}

export interface HistoryLayerSizes {
  /** Unpacked size of each non-empty layer, bottom first. */
  sizes: number[];
}

export function toImageHistory(img: ResolvedImage, layers: HistoryLayerSizes, v: ApiVersion): Record<string, unknown>[] {
  const hist = img.config.history?.length ? img.config.history : img.diffIds.map(() => ({} as NonNullable<typeof img.config.history>[number]));
  let layer = 0;
  const rows = hist.map((h) => {
    const size = h.empty_layer ? 0 : (layers.sizes[layer++] ?? 0);
    return { created: h.created ?? img.created, createdBy: h.created_by ?? '', comment: h.comment ?? '', size };
  });
  const out = rows.reverse().map((r, i) => {
    const row: Record<string, unknown> = { Id: i === 0 ? img.id : '<missing>', Created: toUnix(r.created), CreatedBy: r.createdBy };
    if (supports(v, 'HistoryTagsSizeComment')) {
      row.Tags = i === 0 ? img.repoTags : null;
      row.Size = r.size;
      row.Comment = r.comment;
    }
    return row;
  });
  return out;
}
