// The lease facade: leases keep what is made under them (content, snapshots) from containerd's garbage collection.
// A lease made by withLease expires on its own after an hour if berth dies before deleting it.
import * as crypto from 'node:crypto';
import type { Containerd } from './client';

/** A lease `id` with `labels` (containerd.io/gc.expire for one that should expire). */
export async function create(ctr: Containerd, id: string, labels: Record<string, string> = {}): Promise<void> {
  await ctr.leases.Create({ id, labels });
}

/** Deletes lease `id` (what it held is collected later); throws (NotFound) when there is none. */
export async function remove(ctr: Containerd, id: string): Promise<void> {
  await ctr.leases.Delete({ id, sync: false });
}

/**
 * Puts a resource under lease `id` (`type`: 'content' or 'snapshots/<snapshotter>'): from then on the garbage
 * collector keeps it, if it still exists (containerd does not check that it does).
 */
export async function addResource(ctr: Containerd, id: string, type: string, resource: string): Promise<void> {
  await ctr.leases.AddResource({ id, resource: { id: resource, type } });
}

/** The ids of the namespace's leases. */
export async function ids(ctr: Containerd): Promise<string[]> {
  return (await ctr.leases.List({ filters: [] })).leases.map((l) => l.id);
}

/** Runs fn inside a fresh lease (expiring by itself after an hour if berth dies); the lease is deleted after. */
export async function withLease<T>(ctr: Containerd, prefix: string, fn: (lease: string) => Promise<T>): Promise<T> {
  const id = `${prefix}-${crypto.randomBytes(8).toString('hex')}`;
  const expire = new Date(Date.now() + 3600_000).toISOString();
  await create(ctr, id, { 'containerd.io/gc.expire': expire });
  try {
    return await fn(id);
  } finally {
    await remove(ctr, id).catch(() => undefined);
  }
}

/**
 * The leases of withLease operations a killed berth left (`<prefix>-<hex>`), deleted at start before anything runs:
 * otherwise they hold the snapshots and content of an interrupted create, pull, load, commit or build for an hour.
 */
export async function releaseOperationLeases(ctr: Containerd, prefixes: string[]): Promise<string[]> {
  const stale = (await ids(ctr)).filter((id) => prefixes.some((p) => new RegExp(`^${p}-[0-9a-f]{16}$`).test(id)));
  for (const id of stale) await remove(ctr, id).catch(() => undefined);
  return stale;
}

