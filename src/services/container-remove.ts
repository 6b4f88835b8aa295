// A container's removal: refused while it runs (unless forced: then killed first), one at a time per container (a
// second remove is a 409, as the engine's), containerd's task, snapshots and container deleted, then berth's record,
// anonymous volumes on request, and the remove hooks (exec records, ...). A removal that fails leaves the container
// dead, as the engine's SetRemovalError; one a SIGKILL interrupted (a record left 'removing') is finished at restart.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import * as taskApi from '../containerd/tasks';
import * as containerApi from '../containerd/containers';
import { conflict } from '../errors';
import type { Logger } from '../log';
import type { ContainerStore } from '../store/containers';
import { deleteNetns } from '../network/sandbox';
import type { ContainerRecord } from '../types/container';
import type { EventPublisher } from '../types/event';
import type { ContainerLive } from './container-live';
import type { ContainerMonitor } from './container-monitor';
import { SNAPSHOTTER } from './images';
import type { VolumeService } from './volumes';

/**
 * The container's FIFO folder, empty by now (the run's exit removed its FIFOs): one rmdir at once instead of fs.rm's
 * thread-pool round trips (lstat, rmdir); one that is not empty goes as before.
 */
function removeFifoDir(dir: string): Promise<void> {
  try {
    fs.rmdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return fs.promises.rm(dir, { recursive: true, force: true });
  }
  return Promise.resolve();
}

export interface ContainerRemoverDeps {
  ctr: Containerd;
  store: ContainerStore;
  logger: Logger;
  execRoot: string;
  volumes: VolumeService;
  live: ContainerLive;
  monitor: ContainerMonitor;
  publish: (rec: ContainerRecord, action: string, extra?: Record<string, string>) => void;
  events: EventPublisher;
}

export class ContainerRemover {
  private readonly removeHooks: ((id: string) => void)[] = [];
  /** Containers whose removal is under way: a second remove is a 409, as the engine's. */
  private readonly removing = new Set<string>();

  constructor(private readonly d: ContainerRemoverDeps) {}

  /** Called with the id of every removed container (exec records, volumes...). */
  onRemove(fn: (id: string) => void): void {
    this.removeHooks.push(fn);
  }

  async remove(rec: ContainerRecord, ref: string, opts: { force: boolean; volumes: boolean }): Promise<void> {
    if (this.removing.has(rec.Id)) throw conflict(`removal of container ${ref} is already in progress`);
    this.removing.add(rec.Id);
    try {
      await this.removeOnce(rec, opts);
    } finally {
      this.removing.delete(rec.Id);
    }
  }

  /** Whether a removal of the container is under way (from before its kill: a start asked meanwhile is refused). */
  inProgress(id: string): boolean {
    return this.removing.has(id);
  }

  /** As the engine's restore does: a removal a SIGKILL interrupted (a record left 'removing') is finished. */
  async finishInterrupted(): Promise<void> {
    for (const rec of this.d.store.all().filter((r) => r.State.Status === 'removing')) {
      await this.remove(rec, rec.Id, { force: true, volumes: true }).catch((err) => this.d.logger.warn('cannot finish an interrupted removal', { id: rec.Id, err: String(err) }));
    }
  }

  private async removeOnce(rec: ContainerRecord, opts: { force: boolean; volumes: boolean }): Promise<void> {
    const ctr = this.d.ctr;
    if (rec.State.Restarting && !rec.State.Running) {
      if (!opts.force) throw conflict(`You cannot remove a restarting container ${rec.Id}. Stop the container before attempting removal or force remove`);
      this.d.monitor.cancelRestart(rec);
    }
    if (rec.State.Running) {
      if (!opts.force) {
        // (the engine's words: a paused container's advice starts with unpausing it)
        const what = rec.State.Paused ? 'paused' : 'running';
        const advice = rec.State.Paused ? 'Unpause and then stop the container before attempting removal or force remove' : 'Stop the container before attempting removal or force remove';
        throw conflict(`You cannot remove a ${what} container ${rec.Id}. ${advice}`);
      }
      this.d.monitor.exitOnNext(rec);
      if (rec.State.Paused) await taskApi.resume(ctr, rec.Id).catch(() => undefined);
      this.d.publish(rec, 'kill', { signal: '9' });
      await taskApi.kill(ctr, rec.Id, 9, { all: true }).catch(() => undefined);
      // (the kill and the die go to subscribers before the answer, as the engine's)
      this.d.events.sendHeld?.();
      await this.d.monitor.waitExit(rec.Id);
    }
    rec.State.Status = 'removing';
    // On disk before anything is taken apart: a berth killed from here on finishes the removal when it starts
    // (reconcile), instead of keeping a record whose containerd container or snapshot is already gone.
    await this.d.store.save(rec);
    const live = this.d.live.liveOf(rec.Id);
    const teardown = live.teardown;
    try {
      // An endpoint teardown still running finishes on its own (it deletes the netns); only its record write is awaited.
      await live.exitCleanup;
      if (live.teardown) await live.teardownRecorded;
      else {
        await live.netnsMade; // (one the create is still making)
        await deleteNetns(rec.Id).catch(() => undefined);
      }
      if (!live.noTask) await taskApi.remove(ctr, rec.Id).catch(() => undefined);
      // berth's record goes last: a removal cut short (an error, or a SIGKILL: the record says 'removing') is
      // finished by the next one, which finds what is gone already gone (each delete takes not-found as done).
      // The rw snapshot, containerd's container and the FIFO folder go at the same time (one round trip instead of
      // two after the task's deletion, on the path of every `docker run --rm`). The init layer of a container made
      // before init layers were shared (`<id>-init`: committed with no label, kept only by its child) is collected by
      // containerd's GC once the rw snapshot is gone; it is not asked for here (a call that failed with not-found on
      // every other removal, at the moment containerd is busiest with this one).
      await Promise.all([
        snapshotApi.remove(ctr, SNAPSHOTTER, rec.Id),
        containerApi.remove(ctr, rec.Id),
        removeFifoDir(path.join(this.d.execRoot, 'fifo', rec.Id)),
      ]);
      await this.d.store.delete(rec);
    } catch (err) {
      // As the engine's SetRemovalError: the container is dead (never left "Removal In Progress"); a later remove retries.
      live.rootMounts = undefined; // (its snapshot may be gone)
      rec.State = { ...rec.State, Status: 'dead', Dead: true };
      await this.d.store.save(rec).catch(() => undefined);
      throw err;
    }
    this.d.live.delete(rec.Id);
    if (opts.volumes)
      for (const m of rec.MountPoints ?? []) if (m.Anonymous && m.Name && this.d.volumes.usersOf(m.Name).length === 0) await this.d.volumes.remove(m.Name, { force: true }).catch(() => undefined);
    for (const h of this.removeHooks) h(rec.Id);
    // As the reference: destroy comes after the run's network disconnects.
    await teardown?.catch(() => undefined);
    this.d.publish(rec, 'destroy');
  }
}
