// What a container is made of: create (image-config merge, name, the init layer and rw snapshot under a lease,
// mounts and anonymous volumes, the OCI spec), a HostConfig replaced at start (API < 1.24), live resource updates,
// and the link environment refreshed at each start. Multi-step work registers undo steps, run in reverse on failure.
import { randomName } from '../translate/names';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import * as containerApi from '../containerd/containers';
import * as taskApi from '../containerd/tasks';
import { withLease } from '../containerd/leases';
import { TASK_RUNTIME_DIR } from '../containerd/state-dir';
import { setLabels } from '../containerd/content';
import { isGrpcAlreadyExists, isGrpcNotFound } from '../containerd/errors';
import { conflict, invalidParameter, isKind, notFound, systemError, StartRefusal } from '../errors';
export { StartRefusal } from '../errors';
import { now } from '../runtime/clock';
import { ContainerStore, newState } from '../store/containers';
import { createNetns, deleteNetns, netnsPath } from '../network/sandbox';
import { isUserDefinedMode, ownsNetns, parseLink } from './container-network';
import { adaptResources, CgroupSupport, CreateRequest, mergeImageConfig, parseBind, RUNTIME_V1, validateMounts, validateName } from '../translate/request/create';
import { generateSpec } from '../translate/spec';
import { rfc3339Nano } from '../translate/time';
import type { HostConfig, OciDevice, OciMount } from '../types/config';
import type { ContainerRecord, MountPoint } from '../types/container';
import type { ResolvedImage } from '../types/image';
import { SNAPSHOTTER } from './images';
import { layerDirs, layeredProbe, MountLike, readLayered, resolveUser, type ResolvedUser } from './rootfs';
import { contentSize } from '../fs/usage';
import { findOverlayByUpper, isOverlayMountPoint, mountOf, mountSnapshot, unmount } from '../fs/mounts';
import { cleanPath, resolveInScope } from '../fs/resolve';
import type { ContainerServiceDeps } from './containers';

const execFileP = promisify(execFile);

const blkioLists = (hc: HostConfig) => [hc.BlkioWeightDevice, hc.BlkioDeviceReadBps, hc.BlkioDeviceWriteBps, hc.BlkioDeviceReadIOps, hc.BlkioDeviceWriteIOps] as ({ Path: string }[] | null | undefined)[];

/**
 * major:minor of the paths the Blkio*Device lists name, from their stat's rdev as the engine takes it (whatever the
 * file is: the kernel refuses a device that is no block device when the runtime writes it). A path that is missing is
 * left out (0:0): the start refuses it (specAtStart).
 */
export function blockDevicesOf(hc: HostConfig): Record<string, { major: number; minor: number }> {
  const out: Record<string, { major: number; minor: number }> = {};
  for (const l of blkioLists(hc))
    for (const d of l ?? []) {
      if (out[d.Path]) continue;
      let st: fs.Stats;
      try {
        st = fs.statSync(d.Path);
      } catch {
        continue;
      }
      const rdev = BigInt(st.rdev);
      out[d.Path] = { major: Number((rdev >> 8n) & 0xfffn), minor: Number((rdev & 0xffn) | ((rdev >> 12n) & 0xfff00n)) };
    }
  return out;
}


const statMessage = (err: unknown): string => STAT_ERRORS[(err as NodeJS.ErrnoException).code ?? ''] ?? (err as Error).message;

/** HostConfig.Devices as the runtime spec lists them; a path missing now is left out (the start refuses it). */
function devicesOf(hc: HostConfig): (OciDevice & { permissions: string })[] {
  const out: (OciDevice & { permissions: string })[] = [];
  for (const d of hc.Devices ?? []) {
    let st: fs.Stats;
    try {
      st = fs.statSync(d.PathOnHost);
    } catch {
      continue;
    }
    const major = Number((BigInt(st.rdev) >> 8n) & 0xfffn);
    const minor = Number((BigInt(st.rdev) & 0xffn) | ((BigInt(st.rdev) >> 12n) & 0xfff00n));
    out.push({ path: d.PathInContainer || d.PathOnHost, type: st.isBlockDevice() ? 'b' : 'c', major, minor, fileMode: st.mode & 0o777, uid: 0, gid: 0, permissions: d.CgroupPermissions || 'rwm' });
  }
  return out;
}

const STAT_ERRORS: Record<string, string> = { ENOENT: 'no such file or directory', ENOTDIR: 'not a directory', EACCES: 'permission denied', ELOOP: 'too many levels of symbolic links', ENAMETOOLONG: 'file name too long' };

const SECCOMP_AVAILABLE = (() => {
  try {
    return /Seccomp:\s+\d/.test(fs.readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return false;
  }
})();

/**
 * The engine's merge of the daemon's log configuration: no driver means the daemon's; when the driver is the daemon's,
 * each daemon option the container does not set is added.
 */
export function withDaemonLogDefaults(lc: { Type?: string; Config?: Record<string, string> | null } | undefined, daemon: { Type: string; Config: Record<string, string> }): { Type: string; Config: Record<string, string> } {
  const type = lc?.Type || daemon.Type;
  const config: Record<string, string> = { ...(lc?.Config ?? {}) };
  if (type === daemon.Type) for (const [k, v] of Object.entries(daemon.Config)) if (!Object.hasOwn(config, k)) config[k] = v;
  return { Type: type, Config: config };
}

/**
 * A plugin volume's mount failed, or a bind asks a propagation its source's mount cannot give: the start fails with
 * the engine's message (500), the container stays created with exit code 128.
 */
export class VolumeMountError extends Error {}

/** A start whose user or group is not in the container's files: the engine's message, exit code 128, no die. */
export class UserLookupError extends Error {}

/** Whether the kernel has per-cgroup blkio weights (cgroup v1 blkio.weight or v2 io.weight / io.bfq.weight). */
function blkioWeightSupported(): boolean {
  return ['/sys/fs/cgroup/blkio/blkio.weight', '/sys/fs/cgroup/io.weight', '/sys/fs/cgroup/io.bfq.weight'].some((f) => fs.existsSync(f));
}

let cgroupSupportSeen: CgroupSupport | undefined;
/**
 * What the host's cgroups offer, found as the engine's sysinfo finds it (once: the host's cgroups do not change under
 * a daemon): cgroup v1 by the memory and blkio controllers' files; cgroup v2 has no kernel memory, swappiness or OOM
 * killer switch.
 */
export function cgroupSupport(): CgroupSupport {
  if (cgroupSupportSeen) return cgroupSupportSeen;
  const has = (f: string) => fs.existsSync(path.join('/sys/fs/cgroup', f));
  const v2 = has('cgroup.controllers');
  const weight = blkioWeightSupported();
  cgroupSupportSeen = v2
    ? { swapLimit: true, memorySwappiness: false, kernelMemory: false, oomKillDisable: false, blkioWeight: weight, blkioWeightDevice: weight }
    : {
        swapLimit: has('memory/memory.memsw.limit_in_bytes'),
        memorySwappiness: has('memory/memory.swappiness'),
        kernelMemory: has('memory/memory.kmem.limit_in_bytes'),
        oomKillDisable: has('memory/memory.oom_control'),
        blkioWeight: weight,
        blkioWeightDevice: has('blkio/blkio.weight_device'),
      };
  return cgroupSupportSeen;
}

export class ContainerConfigurator {
  private readonly passwdCache = new Map<string, { passwd?: string; group?: string }>();

  constructor(
    private readonly d: ContainerServiceDeps,
    private readonly publish: (rec: ContainerRecord, action: string, extra?: Record<string, string>) => void,
    /** The container's rw snapshot's mounts (asked of containerd once per container). */
    private readonly snapshotMounts: (id: string) => Promise<snapshotApi.SnapshotMount[]>,
  ) {}

  private get ctr(): Containerd {
    return this.d.ctr;
  }

  /** A legacy link as the engine records it, `/target:/name/alias`; its target must exist (it need not run yet). */
  private normaliseLink(link: string, name: string): string {
    const [target, alias] = parseLink(link);
    const t = this.d.store.tryFind(target);
    if (!t) throw invalidParameter(`could not get container for ${target}: No such container: ${target}`);
    return `${t.Name}:${name}/${alias}`;
  }

  /** Also returns the rw snapshot's mounts (what the first start hands to Tasks.Create, without asking again). */
  async create(req: CreateRequest, name: string | undefined): Promise<{ id: string; warnings: string[]; mounts: snapshotApi.SnapshotMount[]; netns?: Promise<unknown> }> {
    if (name) validateName(name);
    // the engine's host-dependent resource checks come before the image is looked up; what they discard is not stored
    validateMounts(req.hostConfig.Mounts, req.hostConfig.Binds, (p) => fs.existsSync(p));
    const adapted = adaptResources(req.hostConfig, cgroupSupport());
    req = { ...req, hostConfig: adapted.hostConfig };
    const img = await this.d.images.resolve(req.config.Image ?? '');
    const config = mergeImageConfig(req.config, img.config.config);
    if ((!config.Cmd || config.Cmd.length === 0) && (!config.Entrypoint || config.Entrypoint.length === 0)) throw invalidParameter('No command specified');
    const id = ContainerStore.newId();
    const finalName = name ? (name.startsWith('/') ? name : `/${name}`) : `/${this.generateName()}`;
    this.d.store.reserveName(finalName, id);
    const undo: (() => Promise<unknown>)[] = [async () => this.d.store.releaseName(finalName, id)];
    // Once the record is made, a failure is announced as the engine's cleanup announces it: a `destroy` (no create
    // came before it), e.g. for a WorkingDir that is a file or a mount that cannot be made.
    let made: ContainerRecord | undefined;
    try {
      const dir = this.d.store.dir(id);
      // (at once: one mkdir, not a thread-pool round trip on every create's path)
      fs.mkdirSync(dir, { recursive: true });
      undo.push(() => fs.promises.rm(dir, { recursive: true, force: true }));
      // A network namespace of its own is made now, in the background (an `ip` process): the start that usually
      // follows at once finds it ready instead of waiting for it before runc can create the task. (After the
      // folder: a create killed from here on leaves a folder without a record, whose netns goes with it at the next
      // start; a failed create deletes it; a removal deletes it; a start makes it again when it is gone.)
      const netns = ownsNetns(req.hostConfig.NetworkMode) ? createNetns(id).catch(() => undefined) : undefined;
      if (netns) undo.push(() => netns.then(() => deleteNetns(id)));
      const hostname = config.Hostname || (req.hostConfig.NetworkMode === 'host' ? os.hostname() : id.slice(0, 12));
      config.Hostname = hostname;
      config.Image = req.config.Image;
      if (config.WorkingDir) config.WorkingDir = cleanPath(config.WorkingDir);
      const hc = { ...req.hostConfig };
      hc.LogConfig = withDaemonLogDefaults(hc.LogConfig, this.d.logDefaults ?? { Type: 'json-file', Config: {} });
      // The daemon's default-ulimits for the names the request does not give (the engine merges them the same way
      // into what inspect shows and what the container runs with; it merges at inspect and start, berth at create).
      const ulimits = [...(hc.Ulimits ?? []), ...(this.d.defaultUlimits ?? []).filter((d) => !hc.Ulimits?.some((u) => u.Name === d.Name))];
      if (ulimits.length) hc.Ulimits = ulimits;
      if (!hc.RestartPolicy) hc.RestartPolicy = { Name: 'no', MaximumRetryCount: 0 };
      // The engine's default swap limit, recorded at create: twice the memory limit.
      if (hc.Memory && hc.Memory > 0 && !hc.MemorySwap) hc.MemorySwap = hc.Memory * 2;
      if (hc.NetworkMode === 'default') hc.NetworkMode = 'default';
      // Legacy links belong to the default bridge: on a user-defined network the engine drops them (names resolve
      // there through the network; `docker-compose run` sends them, for targets that need not run).
      if (isUserDefinedMode(hc.NetworkMode)) hc.Links = null;
      else if (hc.Links?.length) hc.Links = hc.Links.map((l) => this.normaliseLink(l, finalName));
      const argv = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
      const rec: ContainerRecord = {
        Id: id,
        Name: finalName,
        Created: rfc3339Nano(now()),
        Path: argv[0],
        Args: argv.slice(1),
        Config: config,
        HostConfig: hc,
        NetworkingConfig: req.networkingConfig,
        Image: img.id,
        ImageName: req.config.Image ?? '',
        State: newState(),
        RestartCount: 0,
        LogPath: hc.LogConfig.Type === 'none' ? '' : path.join(dir, `${id}-json.log`),
        ResolvConfPath: path.join(dir, 'resolv.conf'),
        HostnamePath: path.join(dir, 'hostname'),
        HostsPath: path.join(dir, 'hosts'),
        Driver: SNAPSHOTTER,
        HasBeenManuallyStopped: false,
      };
      rec.Networks = this.d.networking.initialNetworks(hc, req.networkingConfig.EndpointsConfig);
      made = rec;
      // The rw snapshot is prepared while the etc files are written (after the folder: a create killed from here
      // on leaves a folder without a record, and the next start removes its snapshot with it).
      const rootfs = this.prepareRootfs(id, img.chainId, img.id);
      rootfs.catch(() => undefined); // awaited below, or by the undo
      undo.push(() => rootfs.then(() => snapshotApi.remove(this.ctr, SNAPSHOTTER, id), () => undefined));
      // The container record with its spec, in one call. The spec needs the image's layer directories only for the
      // image's volumes (their content is copied into new volumes) and for its /etc/passwd and /etc/group (read once
      // per image): without either, containerd's container is made while the rw snapshot is prepared and the etc
      // files are written (when no named volume is to be made either: a WorkingDir refused below comes before any
      // volume, as it did).
      // (`rootfsLower` adds the init layer: a new volume is filled from the container's root filesystem as the engine
      // fills it, with the init layer's mount points, which a read-only volume at /etc needs under the etc binds)
      const container = async (lower: string[], rootfsLower: string[]) => {
        rec.MountPoints = await this.resolveMounts(rec, rootfsLower, undo);
        const spec = await this.buildSpec(rec, img, lower);
        await containerApi.create(this.ctr, { id, image: img.names[0] ?? img.id, labels: { 'berth.name': finalName, 'berth.image': img.id }, snapshotter: SNAPSHOTTER, snapshotKey: id, spec, runtime: hc.Runtime === RUNTIME_V1 ? RUNTIME_V1 : undefined, systemdCgroup: this.d.systemdCgroup });
      };
      const early = !Object.keys(config.Volumes ?? {}).length && this.passwdCache.has(img.chainId) && !(hc.Binds ?? []).some((b) => parseBind(b).named) && !(hc.Mounts ?? []).some((m) => m.Type === 'volume') ? container([], []) : undefined;
      if (early) {
        early.catch(() => undefined); // awaited below, or by the undo
        undo.push(() => early.then(() => containerApi.remove(this.ctr, id), () => undefined));
      }
      await this.d.networking.writeEtcFiles(rec);
      const [mounts] = await Promise.all([rootfs, early]);
      await this.setupWorkingDir(id, config.WorkingDir, mounts);
      if (!early) {
        // the image's layers (the init layer is the top one below the rw directory)
        const lower = layerDirs(mounts).lower;
        await container(lower.slice(1), lower);
        undo.push(() => containerApi.remove(this.ctr, id));
      }
      await this.d.store.save(rec);
      this.publish(rec, 'create');
      return { id, warnings: adapted.warnings, mounts, netns };
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      if (made) this.publish(made, 'destroy');
      throw err;
    }
  }

  /**
   * The working directory, made at create in the container's own layer as the engine makes it (missing parts
   * 0755, root's): one that is a file in the image or the init layer, itself or through a symlink, refuses the
   * create with the engine's message (the engine answers 500, berth 400; a part below a file is the engine's lstat
   * message with the container's path, not the host's, as for a NUL or an over-long name). The layers are read without a mount; the snapshot is
   * mounted only when something is to be made.
   */
  private async setupWorkingDir(id: string, wd: string | undefined, mounts: snapshotApi.SnapshotMount[]): Promise<void> {
    if (!wd || wd === '/' || !mounts[0]) return;
    // paths the kernel refuses: the reference's lstat fails (500, naming its host path); berth says 400 first
    if (wd.includes('\0')) throw invalidParameter(`lstat ${wd}: invalid argument`);
    if (Buffer.byteLength(wd) >= 4096 || wd.split('/').some((p) => Buffer.byteLength(p) > 255)) throw invalidParameter(`lstat ${wd}: file name too long`);
    const dirs = layerDirs(mounts as MountLike[]);
    const probe = layeredProbe([...(dirs.upper ? [dirs.upper] : []), ...dirs.lower]);
    const target = resolveInScope({ root: '/', mounts: [], probe }, wd).containerPath;
    const parts = target.split('/').filter(Boolean);
    let missing = false;
    for (let i = 1; i <= parts.length && !missing; i++) {
      const kind = probe.lstat(`/${parts.slice(0, i).join('/')}`);
      if (kind === undefined) missing = true;
      else if (kind !== 'dir') throw invalidParameter(i === parts.length ? `Cannot mkdir: ${wd} is not a directory` : `lstat ${wd}: not a directory`);
    }
    if (!missing) return;
    const mnt = path.join(this.d.execRoot, 'fs', `${id.slice(0, 12)}-wd-${crypto.randomBytes(4).toString('hex')}`);
    await fs.promises.mkdir(mnt, { recursive: true, mode: 0o700 });
    try {
      await mountSnapshot(mnt, mounts[0] as MountLike);
      try {
        await fs.promises.mkdir(path.join(mnt, target), { recursive: true, mode: 0o755 });
      } finally {
        await unmount(mnt);
      }
    } finally {
      await fs.promises.rm(mnt, { recursive: true, force: true });
    }
  }

  private generateName(): string {
    return randomName((n) => this.d.store.hasName(n), Math.random);
  }

  /**
   * The container's rw snapshot `id` on its image's init layer; returns its mounts. The init layer (the mount points
   * of /etc/hosts, /etc/hostname, /etc/resolv.conf, /dev, /dev/console, /proc, /sys, .dockerenv and the /etc/mtab
   * link, so that they never show as the
   * container's own changes) is the same for every container of an image: it is made once per image (the engine makes
   * one per container) and shared. The rw snapshot is a GC root from the start (nothing else references it until
   * the container record does; it is removed explicitly with the container, or with the folder of a create cut
   * short); the shared layer is kept by its children and by a GC reference from the image's config blob, so it
   * outlives the image's last container and is collected by containerd's GC with the image (made again by the next
   * create that finds it gone).
   */
  private async prepareRootfs(id: string, chainId: string, imageId: string): Promise<snapshotApi.SnapshotMount[]> {
    // (berth-init2: the layer with dev/console and etc/mtab; earlier ones stay under their containers until removed)
    const init = `berth-init2/${chainId || 'scratch'}`;
    const rw = (lease?: string) => snapshotApi.prepare(this.ctr, SNAPSHOTTER, id, init, { lease, labels: { [snapshotApi.GC_ROOT]: 'berth' } });
    try {
      return await rw();
    } catch (err) {
      if (!isGrpcNotFound(err)) throw err;
    }
    // Under a lease until the rw snapshot references the new layer; two creates racing both make one, the second
    // commit finds the first's.
    return withLease(this.ctr, 'berth-init', async (lease) => {
      const key = `${init}-key-${crypto.randomBytes(6).toString('hex')}`;
      const prep = await snapshotApi.prepare(this.ctr, SNAPSHOTTER, key, chainId, { lease });
      try {
        const upper = layerDirs(prep).upper;
        if (!upper) throw systemError('cannot find the init layer directory');
        await this.populateInitLayer(upper);
        await snapshotApi.commit(this.ctr, SNAPSHOTTER, init, key, { lease });
      } catch (err) {
        await snapshotApi.remove(this.ctr, SNAPSHOTTER, key).catch(() => undefined);
        if (!isGrpcAlreadyExists(err)) throw err;
      }
      // The image's config blob references the layer (a GC label), so it stays while the image does, also between
      // containers (`docker run --rm` one after another would make it each time); it goes with the image.
      const [mounts] = await Promise.all([rw(lease), setLabels(this.ctr, imageId, { [`containerd.io/gc.ref.snapshot.${SNAPSHOTTER}/berth-init`]: init }, { lease }).catch(() => undefined)]);
      return mounts;
    });
  }

  private async populateInitLayer(upper: string): Promise<void> {
    const dir = (d: string) => fs.promises.mkdir(path.join(upper, d), { mode: 0o755 });
    const file = (f: string) => fs.promises.writeFile(path.join(upper, f), '', { mode: 0o755 });
    // the upper directory is new and empty: each level once, the independent ones at the same time
    // (as the engine's init layer: /dev/console a mount point for a TTY's console, /etc/mtab a link to /proc/mounts)
    const link = (target: string, f: string) => fs.promises.symlink(target, path.join(upper, f));
    await Promise.all([
      dir('proc'),
      dir('sys'),
      file('.dockerenv'),
      dir('dev').then(() => Promise.all([dir('dev/pts'), dir('dev/shm'), file('dev/console')])),
      dir('etc').then(() => Promise.all([file('etc/hosts'), file('etc/hostname'), file('etc/resolv.conf'), link('/proc/mounts', 'etc/mtab')])),
    ]);
  }

  private async buildSpec(rec: ContainerRecord, img: ResolvedImage, lowerDirs: string[]) {
    const hc = rec.HostConfig;
    let files = this.passwdCache.get(img.chainId);
    if (!files) {
      files = { passwd: readLayered(lowerDirs, '/etc/passwd'), group: readLayered(lowerDirs, '/etc/group') };
      this.passwdCache.set(img.chainId, files);
    }
    // As the engine, a user or group the image does not know is no error at create: start looks it up in the
    // container's own files (applyUser) and fails there. Until then the spec runs as root.
    let user: ResolvedUser;
    try {
      user = resolveUser(rec.Config.User ?? '', files.passwd, files.group, hc.GroupAdd ?? []);
    } catch {
      user = { uid: 0, gid: 0, additionalGids: [] };
    }
    const bind = (src: string, dst: string, ro = false): OciMount => ({ destination: dst, type: 'bind', source: src, options: ['rbind', 'rprivate', ...(ro ? ['ro'] : [])] });
    const mounts: OciMount[] = [];
    mounts.push(bind(rec.ResolvConfPath, '/etc/resolv.conf'), bind(rec.HostnamePath, '/etc/hostname'), bind(rec.HostsPath, '/etc/hosts'));
    for (const m of rec.MountPoints ?? []) {
      // a missing bind source is made a directory, as the engine makes it; a file (or anything else) is bound as it is
      if (m.Type === 'bind' && !fs.existsSync(m.Source)) await fs.promises.mkdir(m.Source, { recursive: true });
      if (m.Type === 'tmpfs') {
        // --mount type=tmpfs: the engine's options (nosuid, nodev, noexec) and TmpfsOptions' size and mode
        const t = (hc.Mounts ?? []).find((x) => x.Type === 'tmpfs' && (x.Target ?? '').replace(/\/+$/, '') === m.Destination)?.TmpfsOptions;
        const extra = [...(t?.SizeBytes ? [`size=${t.SizeBytes}`] : []), ...(t?.Mode ? [`mode=${t.Mode.toString(8)}`] : [])];
        mounts.push({ destination: m.Destination, type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'noexec', ...extra] });
        continue;
      }
      mounts.push({ destination: m.Destination, type: 'bind', source: m.Source, options: ['rbind', m.Propagation || 'rprivate', ...(m.RW ? [] : ['ro'])] });
    }
    // (the devices and the containers whose namespaces are joined are looked up again at each start: specAtStart)
    const devices = devicesOf(hc);
    // as the engine's create: a pid or ipc namespace's container must exist (400), it need not run; a network one is
    // looked up at start only
    const pidNs = hc.PidMode?.startsWith('container:') ? this.nsPathAtCreate(hc.PidMode.slice(10), 'pid') : undefined;
    const ipcNs = hc.IpcMode?.startsWith('container:') ? this.nsPathAtCreate(hc.IpcMode.slice(10), 'ipc') : undefined;
    const nm = hc.NetworkMode || 'default';
    let netNs: string | undefined;
    if (nm.startsWith('container:')) netNs = this.d.store.get(nm.slice(10)) ? this.nsPathAtCreate(nm.slice(10), 'net') : undefined;
    else if (ownsNetns(nm)) netNs = netnsPath(rec.Id);
    // none: a fresh namespace from runc, which brings up its loopback itself
    return generateSpec({
      id: rec.Id,
      config: rec.Config,
      hostConfig: hc,
      user,
      cgroupParent: this.d.cgroupParent,
      systemdCgroup: this.d.systemdCgroup,
      mounts,
      netnsPath: netNs,
      pidNsPath: pidNs,
      ipcNsPath: ipcNs,
      hostname: rec.Config.Hostname ?? rec.Id.slice(0, 12),
      seccompAvailable: SECCOMP_AVAILABLE,
      devices,
      blockDevices: blockDevicesOf(hc),
    });
  }

  /**
   * The user and groups, looked up at each start in the container's files (its own layer over the image's), as the
   * engine looks them up: an unknown name fails the start (UserLookupError, the engine's message), a passwd or group
   * file changed in the container since create is used.
   */
  async applyUser(rec: ContainerRecord, rootfs: MountLike[]): Promise<void> {
    const hc = rec.HostConfig;
    if (!rec.Config.User && !(hc.GroupAdd ?? []).length) return;
    const dirs = layerDirs(rootfs);
    const all = [...(dirs.upper ? [dirs.upper] : []), ...dirs.lower];
    let user: ResolvedUser;
    try {
      user = resolveUser(rec.Config.User ?? '', readLayered(all, '/etc/passwd'), readLayered(all, '/etc/group'), hc.GroupAdd ?? []);
    } catch (err) {
      throw new UserLookupError((err as Error).message);
    }
    const spec = await containerApi.spec(this.ctr, rec.Id);
    if (!spec) return;
    const now = spec.process.user as Partial<ResolvedUser>;
    if (now.uid === user.uid && now.gid === user.gid && JSON.stringify(now.additionalGids ?? []) === JSON.stringify(user.additionalGids)) return;
    spec.process.user = { uid: user.uid, gid: user.gid, additionalGids: user.additionalGids };
    await containerApi.setSpec(this.ctr, rec.Id, spec);
  }

  /** Legacy links: their environment goes into the process spec at each start (targets' addresses change). */
  async applyLinks(rec: ContainerRecord): Promise<void> {
    const prev = rec.LinkEnv ?? [];
    const { env } = rec.HostConfig.Links?.length ? this.d.networking.linked(rec) : { env: [] as string[] };
    if (prev.length === 0 && env.length === 0) return;
    const spec = await containerApi.spec(this.ctr, rec.Id);
    if (!spec) return;
    const drop = new Set(prev);
    spec.process.env = [...(spec.process.env ?? []).filter((e: string) => !drop.has(e)), ...env];
    await containerApi.setSpec(this.ctr, rec.Id, spec);
    rec.LinkEnv = env;
  }

  /** Binds (host paths and, from 1.22, volume names), VolumesFrom, and anonymous volumes for Config.Volumes. */
  /**
   * Mounts the container's plugin volumes (VolumeDriver.Mount, one fresh id per mount point, recorded before the
   * call so that a restarted berth unmounts what it mounted) and points the runtime spec's binds at the paths the
   * drivers return. A failure unmounts what was mounted and throws a VolumeMountError with the engine's message.
   */
  /**
   * What the engine decides when it makes the runtime spec at each start, which create only named: the containers
   * whose namespaces are joined (their namespaces of now, or the start refused in the engine's words: a network
   * one's missing container 404, stopped 409; a pid or ipc one's stopped 409 where the engine answers 500), the
   * devices (a path missing now refuses it: 400 where the engine answers 500) and the Blkio*Device paths (likewise,
   * `stat P: ...`). The runtime spec is given what changed since create. Refusals are StartRefusals.
   */
  async specAtStart(rec: ContainerRecord): Promise<void> {
    const hc = rec.HostConfig;
    const joins: { type: 'network' | 'pid' | 'ipc'; ref: string }[] = [];
    const nm = hc.NetworkMode || 'default';
    if (nm.startsWith('container:')) joins.push({ type: 'network', ref: nm.slice(10) });
    if (hc.PidMode?.startsWith('container:')) joins.push({ type: 'pid', ref: hc.PidMode.slice(10) });
    if (hc.IpcMode?.startsWith('container:')) joins.push({ type: 'ipc', ref: hc.IpcMode.slice(10) });
    const lists = blkioLists(hc);
    const blkio = lists.some((l) => l?.length);
    if (!joins.length && !hc.Devices?.length && !blkio) return;
    const paths: Partial<Record<'network' | 'pid' | 'ipc', string>> = {};
    for (const j of joins) {
      let other: ContainerRecord;
      try {
        other = this.d.store.find(j.ref);
      } catch (err) {
        throw isKind(err, 'NotFound') ? new StartRefusal(notFound(`No such container: ${j.ref}`)) : err;
      }
      if (!other.State.Running) {
        const id = other.Id;
        const why = j.type === 'network' ? `cannot join network of a non running container: ${id}` : j.type === 'ipc' ? `can't join IPC of container ${id}: container ${id} is not running` : `container ${id} is not running`;
        throw new StartRefusal(conflict(why));
      }
      paths[j.type] = `/proc/${other.State.Pid}/ns/${j.type === 'network' ? 'net' : j.type}`;
    }
    for (const d of hc.Devices ?? []) {
      try {
        fs.statSync(d.PathOnHost);
      } catch (err) {
        throw new StartRefusal(invalidParameter(`error gathering device information while adding custom device "${d.PathOnHost}": ${statMessage(err)}`));
      }
    }
    for (const l of lists)
      for (const d of l ?? []) {
        try {
          fs.statSync(d.Path);
        } catch (err) {
          throw new StartRefusal(invalidParameter(`stat ${d.Path}: ${statMessage(err)}`));
        }
      }
    const spec = await containerApi.spec(this.ctr, rec.Id);
    if (!spec) return;
    const before = JSON.stringify(spec.linux);
    for (const ns of spec.linux.namespaces) {
      const p = paths[ns.type as 'network' | 'pid' | 'ipc'];
      if (p) ns.path = p;
    }
    const fresh = generateSpec({ id: rec.Id, config: rec.Config, hostConfig: hc, user: spec.process.user as never, cgroupParent: this.d.cgroupParent, systemdCgroup: this.d.systemdCgroup, mounts: [], hostname: '', seccompAvailable: false, devices: devicesOf(hc), blockDevices: blockDevicesOf(hc) });
    spec.linux.resources.blockIO = fresh.linux.resources.blockIO;
    spec.linux.resources.devices = fresh.linux.resources.devices;
    if (fresh.linux.devices) spec.linux.devices = fresh.linux.devices;
    else delete spec.linux.devices;
    if (JSON.stringify(spec.linux) !== before) await containerApi.setSpec(this.ctr, rec.Id, spec);
  }

  /**
   * As the engine's start: a shared bind needs its source on a shared mount, a slave one on a shared or slave mount
   * (a private source has no peer group to follow). A source that is gone is left to the runtime.
   */
  checkBindPropagation(rec: ContainerRecord): void {
    for (const m of rec.MountPoints ?? []) {
      if (m.Type !== 'bind') continue;
      const shared = m.Propagation === 'shared' || m.Propagation === 'rshared';
      if (!shared && m.Propagation !== 'slave' && m.Propagation !== 'rslave') continue;
      let on: ReturnType<typeof mountOf>;
      try {
        on = mountOf(m.Source);
      } catch {
        continue;
      }
      if (shared && !on.shared) throw new VolumeMountError(`path ${m.Source} is mounted on ${on.mountPoint} but it is not a shared mount`);
      if (!on.shared && !on.slave) throw new VolumeMountError(`path ${m.Source} is mounted on ${on.mountPoint} but it is not a shared or slave mount`);
    }
  }

  async mountPluginVolumes(rec: ContainerRecord): Promise<void> {
    const mps = (rec.MountPoints ?? []).filter((m) => m.Type === 'volume' && m.Name && m.Driver && m.Driver !== 'local');
    if (mps.length === 0) return;
    for (const m of mps) m.ID = crypto.randomBytes(32).toString('hex');
    await this.d.store.save(rec);
    try {
      for (const m of mps) {
        try {
          m.Source = await this.d.volumes.mount(m.Name!, m.ID!);
        } catch (err) {
          m.ID = undefined;
          throw new VolumeMountError((err as Error).message);
        }
      }
      const spec = await containerApi.spec(this.ctr, rec.Id);
      if (spec) {
        for (const om of spec.mounts ?? []) {
          const m = mps.find((x) => x.Destination === om.destination);
          if (m) om.source = m.Source;
        }
        await containerApi.setSpec(this.ctr, rec.Id, spec);
      }
      await this.d.store.save(rec);
    } catch (err) {
      await this.unmountPluginVolumes(rec);
      throw err;
    }
  }

  /** VolumeDriver.Unmount for every plugin volume mounted for the container (after its exit or a failed start). */
  async unmountPluginVolumes(rec: ContainerRecord): Promise<void> {
    const mps = (rec.MountPoints ?? []).filter((m) => m.ID);
    if (mps.length === 0) return;
    for (const m of mps) {
      try {
        await this.d.volumes.unmount(m.Name!, m.ID!);
        m.ID = undefined;
      } catch (err) {
        this.d.logger.warn('cannot unmount volume', { id: rec.Id, volume: m.Name, err: String(err) });
      }
    }
    await this.d.store.save(rec).catch(() => undefined);
  }

  private async resolveMounts(rec: ContainerRecord, lowerDirs: string[], undo: (() => Promise<unknown>)[]): Promise<MountPoint[]> {
    const hc = rec.HostConfig;
    const out: MountPoint[] = [];
    const taken = new Set<string>();
    const clean = (d: string) => d.replace(/\/+$/, '') || '/';
    for (const b of hc.Binds ?? []) {
      const p = parseBind(b);
      const flags = p.mode.split(',').filter(Boolean);
      const rw = !flags.includes('ro');
      const prop = flags.find((f) => /^r?(shared|slave|private)$/.test(f)) ?? '';
      if (p.named) {
        const existed = this.d.volumes.has(p.source);
        // an existing volume is used with whichever driver has it; a new one is made by --volume-driver's
        const v = existed && !hc.VolumeDriver ? this.d.volumes.reuse(p.source) : await this.d.volumes.create(p.source, hc.VolumeDriver || 'local', null, null);
        if (!existed) undo.push(() => this.d.volumes.remove(v.Name, { force: true }));
        // A named volume given without a mode shows Mode "z", as the reference's does.
        out.push({ Type: 'volume', Name: v.Name, Source: v.Mountpoint, Destination: clean(p.destination), Driver: v.Driver, Mode: p.mode || 'z', RW: rw, Propagation: '' });
      } else out.push({ Type: 'bind', Source: p.source, Destination: clean(p.destination), Mode: p.mode, RW: rw, Propagation: prop || 'rprivate' });
      taken.add(clean(p.destination));
    }
    // HostConfig.Mounts (--mount), as the reference makes them: a bind as given (Mode "", rprivate unless set), a
    // volume named or anonymous (Mode "z"; Labels and DriverConfig for one it makes; NoCopy leaves the image's
    // content out), a tmpfs (no Source)
    for (const m of hc.Mounts ?? []) {
      const d = clean(m.Target ?? '');
      const rw = !m.ReadOnly;
      if (m.Type === 'bind') out.push({ Type: 'bind', Source: m.Source ?? '', Destination: d, Mode: '', RW: rw, Propagation: m.BindOptions?.Propagation || 'rprivate' });
      else if (m.Type === 'tmpfs') out.push({ Type: 'tmpfs', Source: '', Destination: d, Mode: '', RW: true, Propagation: '' });
      else {
        const o = m.VolumeOptions ?? {};
        const driver = o.DriverConfig?.Name || hc.VolumeDriver || 'local';
        const existed = !!m.Source && this.d.volumes.has(m.Source);
        const v = existed && !o.DriverConfig?.Name ? this.d.volumes.reuse(m.Source!) : await this.d.volumes.create(m.Source || undefined, driver, o.DriverConfig?.Options ?? null, o.Labels ?? null, !m.Source);
        if (!existed) undo.push(() => this.d.volumes.remove(v.Name, { force: true }));
        if (!existed && !o.NoCopy && v.Driver === 'local') {
          for (const layer of [...lowerDirs].reverse()) {
            const src = path.join(layer, d);
            if (fs.existsSync(src)) await execFileP('cp', ['-a', `${src}/.`, v.Mountpoint]).catch(() => undefined);
          }
        }
        out.push({ Type: 'volume', Name: v.Name, Source: v.Mountpoint, Destination: d, Driver: v.Driver, Mode: 'z', RW: rw, Propagation: '', ...(m.Source ? {} : { Anonymous: true }) });
      }
      taken.add(d);
    }
    for (const spec of hc.VolumesFrom ?? []) {
      const [ref, mode] = spec.split(':');
      let other: ContainerRecord;
      try {
        other = this.d.store.find(ref);
      } catch (err) {
        throw isKind(err, 'NotFound') ? invalidParameter(err.message) : err; // (the reference's 400)
      }
      for (const m of other.MountPoints ?? []) {
        if (taken.has(m.Destination)) continue;
        out.push({ ...m, ID: undefined, Anonymous: false, RW: mode === 'ro' ? false : mode === 'rw' ? true : m.RW, Mode: mode ?? m.Mode });
        taken.add(m.Destination);
      }
    }
    for (const dest of Object.keys(rec.Config.Volumes ?? {})) {
      const d = clean(dest);
      if (taken.has(d) || (hc.Tmpfs && d in hc.Tmpfs)) continue;
      const v = await this.d.volumes.create(undefined, 'local', null, null, true);
      undo.push(() => this.d.volumes.remove(v.Name, { force: true }));
      // Pre-fill with the image's content at that path, bottom layer first, as the engine does.
      for (const layer of [...lowerDirs].reverse()) {
        const src = path.join(layer, d);
        if (fs.existsSync(src)) await execFileP('cp', ['-a', `${src}/.`, v.Mountpoint]).catch(() => undefined);
      }
      out.push({ Type: 'volume', Name: v.Name, Source: v.Mountpoint, Destination: d, Driver: 'local', Mode: '', RW: true, Propagation: '', Anonymous: true });
      taken.add(d);
    }
    return out;
  }

  /**
   * A HostConfig sent with start (API < 1.24) replaces the one from create: networks, mounts and the runtime spec
   * are derived again from it.
   */
  async replaceHostConfig(ref: string, given: HostConfig): Promise<void> {
    const rec = this.d.store.find(ref);
    const hc: HostConfig = { ...given };
    if (!hc.LogConfig || !hc.LogConfig.Type) hc.LogConfig = rec.HostConfig.LogConfig;
    if (!hc.RestartPolicy) hc.RestartPolicy = rec.HostConfig.RestartPolicy;
    if (!hc.NetworkMode) hc.NetworkMode = rec.HostConfig.NetworkMode;
    const img = await this.d.images.resolve(rec.Image);
    const mounts = await this.snapshotMounts(rec.Id);
    const lower = layerDirs(mounts).lower;
    const before = rec.HostConfig;
    rec.HostConfig = hc;
    try {
      if ((hc.NetworkMode || 'default') !== (before.NetworkMode || 'default')) rec.Networks = this.d.networking.initialNetworks(hc, rec.NetworkingConfig?.EndpointsConfig);
      if (JSON.stringify(hc.Binds ?? []) !== JSON.stringify(before.Binds ?? []) || JSON.stringify(hc.VolumesFrom ?? []) !== JSON.stringify(before.VolumesFrom ?? [])) {
        const kept = (rec.MountPoints ?? []).filter((m) => m.Anonymous);
        rec.HostConfig = { ...hc };
        const fresh = await this.resolveMounts({ ...rec, Config: { ...rec.Config, Volumes: {} } }, lower, []);
        rec.MountPoints = [...fresh, ...kept.filter((k) => !fresh.some((f) => f.Destination === k.Destination))];
      }
      const spec = await this.buildSpec(rec, img, lower);
      await containerApi.setSpec(this.ctr, rec.Id, spec);
      await this.d.networking.writeEtcFiles(rec);
      await this.d.store.save(rec);
    } catch (err) {
      rec.HostConfig = before;
      throw err;
    }
  }

  /** A joined namespace's path at create: the container must exist (400), its path is known when it runs. */
  private nsPathAtCreate(ref: string, kind: string): string | undefined {
    let other: ContainerRecord;
    try {
      other = this.d.store.find(ref);
    } catch (err) {
      throw isKind(err, 'NotFound') ? invalidParameter(err.message) : err;
    }
    return other.State.Running ? `/proc/${other.State.Pid}/ns/${kind}` : undefined;
  }

  /** Live resource changes (Tasks.Update) and RestartPolicy, persisted in the record and the stored spec. */
  async update(ref: string, u: HostConfig): Promise<string[]> {
    const rec = this.d.store.find(ref);
    const fields: (keyof HostConfig)[] = ['BlkioWeight', 'CpuShares', 'CpuPeriod', 'CpuQuota', 'CpusetCpus', 'CpusetMems', 'Memory', 'MemorySwap', 'MemoryReservation', 'KernelMemory', 'PidsLimit'];
    const next: HostConfig = { ...rec.HostConfig };
    const warnings: string[] = [];
    if (u.BlkioWeight && !blkioWeightSupported()) {
      // As the engine on a kernel without blkio weights: the weight is discarded with a warning, not checked.
      warnings.push('Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.');
      u = { ...u, BlkioWeight: undefined };
    }
    for (const f of fields) if (u[f] !== undefined && u[f] !== null && u[f] !== 0 && u[f] !== '') (next as Record<string, unknown>)[f] = u[f];
    if (u.RestartPolicy?.Name !== undefined) {
      next.RestartPolicy = u.RestartPolicy;
      if (!['', 'no', 'always', 'on-failure', 'unless-stopped'].includes(u.RestartPolicy.Name)) throw invalidParameter(`invalid restart policy '${u.RestartPolicy.Name}'`);
    }
    if (next.Memory && next.MemorySwap && next.MemorySwap > 0 && next.MemorySwap < next.Memory) throw invalidParameter('Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time');
    if (next.BlkioWeight && (next.BlkioWeight < 10 || next.BlkioWeight > 1000)) throw invalidParameter('Range of blkio weight is from 10 to 1000');
    // As the engine: the record is written first (a full disk changes nothing), then the running task and the spec;
    // when those fail the record goes back to what it was.
    const prev = rec.HostConfig;
    rec.HostConfig = next;
    try {
      await this.d.store.save(rec);
    } catch (err) {
      rec.HostConfig = prev;
      throw err;
    }
    try {
      const spec = await containerApi.spec(this.ctr, rec.Id);
      if (spec) {
        const fresh = generateSpec({ id: rec.Id, config: rec.Config, hostConfig: next, user: spec.process.user as never, cgroupParent: this.d.cgroupParent, systemdCgroup: this.d.systemdCgroup, mounts: [], hostname: '', seccompAvailable: false, devices: [], blockDevices: blockDevicesOf(next) });
        spec.linux.resources = { ...fresh.linux.resources, devices: spec.linux.resources.devices };
        if (rec.State.Running) {
          const { devices: _d, ...resources } = spec.linux.resources;
          try {
            await taskApi.updateResources(this.ctr, rec.Id, resources);
          } catch (err) {
            throw systemError(`Cannot update container ${rec.Id}: ${(err as Error).message}`, err);
          }
        }
        await containerApi.setSpec(this.ctr, rec.Id, spec);
      }
    } catch (err) {
      rec.HostConfig = prev;
      await this.d.store.save(rec).catch(() => undefined);
      throw err;
    }
    this.publish(rec, 'update');
    return warnings;
  }

  /**
   * GraphDriver.Data as the engine's overlay2 shows it, from the container's own snapshot mount: LowerDir (its init
   * layer and the image's layers, top first), UpperDir and WorkDir, and MergedDir where its root filesystem is
   * mounted while it runs, or would be when it is not running (containerd's v2 runtime mounts it at the task's
   * bundle, `<state>/io.containerd.runtime.v2.task/<namespace>/<id>/rootfs`; the engine likewise names its overlay2
   * 'merged' folder, mounted or not). Null when there is no snapshot.
   */
  async graphDriverData(rec: ContainerRecord): Promise<Record<string, string> | null> {
    const mounts = await this.snapshotMounts(rec.Id).catch(() => []);
    const m = mounts[0] as MountLike | undefined;
    if (!m || m.type !== 'overlay') return null;
    // The snapshot's dirs are read from its mounts once (they are asked of containerd once: ContainerLive), and a run's
    // rootfs found mounted in its bundle is known for that run (inspected by the hundred at once, each was three
    // system calls and the options' scan).
    let dirs = this.overlayDirs.get(mounts);
    if (!dirs) {
      const opt = (k: string) => m.options.find((o) => o.startsWith(`${k}=`))?.slice(k.length + 1);
      const { upper, lower } = layerDirs([m]);
      dirs = { lower: lower.length ? lower.join(':') : undefined, upper, work: opt('workdir') };
      this.overlayDirs.set(mounts, dirs);
    }
    const { upper } = dirs;
    // A running task's rootfs is mounted in its bundle (found by its upper dir where the bundle is not known or not there).
    const bundle = this.rootfsPath(rec);
    let live: string | undefined;
    if (rec.State.Running && upper) {
      const run = `${rec.State.Pid} ${rec.State.StartedAt}`;
      if (bundle && dirs.mountedRun === run) live = bundle;
      else if (bundle && isOverlayMountPoint(bundle)) {
        live = bundle;
        dirs.mountedRun = run;
      } else live = findOverlayByUpper(upper);
    }
    const merged = live ?? bundle;
    const data: Record<string, string> = {};
    // Go writes a map's keys sorted.
    if (dirs.lower) data.LowerDir = dirs.lower;
    if (merged) data.MergedDir = merged;
    if (upper) data.UpperDir = upper;
    if (dirs.work) data.WorkDir = dirs.work;
    return data;
  }

  /** A snapshot's overlay dirs by its mounts (ContainerLive keeps those while the container exists), and the run
   *  whose rootfs was last found mounted in its bundle ("pid startedAt"). */
  private readonly overlayDirs = new WeakMap<object, { lower?: string; upper?: string; work?: string; mountedRun?: string }>();

  /** Where containerd mounts the container's root filesystem when its task runs (undefined if its state is unknown). */
  private rootfsPath(rec: ContainerRecord): string | undefined {
    // the v1 runtime's bundles live in a folder of its own name
    return this.d.containerdState ? path.join(this.d.containerdState, rec.HostConfig.Runtime === RUNTIME_V1 ? RUNTIME_V1 : TASK_RUNTIME_DIR, this.ctr.namespace, rec.Id, 'rootfs') : undefined;
  }

  /** SizeRw (the rw snapshot's usage) and SizeRootFs (that plus the image's layers), as `size=1` asks. */
  async sizes(rec: ContainerRecord): Promise<{ sizeRw: number; sizeRootFs: number }> {
    // What the container wrote, counted as the engine does (file sizes; the snapshotter's usage also counts the
    // directories' blocks, so an untouched container would not be 0).
    const mounts = await this.snapshotMounts(rec.Id).catch(() => []);
    const upper = layerDirs(mounts as MountLike[]).upper;
    const sizeRw = upper ? await contentSize(upper) : await snapshotApi.usage(this.ctr, SNAPSHOTTER, rec.Id).catch(() => 0);
    const img = await this.d.images.resolve(rec.Image).catch(() => undefined);
    return { sizeRw, sizeRootFs: sizeRw + (img?.size ?? 0) };
  }
}
