// A container's filesystem as the engine exposes it: changes against its image (plus the init layer), export,
// path stat, archive out, extract in, and the old copy. A running container is reached through its own rootfs
// mount (bound for the operation); a stopped one through its snapshot, mounted read-only to read and read-write
// to write. Volumes, binds and the /etc/hosts, /etc/hostname, /etc/resolv.conf files are part of the view, as
// the engine mounts them for these operations; every path and symlink is resolved inside the container
// (fs/resolve.ts), never by the kernel from berth's root.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import { isGrpcNotFound } from '../containerd/errors';
import * as taskApi from '../containerd/tasks';
import { conflict, forbidden, invalidParameter, notFound, systemError } from '../errors';
import type { Logger } from '../log';
import { naiveChanges } from '../fs/changes';
import { extractTar } from '../fs/extract';
import { bindMount, findOverlayByUpper, mountReadOnly, mountSnapshot, unmount, unmountAllUnder } from '../fs/mounts';
import { packTree } from '../fs/pack';
import { baseName, containerAbs, FsProbe, mountOf, preserveTrailing, resolveForArchive, resolveInScope, Scope, ScopeMount } from '../fs/resolve';
import { ContainerPathStat, toPathStat } from '../translate/response/archive';
import { containerAttributes } from '../translate/response/events';
import { SNAPSHOTTER } from './images';
import { layerDirs, MountLike } from './rootfs';
import type { EventPublisher } from '../types/event';
import type { ContainerRecord } from '../types/container';
import type { Change } from '../types/archive';

export interface FilesystemServiceDeps {
  ctr: Containerd;
  find: (ref: string) => ContainerRecord;
  events: EventPublisher;
  logger: Logger;
  execRoot: string;
  /** The container's process exited and its exit is being recorded: the record still says running (see Live.exiting). */
  exiting: (id: string) => boolean;
  /** Resolves once the container's last exit is cleaned up (its task deleted: its root filesystem unmounted). */
  exitSettled: (id: string) => Promise<void>;
}

interface View {
  root: string;
  release: () => Promise<void>;
}

export const hostProbe: FsProbe = {
  lstat(p) {
    try {
      const st = fs.lstatSync(p);
      return st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'other';
    } catch {
      return undefined;
    }
  },
  readlink: (p) => fs.readlinkSync(p),
};

function lstatCode(p: string): { st?: fs.BigIntStats; code?: string } {
  try {
    return { st: fs.lstatSync(p, { bigint: true }) };
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code };
  }
}

export class FilesystemService {
  private readonly mountDir: string;
  /** Writes to one container are serialised (a stopped container's snapshot is mounted read-write once). */
  private readonly writeLocks = new Map<string, Promise<unknown>>();
  /** Containers frozen by archive operations under way, with how many. */
  private readonly frozen = new Map<string, { count: number; ready: Promise<void> }>();
  private readonly thawing = new Map<string, Promise<void>>();

  constructor(private readonly d: FilesystemServiceDeps) {
    this.mountDir = path.join(d.execRoot, 'fs');
  }

  /** Unmounts what a berth that died mid-operation left behind. */
  async init(): Promise<void> {
    fs.mkdirSync(this.mountDir, { recursive: true, mode: 0o700 });
    await unmountAllUnder(this.mountDir);
    for (const e of fs.readdirSync(this.mountDir)) fs.rmSync(path.join(this.mountDir, e), { recursive: true, force: true });
  }

  private publish(rec: ContainerRecord, action: string): void {
    this.d.events.publish('container', action, rec.Id, containerAttributes(rec));
  }

  private async snapshotMount(rec: ContainerRecord): Promise<MountLike> {
    const mounts = await snapshotApi.mounts(this.d.ctr, SNAPSHOTTER, rec.Id);
    if (!mounts[0]) throw systemError(`no root filesystem for container ${rec.Id}`);
    return mounts[0] as MountLike;
  }

  private async withTarget(rec: ContainerRecord, mount: (target: string) => Promise<void>): Promise<View> {
    const target = path.join(this.mountDir, `${rec.Id.slice(0, 12)}-${crypto.randomBytes(4).toString('hex')}`);
    fs.mkdirSync(target, { recursive: true, mode: 0o700 });
    try {
      await mount(target);
    } catch (err) {
      fs.rmSync(target, { recursive: true, force: true });
      throw systemError(`cannot mount the filesystem of container ${rec.Id}: ${(err as Error).message.trim()}`, err);
    }
    let released = false;
    return {
      root: target,
      release: async () => {
        if (released) return;
        released = true;
        await unmount(target);
        fs.rmSync(target, { recursive: true, force: true });
      },
    };
  }

  /**
   * Whether the container runs: its record says running and its exit is not being recorded. In that window (the
   * exit's output drained; the task stopped, maybe deleted) it is treated as stopped: nothing to freeze, and its
   * snapshot is mounted when its task's rootfs mount is gone.
   */
  private runs(rec: ContainerRecord): boolean {
    return rec.State.Running && !this.d.exiting(rec.Id);
  }

  /**
   * Where the container's rootfs overlay is mounted in berth's mount namespace: a running container's, or an
   * exiting one's until its task is deleted.
   */
  private liveRoot(rec: ContainerRecord, m: MountLike): string | undefined {
    if (!rec.State.Running) return undefined;
    const { upper } = layerDirs([m]);
    return upper ? findOverlayByUpper(upper) : undefined;
  }

  /**
   * The snapshot of a container that does not run, once its last task is deleted (its rootfs unmounted: the snapshot
   * is not mounted twice).
   */
  private async stoppedSnapshot(rec: ContainerRecord): Promise<MountLike> {
    await this.d.exitSettled(rec.Id);
    return this.snapshotMount(rec);
  }

  /**
   * The container's filesystem for reading: a running container's own rootfs mount (bound, so the container
   * can still unmount it when it stops), else a read-only overlay of its snapshot.
   */
  private async readView(rec: ContainerRecord): Promise<View> {
    const m = rec.State.Running ? await this.snapshotMount(rec) : await this.stoppedSnapshot(rec);
    const live = this.liveRoot(rec, m);
    if (live) return this.withTarget(rec, (t) => bindMount(live, t, true));
    return this.withTarget(rec, (t) => mountReadOnly(t, m));
  }

  /** The container's parent (image + init layer), read-only. */
  private async parentView(rec: ContainerRecord): Promise<View> {
    const m = await this.snapshotMount(rec);
    const { lower } = layerDirs([m]);
    return this.withTarget(rec, (t) => mountReadOnly(t, { type: 'overlay', source: 'overlay', options: [`lowerdir=${lower.join(':')}`] }));
  }

  /** The container's filesystem, writable: a running container's own rootfs mount, else its snapshot mounted. */
  private async writeView(rec: ContainerRecord): Promise<View> {
    const m = rec.State.Running ? await this.snapshotMount(rec) : await this.stoppedSnapshot(rec);
    const live = this.liveRoot(rec, m);
    if (live) return this.withTarget(rec, (t) => bindMount(live, t, false));
    // (a run that ended before its exit event arrived: its task is stopped or gone)
    if (this.runs(rec) && !(await this.taskEnded(rec.Id))) throw systemError(`cannot find the root filesystem mount of running container ${rec.Id}`);
    return this.withTarget(rec, (t) => mountSnapshot(t, m));
  }

  /**
   * Freezes a running container for an archive operation (as podman's cp does by default), so that its processes
   * cannot swap a directory for a symlink between berth resolving a path and using it. A container paused by its
   * user stays paused; concurrent operations share one freeze. Returns the thaw.
   */
  private async freeze(rec: ContainerRecord): Promise<() => Promise<void>> {
    if (!this.runs(rec) || rec.State.Paused) return async () => undefined;
    // A thaw under way finishes before a new freeze starts.
    for (let t = this.thawing.get(rec.Id); t; t = this.thawing.get(rec.Id)) await t;
    let f = this.frozen.get(rec.Id);
    if (f) f.count++;
    else {
      f = { count: 1, ready: taskApi.pause(this.d.ctr, rec.Id).then(() => undefined) };
      this.frozen.set(rec.Id, f);
    }
    const entry = f;
    const thaw = async () => {
      if (--entry.count > 0) return;
      this.frozen.delete(rec.Id);
      const thawing = (async () => {
        if (await entry.ready.then(() => true, () => false))
          await taskApi.resume(this.d.ctr, rec.Id).catch((err) => this.d.logger.warn('cannot resume container after an archive operation', { id: rec.Id, err: String(err) }));
      })();
      this.thawing.set(rec.Id, thawing);
      await thawing;
      if (this.thawing.get(rec.Id) === thawing) this.thawing.delete(rec.Id);
    };
    try {
      await entry.ready;
    } catch (err) {
      await thaw();
      // The run ended between the record's 'running' and the pause (before its exit event arrived): a stopped
      // container has nothing to freeze.
      if (await this.taskEnded(rec.Id)) return async () => undefined;
      throw systemError(`cannot pause container ${rec.Id}: ${(err as Error).message}`, err);
    }
    return thaw;
  }

  /** Whether the container's task has stopped or is gone. */
  private taskEnded(id: string): Promise<boolean> {
    return taskApi.status(this.d.ctr, id).then(
      (st) => st === 'STOPPED',
      (err) => isGrpcNotFound(err),
    );
  }

  /** A view of the container whose release also thaws it. */
  private async frozenView(rec: ContainerRecord, open: (rec: ContainerRecord) => Promise<View>): Promise<View> {
    const thaw = await this.freeze(rec);
    try {
      const v = await open(rec);
      return { root: v.root, release: () => v.release().finally(thaw) };
    } catch (err) {
      await thaw();
      throw err;
    }
  }

  private async serialised<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.writeLocks.get(id) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(fn);
    const tail = run.catch(() => undefined);
    this.writeLocks.set(id, tail);
    try {
      return await run;
    } finally {
      if (this.writeLocks.get(id) === tail) this.writeLocks.delete(id);
    }
  }

  /** Volumes, binds and the network files, as the engine mounts them for archive operations. */
  private scopeOf(rec: ContainerRecord, root: string): Scope {
    const mounts: ScopeMount[] = (rec.MountPoints ?? []).filter((m) => m.Type !== 'tmpfs').map((m) => ({ destination: containerAbs(m.Destination), source: m.Source, rw: m.RW }));
    const netFiles: [string, string][] = [
      ['/etc/resolv.conf', rec.ResolvConfPath],
      ['/etc/hostname', rec.HostnamePath],
      ['/etc/hosts', rec.HostsPath],
    ];
    for (const [dest, src] of netFiles) {
      if (!src || mounts.some((m) => m.destination === dest) || !fs.existsSync(src)) continue;
      mounts.push({ destination: dest, source: src, rw: !rec.HostConfig.ReadonlyRootfs });
    }
    return { root, mounts, probe: hostProbe };
  }

  /** The stream ends only once the view is released (unmounted, the container thawed), also when cut short. */
  private streamWithRelease(stream: Readable, view: View): Readable {
    const logger = this.d.logger;
    async function* guarded(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } finally {
        stream.destroy();
        await view.release().catch((err) => logger.warn('cannot release container filesystem', { err: String(err) }));
      }
    }
    return Readable.from(guarded());
  }

  // ---- changes, export --------------------------------------------------------------------------------------

  async containerChanges(ref: string): Promise<Change[]> {
    const rec = this.d.find(ref);
    const cur = await this.readView(rec);
    try {
      const parent = await this.parentView(rec);
      try {
        return naiveChanges(cur.root, parent.root);
      } finally {
        await parent.release();
      }
    } finally {
      await cur.release();
    }
  }

  async containerExport(ref: string): Promise<Readable> {
    const rec = this.d.find(ref);
    if (rec.State.Dead) throw conflict(`You cannot export container ${rec.Id} which is Dead`);
    if (rec.State.Status === 'removing') throw conflict(`You cannot export container ${rec.Id} which is being removed`);
    const view = await this.readView(rec);
    const stream = packTree({ root: view.root, mounts: [], probe: hostProbe }, { containerPath: '/', rebase: null });
    this.publish(rec, 'export');
    return this.streamWithRelease(stream, view);
  }

  // ---- archive ------------------------------------------------------------------------------------------------

  /** The engine's StatPath: the last element is not followed; a symlink reports where it leads in the container. */
  private statIn(scope: Scope, ref: string, userPath: string): { stat: ContainerPathStat; containerPath: string; rebase: string } {
    const { absPath, resolved, trailing } = resolveForArchive(scope, userPath);
    const { st, code } = lstatCode(resolved.hostPath);
    if (!st) {
      if (code === 'ENOTDIR' && trailing) throw invalidParameter(`lstat ${absPath}: not a directory`);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(`Could not find the file ${userPath} in container ${ref}`);
      throw systemError(`lstat ${absPath}: ${code}`);
    }
    if (trailing && (st.mode & 0o170000n) !== 0o040000n) throw invalidParameter(`lstat ${absPath}: not a directory`);
    let linkTarget = '';
    if ((st.mode & 0o170000n) === 0o120000n) linkTarget = resolveInScope(scope, resolved.containerPath).containerPath;
    const name = baseName(absPath);
    const stat = toPathStat({ name, size: Number(st.size), mode: Number(st.mode), mtimeNs: st.mtimeNs, linkTarget });
    return { stat, containerPath: resolved.containerPath, rebase: name === '/' ? '' : name };
  }

  async containerStatPath(ref: string, userPath: string): Promise<ContainerPathStat> {
    const rec = this.d.find(ref);
    const view = await this.frozenView(rec, (r) => this.readView(r));
    try {
      return this.statIn(this.scopeOf(rec, view.root), ref, userPath).stat;
    } finally {
      await view.release();
    }
  }

  async containerArchivePath(ref: string, userPath: string): Promise<{ stat: ContainerPathStat; stream: Readable }> {
    const rec = this.d.find(ref);
    const view = await this.frozenView(rec, (r) => this.readView(r));
    try {
      const scope = this.scopeOf(rec, view.root);
      const { stat, containerPath, rebase } = this.statIn(scope, ref, userPath);
      const stream = packTree(scope, { containerPath, rebase });
      this.publish(rec, 'archive-path');
      return { stat, stream: this.streamWithRelease(stream, view) };
    } catch (err) {
      await view.release();
      throw err;
    }
  }

  async containerExtractToDir(ref: string, userPath: string, noOverwriteDirNonDir: boolean, content: Readable): Promise<void> {
    const rec = this.d.find(ref);
    await this.serialised(rec.Id, async () => {
      const view = await this.frozenView(rec, (r) => this.writeView(r));
      try {
        const scope = this.scopeOf(rec, view.root);
        // The last element is followed too: extracting "to a symlink" extracts into the directory it names.
        const absPath = preserveTrailing(containerAbs(userPath), userPath);
        const resolved = resolveInScope(scope, absPath);
        const { st, code } = lstatCode(resolved.hostPath);
        if (!st) {
          if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(`Could not find the file ${userPath} in container ${ref}`);
          throw systemError(`lstat ${absPath}: ${code}`);
        }
        if ((st.mode & 0o170000n) !== 0o040000n) throw invalidParameter('extraction point is not a directory');
        const m = mountOf(scope.mounts, resolved.containerPath);
        if (m && !m.rw) throw forbidden('mounted volume is marked read-only');
        if (!m && rec.HostConfig.ReadonlyRootfs) throw forbidden('container rootfs is marked read-only');
        await extractTar(scope, resolved.containerPath, content, { noOverwriteDirNonDir, readonlyRootfs: !!rec.HostConfig.ReadonlyRootfs });
      } finally {
        await view.release();
      }
    });
    this.publish(rec, 'extract-to-dir');
  }

  // ---- copy (before 1.24) -------------------------------------------------------------------------------------

  /** The old copy: the resource is followed to the end and archived under its own (resolved) name. */
  async containerCopy(ref: string, resource: string): Promise<Readable> {
    const rec = this.d.find(ref);
    const view = await this.frozenView(rec, (r) => this.readView(r));
    try {
      const scope = this.scopeOf(rec, view.root);
      const resolved = resolveInScope(scope, resource);
      const { st, code } = lstatCode(resolved.hostPath);
      if (!st) {
        if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(`Could not find the file ${resource} in container ${ref}`);
        throw systemError(`stat ${resource}: ${code}`);
      }
      const base = baseName(resolved.containerPath);
      const stream = packTree(scope, { containerPath: resolved.containerPath, rebase: base === '/' ? '' : base });
      this.publish(rec, 'copy');
      return this.streamWithRelease(stream, view);
    } catch (err) {
      await view.release();
      throw err;
    }
  }
}
