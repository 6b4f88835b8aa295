// The snapshot facade: a snapshotter's snapshots by key, as services use them (prepare, view, commit, mounts,
// usage, remove, the names listed), under a lease when one is given. Services never see a request message.
import type { Containerd } from './client';
import { fromGrpcError, ignoreNotFound } from './errors';
import type { Mount__Output } from './gen/containerd/types/Mount';

interface Opts {
  labels?: Record<string, string>;
  /** the lease that keeps what is made from garbage collection */
  lease?: string;
}

/** A mount of a snapshot, as containerd gives it (what Tasks.Create takes as the rootfs). */
export type SnapshotMount = Mount__Output;

const call = (o: Opts) => (o.lease ? { lease: o.lease } : undefined);

/** An active (writable) snapshot `key` on `parent` ('' for none); its mounts. */
export async function prepare(ctr: Containerd, snapshotter: string, key: string, parent: string, o: Opts = {}): Promise<Mount__Output[]> {
  return (await ctr.snapshots.Prepare({ snapshotter, key, parent, labels: o.labels ?? {} }, call(o))).mounts;
}

/** A read-only view `key` of `parent`; its mounts. */
export async function view(ctr: Containerd, snapshotter: string, key: string, parent: string, o: Opts = {}): Promise<Mount__Output[]> {
  return (await ctr.snapshots.View({ snapshotter, key, parent, labels: o.labels ?? {} }, call(o))).mounts;
}

/** Commits the active snapshot `key` as `name`. */
export async function commit(ctr: Containerd, snapshotter: string, name: string, key: string, o: Opts = {}): Promise<void> {
  await ctr.snapshots.Commit({ snapshotter, name, key, ...(o.labels ? { labels: o.labels } : {}) }, call(o));
}

/** The mounts of snapshot `key`. */
export async function mounts(ctr: Containerd, snapshotter: string, key: string): Promise<Mount__Output[]> {
  return (await ctr.snapshots.Mounts({ snapshotter, key })).mounts;
}

/** Throws (NotFound) when there is no snapshot `key`. */
export async function stat(ctr: Containerd, snapshotter: string, key: string, o: Opts = {}): Promise<void> {
  await ctr.snapshots.Stat({ snapshotter, key }, call(o));
}

/** The name of snapshot `key`'s parent ('' for none). */
export async function parentOf(ctr: Containerd, snapshotter: string, key: string): Promise<string> {
  return (await ctr.snapshots.Stat({ snapshotter, key })).info?.parent ?? '';
}

/** The label that makes a snapshot a root for containerd's garbage collector: kept until removed explicitly. */
export const GC_ROOT = 'containerd.io/gc.root';

/** The bytes snapshot `key` uses. */
export async function usage(ctr: Containerd, snapshotter: string, key: string): Promise<number> {
  return Number((await ctr.snapshots.Usage({ snapshotter, key })).size ?? 0);
}

/** Removes snapshot `key`; one that is gone already is fine. */
export async function remove(ctr: Containerd, snapshotter: string, key: string): Promise<void> {
  await ignoreNotFound(() => ctr.snapshots.Remove({ snapshotter, key }));
}

/** The keys of the snapshotter's snapshots that `match` accepts (berth's temporary ones, collected at start). */
export function keysMatching(ctr: Containerd, snapshotter: string, match: (key: string) => boolean): Promise<string[]> {
  return new Promise((resolve) => {
    const out: string[] = [];
    const list = ctr.raw.snapshots.List({ snapshotter, filters: [] }, ctr.metadata());
    list.on('data', (m: { info: { name: string }[] }) => out.push(...m.info.map((i) => i.name).filter(match)));
    list.on('error', () => resolve(out));
    list.on('end', () => resolve(out));
  });
}

/** The names (keys) of every snapshot of the snapshotter. */
export function names(ctr: Containerd, snapshotter: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const out: string[] = [];
    const call = ctr.raw.snapshots.List({ snapshotter, filters: [] }, ctr.metadata());
    call.on('data', (m: { info: { name: string }[] }) => out.push(...m.info.map((i) => i.name)));
    call.on('error', (err) => reject(fromGrpcError(err)));
    call.on('end', () => resolve(out));
  });
}
