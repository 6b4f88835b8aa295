// Volume bodies per API version — pure.
import { ApiVersion, supports } from '../version/features';
import type { Volume } from '../../types/volume';

export function toVolumeJSON(v: Volume, ver: ApiVersion): Record<string, unknown> {
  // CreatedAt and Options are not in the spec's Volume (silent on them); the reference sends both at every version.
  const out: Record<string, unknown> = { CreatedAt: v.CreatedAt, Name: v.Name, Driver: v.Driver, Mountpoint: v.Mountpoint };
  if (v.Status && Object.keys(v.Status).length) out.Status = v.Status; // a plugin's, when it gives one
  if (supports(ver, 'VolumeLabelsScope')) {
    out.Labels = v.Labels;
    out.Scope = 'local';
  }
  out.Options = v.Options ?? null;
  return out;
}
