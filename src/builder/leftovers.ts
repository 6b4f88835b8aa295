// What a build that berthd's death cut short left behind, removed at start. Kept apart from the builder itself
// (builder.ts and the Dockerfile parser, the context store, COPY), which the daemon loads only at the first build.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerd } from '../containerd/client';
import * as imageApi from '../containerd/images';
import * as leaseApi from '../containerd/leases';
import * as snapshotApi from '../containerd/snapshots';
import { unmountAllUnder } from '../fs/mounts';
import { SNAPSHOTTER } from '../services/images';
import { danglingName } from '../translate/reference';

export interface LeftoverDeps {
  ctr: Containerd;
  dataRoot: string;
  containers: { remove(id: string, o: { force: boolean; volumes: boolean }): Promise<unknown> };
}

/** The builder's temporary folder (contexts, downloads): see builder/context.ts. */
export const buildTmpRoot = (dataRoot: string): string => path.join(dataRoot, 'builder', 'tmp');

/**
 * Empties the builder's temporary folder (snapshots still mounted there are unmounted first), removes a killed
 * build's step containers, its images of no layers, its step snapshots and its leases.
 */
export async function removeBuildLeftovers(d: LeftoverDeps): Promise<void> {
  const tmp = buildTmpRoot(d.dataRoot);
  if (fs.existsSync(tmp)) await unmountAllUnder(tmp);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const leftovers = path.join(d.dataRoot, 'builder', 'containers');
  fs.mkdirSync(leftovers, { recursive: true, mode: 0o700 });
  for (const id of fs.readdirSync(leftovers)) {
    await d.containers.remove(id, { force: true, volumes: true }).catch(() => undefined);
    fs.rmSync(path.join(leftovers, id), { force: true });
  }
  // Images of no layers made for a step's container after FROM scratch (their containers are gone now).
  const images = path.join(d.dataRoot, 'builder', 'images');
  fs.mkdirSync(images, { recursive: true, mode: 0o700 });
  for (const hex of fs.readdirSync(images)) {
    await imageApi.remove(d.ctr, danglingName(`sha256:${hex}`)).catch(() => undefined);
    fs.rmSync(path.join(images, hex), { force: true });
  }
  // Step snapshots (COPY/ADD, COPY --from views) and leases of a build that was killed: the snapshots first,
  // through the API (one left to containerd's GC once its lease is gone can stay its parent's child: see daemon.ts).
  for (const key of await snapshotApi.keysMatching(d.ctr, SNAPSHOTTER, (k) => k.startsWith('berth-build-'))) await snapshotApi.remove(d.ctr, SNAPSHOTTER, key).catch(() => undefined);
  for (const id of await leaseApi.ids(d.ctr)) {
    if (id.startsWith('berth-build')) await leaseApi.remove(d.ctr, id).catch(() => undefined);
  }
}
