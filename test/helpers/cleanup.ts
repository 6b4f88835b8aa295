// Removes everything berth's tests created in one containerd namespace: tasks, containers, images, snapshots,
// content, leases, then the namespace itself and its cgroup parent.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerd } from '../../src/containerd/client';
import { deleteNetns } from '../../src/network/sandbox';

async function quiet<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch {
    return undefined;
  }
}

export async function cleanupNamespace(ctr: Containerd): Promise<void> {
  const tasks = (await quiet(ctr.tasks.List({ filter: '' })))?.tasks ?? [];
  for (const t of tasks) {
    await quiet(ctr.tasks.Kill({ container_id: t.id, signal: 9, all: true }));
    await quiet(ctr.tasks.Wait({ container_id: t.id }, { timeoutMs: 5000 }));
    await quiet(ctr.tasks.Delete({ container_id: t.id }));
  }
  const containers = (await quiet(ctr.containers.List({ filters: [] })))?.containers ?? [];
  for (const c of containers) {
    await quiet(ctr.tasks.Delete({ container_id: c.id }));
    if (c.snapshot_key) await quiet(ctr.snapshots.Remove({ snapshotter: c.snapshotter || 'overlayfs', key: c.snapshot_key }));
    await quiet(ctr.containers.Delete({ id: c.id }));
    await quiet(deleteNetns(c.id)); // a test that failed mid-way may leave its network namespace
  }
  const images = (await quiet(ctr.images.List({ filters: [] })))?.images ?? [];
  for (const i of images) await quiet(ctr.images.Delete({ name: i.name, sync: false }));
  const leases = (await quiet(ctr.leases.List({ filters: [] })))?.leases ?? [];
  for (const l of leases) await quiet(ctr.leases.Delete({ id: l.id, sync: false }));
  // Snapshots: remove children before parents, a few passes.
  for (let pass = 0; pass < 20; pass++) {
    const infos = await listSnapshots(ctr);
    if (infos.length === 0) break;
    const parents = new Set(infos.map((i) => i.parent).filter(Boolean));
    for (const s of infos) if (!parents.has(s.name)) await quiet(ctr.snapshots.Remove({ snapshotter: 'overlayfs', key: s.name }));
  }
  for (const info of await listContent(ctr)) await quiet(ctr.content.Delete({ digest: info.digest }));
  await quiet(ctr.namespaces.Delete({ name: ctr.namespace }));
  removeCgroupParent(ctr.namespace);
}

/**
 * The cgroup folders runc made under a test's cgroup parent (`/<namespace>` by the tests' convention) in every
 * hierarchy: runc removes each container's own but not the parent, and 843 were found left from earlier runs.
 * Only empty folders go (rmdir); one still in use stays.
 */
export function removeCgroupParent(name: string): void {
  if (!name || name.includes('/') || name.startsWith('.')) return;
  const rm = (dir: string) => {
    let subs: fs.Dirent[] = [];
    try {
      subs = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of subs) if (d.isDirectory()) rm(path.join(dir, d.name));
    try {
      fs.rmdirSync(dir);
    } catch {
      /* in use, or gone */
    }
  };
  let hierarchies: string[] = [];
  try {
    hierarchies = fs.readdirSync('/sys/fs/cgroup').map((h) => path.join('/sys/fs/cgroup', h));
  } catch {
    return;
  }
  // (the hierarchies of a v1 host; on a v2 host /sys/fs/cgroup is itself the one hierarchy)
  for (const h of [...hierarchies, '/sys/fs/cgroup']) rm(path.join(h, name));
}

export function listSnapshots(ctr: Containerd): Promise<{ name: string; parent: string }[]> {
  return new Promise((resolve) => {
    const out: { name: string; parent: string }[] = [];
    const call = ctr.raw.snapshots.List({ snapshotter: 'overlayfs', filters: [] }, ctr.metadata());
    call.on('data', (m: { info: { name: string; parent: string }[] }) => out.push(...m.info));
    call.on('error', () => resolve(out));
    call.on('end', () => resolve(out));
  });
}

function listContent(ctr: Containerd): Promise<{ digest: string }[]> {
  return new Promise((resolve) => {
    const out: { digest: string }[] = [];
    const call = ctr.raw.content.List({ filters: [] }, ctr.metadata());
    call.on('data', (m: { info: { digest: string }[] }) => out.push(...m.info));
    call.on('error', () => resolve(out));
    call.on('end', () => resolve(out));
  });
}
