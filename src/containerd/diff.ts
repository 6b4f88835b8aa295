// The diff facade: a layer from the difference of two mount sets, and a layer applied onto mounts, under a lease.
import type { Containerd } from './client';
import type { Mount, Mount__Output } from './gen/containerd/types/Mount';

export interface LayerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** The changes from `left` to `right` written as a layer blob of `mediaType`; its descriptor. */
export async function diff(ctr: Containerd, left: Mount[], right: Mount[], o: { mediaType: string; ref: string; lease: string }): Promise<LayerDescriptor | undefined> {
  const { diff: d } = await ctr.diff.Diff({ left, right, media_type: o.mediaType, ref: o.ref, labels: {} }, { lease: o.lease });
  return d ? { mediaType: d.media_type, digest: d.digest, size: Number(d.size) } : undefined;
}

/** Unpacks the layer `layer` onto `mounts`; the descriptor of what was applied (its uncompressed digest). */
export async function apply(ctr: Containerd, layer: LayerDescriptor, mounts: Mount__Output[], lease: string): Promise<LayerDescriptor | undefined> {
  const { applied } = await ctr.diff.Apply({ diff: { media_type: layer.mediaType, digest: layer.digest, size: String(layer.size) }, mounts }, { lease });
  return applied ? { mediaType: applied.media_type, digest: applied.digest, size: Number(applied.size) } : undefined;
}
