// Docker container semantics over containerd: create (image merge, init layer, spec), start/stop/kill/wait,
// pause, restart, rename, remove, top, and the exit watcher that keeps state and publishes die exactly once.
// State lives in containerd (container record, labels, snapshots, tasks) and in berth's store; a restarted berth
// reconciles the two (see reconcile()).
import { LogReaderThread } from './logs';
import type { LogAppendListener } from '../runtime/io';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Containerd } from '../containerd/client';
import { OCI_RESOURCES_URL, OCI_SPEC_URL, packJSON, unpackJSON } from '../containerd/any';
import { ignoreNotFound, isGrpcNotFound } from '../containerd/errors';
import { withLease } from '../containerd/content';
import { conflict, invalidParameter, notFound, notModified, systemError, BerthError } from '../errors';
import type { Logger } from '../log';
import { ContainerIO, fifoPaths, JsonFileLogOptions, OutputListener } from '../runtime/io';
import { LogSource, openLogFiles, readableRotated } from '../runtime/logfiles';
import { goJsonAttrs, logAttributes, parseJsonFileOptions } from '../translate/request/log-options';
import { now } from '../runtime/clock';
import { ContainerStore, newState } from '../store/containers';
import type { VolumeService } from './volumes';
import { createNetns, deleteNetns, netnsPath } from '../network/sandbox';
import { ContainerNetworking, ownsNetns } from './container-network';
import { parseBind } from '../translate/request/create';
import { generateSpec } from '../translate/spec';
import { ContainerListQuery, filterContainers, matchAncestors } from '../translate/filters';
import type { HostConfig, OciMount, OciSpec } from '../types/config';
import { CreateRequest, mergeImageConfig, validateName } from '../translate/request/create';
import { fromProtoTime, rfc3339Nano } from '../translate/time';
import type { ImageService } from './images';
import { SNAPSHOTTER } from './images';
import { layerDirs, MountLike, readLayered, resolveUser } from './rootfs';
import { contentSize } from '../fs/usage';
import { parseSignal } from './signals';
import type { EventPublisher } from '../types/event';
import type { ContainerRecord, MountPoint } from '../types/container';
import type { ResolvedImage } from '../types/image';

const execFileP = promisify(execFile);

/** major:minor of the block devices the Blkio*Device lists name (a missing or non-block path: the engine's 400). */
export function blockDevicesOf(hc: HostConfig): Record<string, { major: number; minor: number }> {
  const out: Record<string, { major: number; minor: number }> = {};
  const lists = [hc.BlkioWeightDevice, hc.BlkioDeviceReadBps, hc.BlkioDeviceWriteBps, hc.BlkioDeviceReadIOps, hc.BlkioDeviceWriteIOps] as ({ Path: string }[] | null | undefined)[];
  for (const l of lists)
    for (const d of l ?? []) {
      if (out[d.Path]) continue;
      let st: fs.Stats;
      try {
        st = fs.statSync(d.Path);
      } catch {
        throw invalidParameter(`no such file or directory: ${d.Path}`);
      }
      if (!st.isBlockDevice()) throw invalidParameter(`${d.Path} is not a block device`);
      const rdev = BigInt(st.rdev);
      out[d.Path] = { major: Number((rdev >> 8n) & 0xfffn), minor: Number((rdev & 0xffn) | ((rdev >> 12n) & 0xfff00n)) };
    }
  return out;
}

export interface ContainerServiceDeps {
  ctr: Containerd;
  images: ImageService;
  store: ContainerStore;
  events: EventPublisher;
  logger: Logger;
  execRoot: string;
  cgroupParent: string;
  volumes: VolumeService;
  networking: ContainerNetworking;
}

/** Per-container live plumbing: output listeners that outlive one task, the current IO, exit waiters. */
interface Live {
  listeners: Set<OutputListener>;
  endListeners: Set<() => void>;
  io?: ContainerIO;
  /** The last run's (closed) output: its log's rotation state, for reads by logical offset after the run ended. */
  lastIO?: ContainerIO;
  exited?: Promise<number>;
  exitResolve?: (code: number) => void;
  /** Restart-policy timer and its current delay. */
  restartTimer?: NodeJS.Timeout;
  backoffMs?: number;
  /** Network teardown after an exit, awaited by the next start; remove awaits only its record write. */
  teardown?: Promise<void>;
  teardownRecorded?: Promise<void>;
  /** A restart-policy start in progress. */
  starting?: Promise<void>;
  /** Task deletion and the record write after an exit. */
  exitCleanup?: Promise<void>;
  /** The pid whose exit was recorded (the exit event and Wait both report it). */
  recordedPid?: number;
  /** The pid of the run being watched (set after its start event). */
  watchedPid?: number;
  /** The record write of the last start. */
  startSaved?: Promise<void>;
}

const SECCOMP_AVAILABLE = (() => {
  try {
    return /Seccomp:\s+\d/.test(fs.readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return false;
  }
})();

export class ContainerService {
  private readonly live = new Map<string, Live>();
  private readonly removeHooks: ((id: string) => void)[] = [];
  private readonly passwdCache = new Map<string, { passwd?: string; group?: string }>();

  constructor(private readonly d: ContainerServiceDeps) {}

  private get ctr(): Containerd {
    return this.d.ctr;
  }

  find(ref: string): ContainerRecord {
    return this.d.store.find(ref);
  }

  list(): ContainerRecord[] {
    return this.d.store.all();
  }

  /** GET /containers/json: the references a query names are looked up here, the filtering is translate's. */
  async listFiltered(q: ContainerListQuery): Promise<ContainerRecord[]> {
    const since = q.since ? this.find(q.since) : undefined;
    const before = q.before ? this.find(q.before) : undefined;
    const list = filterContainers(this.list(), q, { since, before });
    const ancestors = q.filters.get('ancestor');
    if (!ancestors?.length) return list;
    const ids = new Set<string>();
    for (const a of ancestors) ids.add((await this.d.images.resolve(a).catch(() => undefined))?.id ?? a);
    return matchAncestors(list, ancestors, ids);
  }

  private liveOf(id: string): Live {
    let l = this.live.get(id);
    if (!l) {
      l = { listeners: new Set(), endListeners: new Set() };
      this.live.set(id, l);
    }
    return l;
  }

  private attrs(rec: ContainerRecord, extra: Record<string, string> = {}): Record<string, string> {
    return { ...(rec.Config.Labels ?? {}), image: rec.ImageName, name: rec.Name.slice(1), ...extra };
  }

  private publish(rec: ContainerRecord, action: string, extra: Record<string, string> = {}): void {
    this.d.events.publish('container', action, rec.Id, this.attrs(rec, extra));
  }

  async counts(): Promise<{ total: number; running: number; paused: number; stopped: number }> {
    const all = this.d.store.all();
    const paused = all.filter((c) => c.State.Paused).length;
    const running = all.filter((c) => c.State.Running && !c.State.Paused).length;
    return { total: all.length, running, paused, stopped: all.length - running - paused };
  }

  async containersUsing(imageId: string): Promise<{ id: string; running: boolean }[]> {
    return this.d.store.all().filter((c) => c.Image === imageId).map((c) => ({ id: c.Id, running: c.State.Running }));
  }

  // ---- create ---------------------------------------------------------------------------------------------

  async create(req: CreateRequest, name: string | undefined): Promise<{ id: string; warnings: string[] }> {
    if (name) validateName(name);
    const img = await this.d.images.resolve(req.config.Image ?? '');
    const config = mergeImageConfig(req.config, img.config.config);
    if ((!config.Cmd || config.Cmd.length === 0) && (!config.Entrypoint || config.Entrypoint.length === 0)) throw invalidParameter('No command specified');
    const id = ContainerStore.newId();
    const finalName = name ? (name.startsWith('/') ? name : `/${name}`) : `/${this.generateName()}`;
    this.d.store.reserveName(finalName, id);
    const undo: (() => Promise<unknown>)[] = [async () => this.d.store.releaseName(finalName, id)];
    try {
      const dir = this.d.store.dir(id);
      await fs.promises.mkdir(dir, { recursive: true });
      undo.push(() => fs.promises.rm(dir, { recursive: true, force: true }));
      const hostname = config.Hostname || (req.hostConfig.NetworkMode === 'host' ? os.hostname() : id.slice(0, 12));
      config.Hostname = hostname;
      config.Image = req.config.Image;
      const hc = { ...req.hostConfig };
      if (!hc.LogConfig || !hc.LogConfig.Type) hc.LogConfig = { Type: 'json-file', Config: hc.LogConfig?.Config ?? {} };
      if (!hc.RestartPolicy) hc.RestartPolicy = { Name: 'no', MaximumRetryCount: 0 };
      // The engine's default swap limit, recorded at create: twice the memory limit.
      if (hc.Memory && hc.Memory > 0 && !hc.MemorySwap) hc.MemorySwap = hc.Memory * 2;
      if (hc.NetworkMode === 'default') hc.NetworkMode = 'default';
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
      await this.d.networking.writeEtcFiles(rec);
      // Container record first (it pins the snapshot key against GC), then the init layer and the rw snapshot.
      await this.ctr.containers.Create({
        container: {
          id,
          image: img.names[0] ?? img.id,
          labels: { 'berth.name': finalName, 'berth.image': img.id },
          runtime: { name: 'io.containerd.runc.v2' },
          spec: packJSON(OCI_SPEC_URL, { ociVersion: '1.0.2-dev' }),
          snapshotter: SNAPSHOTTER,
          snapshot_key: id,
        },
      });
      undo.push(() => ignoreNotFound(() => this.ctr.containers.Delete({ id })));
      // The init layer and the rw snapshot are made under a lease: until the rw snapshot exists nothing
      // references the init layer, and containerd's GC would collect it.
      const dirs = await withLease(this.ctr, 'berth-create', async (lease) => {
        const initKey = `${id}-init-key`;
        const prep = await this.ctr.snapshots.Prepare({ snapshotter: SNAPSHOTTER, key: initKey, parent: img.chainId, labels: {} }, { lease });
        undo.push(() => ignoreNotFound(() => this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: initKey })));
        const layers = layerDirs(prep.mounts);
        if (!layers.upper) throw systemError('cannot find the init layer directory');
        await this.populateInitLayer(layers.upper);
        await this.ctr.snapshots.Commit({ snapshotter: SNAPSHOTTER, name: `${id}-init`, key: initKey }, { lease });
        undo.push(() => ignoreNotFound(() => this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: `${id}-init` })));
        await this.ctr.snapshots.Prepare({ snapshotter: SNAPSHOTTER, key: id, parent: `${id}-init`, labels: {} }, { lease });
        undo.push(() => ignoreNotFound(() => this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: id })));
        return layers;
      });
      rec.MountPoints = await this.resolveMounts(rec, dirs.lower, undo);
      const spec = await this.buildSpec(rec, img, dirs.lower);
      await this.ctr.containers.Update({ container: { id, spec: packJSON(OCI_SPEC_URL, spec) }, update_mask: { paths: ['spec'] } });
      await this.d.store.save(rec);
      this.publish(rec, 'create');
      return { id, warnings: [] };
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      throw err;
    }
  }

  private generateName(): string {
    const adj = ['admiring', 'brave', 'calm', 'eager', 'focused', 'gallant', 'happy', 'jolly', 'keen', 'lucid', 'modest', 'nifty', 'quirky', 'relaxed', 'serene', 'trusting', 'vibrant', 'zealous'];
    const noun = ['albattani', 'bohr', 'curie', 'darwin', 'euler', 'fermi', 'galileo', 'hopper', 'kepler', 'lovelace', 'meitner', 'newton', 'noether', 'pasteur', 'ritchie', 'tesla', 'turing', 'wozniak'];
    for (;;) {
      const n = `${adj[Math.floor(Math.random() * adj.length)]}_${noun[Math.floor(Math.random() * noun.length)]}`;
      if (!this.d.store.hasName(n)) return n;
      const m = `${n}${Math.floor(Math.random() * 10)}`;
      if (!this.d.store.hasName(m)) return m;
    }
  }

  private async populateInitLayer(upper: string): Promise<void> {
    for (const d of ['dev', 'proc', 'sys', 'etc', 'dev/pts', 'dev/shm']) await fs.promises.mkdir(path.join(upper, d), { recursive: true, mode: 0o755 });
    for (const f of ['etc/hosts', 'etc/hostname', 'etc/resolv.conf', '.dockerenv']) await fs.promises.writeFile(path.join(upper, f), '', { mode: 0o755 });
  }

  private async buildSpec(rec: ContainerRecord, img: ResolvedImage, lowerDirs: string[]) {
    const hc = rec.HostConfig;
    let files = this.passwdCache.get(img.chainId);
    if (!files) {
      files = { passwd: readLayered(lowerDirs, '/etc/passwd'), group: readLayered(lowerDirs, '/etc/group') };
      this.passwdCache.set(img.chainId, files);
    }
    let user;
    try {
      user = resolveUser(rec.Config.User ?? '', files.passwd, files.group, hc.GroupAdd ?? []);
    } catch (err) {
      throw invalidParameter((err as Error).message);
    }
    const bind = (src: string, dst: string, ro = false): OciMount => ({ destination: dst, type: 'bind', source: src, options: ['rbind', 'rprivate', ...(ro ? ['ro'] : [])] });
    const mounts: OciMount[] = [];
    mounts.push(bind(rec.ResolvConfPath, '/etc/resolv.conf'), bind(rec.HostnamePath, '/etc/hostname'), bind(rec.HostsPath, '/etc/hosts'));
    for (const m of rec.MountPoints ?? []) {
      if (m.Type === 'bind') await fs.promises.mkdir(m.Source, { recursive: true });
      mounts.push({ destination: m.Destination, type: 'bind', source: m.Source, options: ['rbind', m.Propagation || 'rprivate', ...(m.RW ? [] : ['ro'])] });
    }
    const devices = (hc.Devices ?? []).map((d) => {
      const st = fs.statSync(d.PathOnHost);
      const major = Number((BigInt(st.rdev) >> 8n) & 0xfffn);
      const minor = Number((BigInt(st.rdev) & 0xffn) | ((BigInt(st.rdev) >> 12n) & 0xfff00n));
      return { path: d.PathInContainer || d.PathOnHost, type: st.isBlockDevice() ? 'b' : 'c', major, minor, fileMode: st.mode & 0o777, uid: 0, gid: 0, permissions: d.CgroupPermissions || 'rwm' };
    });
    const pidNs = hc.PidMode?.startsWith('container:') ? await this.nsPathOf(hc.PidMode.slice(10), 'pid') : undefined;
    const ipcNs = hc.IpcMode?.startsWith('container:') ? await this.nsPathOf(hc.IpcMode.slice(10), 'ipc') : undefined;
    const nm = hc.NetworkMode || 'default';
    let netNs: string | undefined;
    if (nm.startsWith('container:')) netNs = await this.nsPathOf(nm.slice(10), 'net');
    else if (ownsNetns(nm)) netNs = netnsPath(rec.Id);
    // none: a fresh namespace from runc, which brings up its loopback itself
    return generateSpec({
      id: rec.Id,
      config: rec.Config,
      hostConfig: hc,
      user,
      cgroupParent: this.d.cgroupParent,
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

  /** Plugs the container's networks into its named netns while its task is created. */
  private async setupNetwork(rec: ContainerRecord): Promise<void> {
    await this.d.networking.setup(rec);
    await this.d.networking.afterChange(rec);
  }

  /**
   * Unplugs the container's endpoints. The record is saved at once (remove waits only for that); the CNI DELs
   * run on, off the exit and remove paths, and the next start of the same container waits for them.
   */
  private teardownNetwork(rec: ContainerRecord): { recorded: Promise<void>; done: Promise<void> } {
    const nets = Object.values(rec.Endpoints ?? {}).map((e) => e.networkId ?? '');
    const dels = this.d.networking.teardown(rec); // clears rec.Endpoints before its first await
    const recorded = this.d.store.save(rec).catch(() => undefined);
    const done = Promise.all([dels, recorded]).then(async () => {
      if (nets.length) await this.d.networking.afterChange(rec, nets, false).catch(() => undefined);
    });
    return { recorded, done };
  }

  /** Legacy links: their environment goes into the process spec at each start (targets' addresses change). */
  private async applyLinks(rec: ContainerRecord): Promise<void> {
    const prev = rec.LinkEnv ?? [];
    const { env } = rec.HostConfig.Links?.length ? this.d.networking.linked(rec) : { env: [] as string[] };
    if (prev.length === 0 && env.length === 0) return;
    const c = await this.ctr.containers.Get({ id: rec.Id });
    const spec = unpackJSON<OciSpec>(c.container?.spec as never);
    if (!spec) return;
    const drop = new Set(prev);
    spec.process.env = [...(spec.process.env ?? []).filter((e: string) => !drop.has(e)), ...env];
    await this.ctr.containers.Update({ container: { id: rec.Id, spec: packJSON(OCI_SPEC_URL, spec) }, update_mask: { paths: ['spec'] } });
    rec.LinkEnv = env;
  }

  /** Binds (host paths and, from 1.22, volume names), VolumesFrom, and anonymous volumes for Config.Volumes. */
  private async resolveMounts(rec: ContainerRecord, lowerDirs: string[], undo: (() => Promise<unknown>)[]): Promise<MountPoint[]> {
    const hc = rec.HostConfig;
    const out: MountPoint[] = [];
    const taken = new Set<string>();
    const clean = (d: string) => d.replace(/\/+$/, '') || '/';
    for (const b of hc.Binds ?? []) {
      const p = parseBind(b, '1.24');
      const flags = p.mode.split(',').filter(Boolean);
      const rw = !flags.includes('ro');
      const prop = flags.find((f) => /^r?(shared|slave|private)$/.test(f)) ?? '';
      if (p.named) {
        const existed = this.d.volumes.has(p.source);
        const v = await this.d.volumes.create(p.source, hc.VolumeDriver || 'local', null, null);
        if (!existed) undo.push(() => this.d.volumes.remove(v.Name, { force: true }));
        out.push({ Type: 'volume', Name: v.Name, Source: v.Mountpoint, Destination: clean(p.destination), Driver: 'local', Mode: p.mode, RW: rw, Propagation: '' });
      } else out.push({ Type: 'bind', Source: p.source, Destination: clean(p.destination), Mode: p.mode, RW: rw, Propagation: prop || 'rprivate' });
      taken.add(clean(p.destination));
    }
    for (const spec of hc.VolumesFrom ?? []) {
      const [ref, mode] = spec.split(':');
      const other = this.d.store.find(ref);
      for (const m of other.MountPoints ?? []) {
        if (taken.has(m.Destination)) continue;
        out.push({ ...m, Anonymous: false, RW: mode === 'ro' ? false : mode === 'rw' ? true : m.RW, Mode: mode ?? m.Mode });
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
    const rec = this.find(ref);
    const hc: HostConfig = { ...given };
    if (!hc.LogConfig || !hc.LogConfig.Type) hc.LogConfig = rec.HostConfig.LogConfig;
    if (!hc.RestartPolicy) hc.RestartPolicy = rec.HostConfig.RestartPolicy;
    if (!hc.NetworkMode) hc.NetworkMode = rec.HostConfig.NetworkMode;
    const img = await this.d.images.resolve(rec.Image);
    const { mounts } = await this.ctr.snapshots.Mounts({ snapshotter: SNAPSHOTTER, key: rec.Id });
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
      await this.ctr.containers.Update({ container: { id: rec.Id, spec: packJSON(OCI_SPEC_URL, spec) }, update_mask: { paths: ['spec'] } });
      await this.d.networking.writeEtcFiles(rec);
      await this.d.store.save(rec);
    } catch (err) {
      rec.HostConfig = before;
      throw err;
    }
  }

  /** SizeRw (the rw snapshot's usage) and SizeRootFs (that plus the image's layers), as `size=1` asks. */
  async sizes(rec: ContainerRecord): Promise<{ sizeRw: number; sizeRootFs: number }> {
    // What the container wrote, counted as the engine does (file sizes; the snapshotter's usage also counts the
    // directories' blocks, so an untouched container would not be 0).
    const { mounts } = await this.ctr.snapshots.Mounts({ snapshotter: SNAPSHOTTER, key: rec.Id }).catch(() => ({ mounts: [] }));
    const upper = layerDirs(mounts as MountLike[]).upper;
    const usage = upper ? undefined : await this.ctr.snapshots.Usage({ snapshotter: SNAPSHOTTER, key: rec.Id }).catch(() => undefined);
    const sizeRw = upper ? await contentSize(upper) : Number(usage?.size ?? 0);
    const img = await this.d.images.resolve(rec.Image).catch(() => undefined);
    return { sizeRw, sizeRootFs: sizeRw + (img?.size ?? 0) };
  }

  volumeUsers(name: string): string[] {
    return this.d.store.all().filter((c) => (c.MountPoints ?? []).some((m) => m.Name === name)).map((c) => c.Id);
  }

  private async nsPathOf(ref: string, kind: string): Promise<string> {
    const other = this.d.store.find(ref);
    if (!other.State.Running) throw conflict(`cannot join namespace of a non running container: container ${other.Id} is not running`);
    return `/proc/${other.State.Pid}/ns/${kind}`;
  }

  // ---- start / exit -------------------------------------------------------------------------------------

  async start(ref: string): Promise<void> {
    const rec = this.find(ref);
    if (rec.State.Paused) throw conflict('cannot start a paused container, try unpause instead');
    if (rec.State.Running) throw notModified();
    if (rec.State.Status === 'removing' || rec.State.Dead) throw conflict(`container ${rec.Id} is marked for removal and cannot be started`);
    const live = this.liveOf(rec.Id);
    await live.exitCleanup;
    await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: rec.Id }));
    let logOptions: JsonFileLogOptions | undefined;
    try {
      logOptions = this.logOptions(rec);
    } catch (err) {
      // As the engine: the log options' values are checked when the logging driver starts, and the container
      // stays created with the message as its error.
      const msg = `failed to initialize logging driver: ${(err as Error).message}`;
      rec.State = { ...rec.State, Error: msg, ExitCode: 128 };
      await this.d.store.save(rec).catch(() => undefined);
      throw systemError(msg);
    }
    const fifoDir = path.join(this.d.execRoot, 'fifo', rec.Id);
    await fs.promises.mkdir(fifoDir, { recursive: true, mode: 0o700 });
    const paths = fifoPaths(fifoDir, rec.Id, { tty: !!rec.Config.Tty, stdin: !!rec.Config.OpenStdin });
    const io = new ContainerIO(paths, rec.LogPath || null, logOptions);
    await io.openOutputs();
    this.wireIO(rec.Id, io);
    if (live.teardown) await live.teardown;
    try {
      // The netns exists before runc creates the container; its interface is plugged in while runc works, and
      // both are done before the process starts.
      if (ownsNetns(rec.HostConfig.NetworkMode)) await createNetns(rec.Id);
      await this.applyLinks(rec);
      const { mounts } = await this.ctr.snapshots.Mounts({ snapshotter: SNAPSHOTTER, key: rec.Id });
      const settled = await Promise.allSettled([
        this.setupNetwork(rec),
        this.ctr.tasks.Create({ container_id: rec.Id, rootfs: mounts, stdin: paths.stdin, stdout: paths.stdout, stderr: paths.stderr, terminal: paths.terminal }),
      ]);
      const failed = settled.find((x) => x.status === 'rejected') as PromiseRejectedResult | undefined;
      if (failed) throw failed.reason;
      io.stdinReady = true;
      live.exited = new Promise((r) => (live.exitResolve = r));
      const { pid } = await this.ctr.tasks.Start({ container_id: rec.Id });
      rec.State = { ...rec.State, Status: 'running', Running: true, Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: pid, ExitCode: 0, Error: '', StartedAt: rfc3339Nano(now()), FinishedAt: rec.State.FinishedAt };
      rec.IO = paths;
      rec.HasBeenManuallyStopped = false;
      // start goes out and the run is watched before the record write: a process that exits at once is seen
      // exiting by the containerd event, after its start.
      this.publish(rec, 'start');
      this.watchExit(rec.Id);
      live.startSaved = this.d.store.save(rec).catch((err) => {
        this.d.logger.error('cannot save state', { id: rec.Id, err: String(err) });
      });
      await live.startSaved;
    } catch (err) {
      io.close();
      io.removeFifos();
      live.io = undefined;
      await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: rec.Id })).catch(() => undefined);
      await this.teardownNetwork(rec).done;
      const msg = err instanceof BerthError ? err.message : String(err);
      rec.State = { ...rec.State, Error: msg, ExitCode: 127 };
      await this.d.store.save(rec).catch(() => undefined);
      for (const l of live.endListeners) l();
      this.publish(rec, 'die', { exitCode: '127' });
      throw systemError(msg.startsWith('OCI runtime') ? msg : `OCI runtime create failed: ${msg}`, err);
    }
  }

  private wireIO(id: string, io: ContainerIO): void {
    const live = this.liveOf(id);
    live.io = io;
    io.subscribe((stream, chunk) => {
      for (const l of live.listeners) l(stream, chunk);
    });
  }

  /** Waits for the task's exit (also after a berth restart), records it, publishes die once, cleans up the task. */
  private watchExit(id: string): void {
    const live = this.liveOf(id);
    if (!live.exited) live.exited = new Promise((r) => (live.exitResolve = r));
    const pid = this.d.store.get(id)?.State.Pid ?? 0;
    live.watchedPid = pid; // from here (after `start` went out) the exit event may record this run's exit
    void (async () => {
      let status = 255;
      let exitedAt = now();
      try {
        const w = await this.ctr.tasks.Wait({ container_id: id });
        status = w.exit_status;
        const t = fromProtoTime(w.exited_at);
        if (t.seconds > 0) exitedAt = t;
      } catch (err) {
        if (!isGrpcNotFound(err)) {
          this.d.logger.warn('wait failed', { id, err: String(err) });
          return; // containerd went away; reconcile at the next start picks it up
        }
      }
      await this.recordExit(id, status, rfc3339Nano(exitedAt), pid);
    })();
  }

  /**
   * containerd's /tasks/exit event: usually a few ms ahead of the Wait reply, so it records the exit (and die
   * goes out) first; Wait remains the source when the event stream is down. Only the current run's pid counts.
   */
  onTaskExit(id: string, pid: number, status: number, exitedAt: { seconds: number; nanos: number }): void {
    const rec = this.d.store.get(id);
    if (!rec || !rec.State.Running || !pid || rec.State.Pid !== pid || this.live.get(id)?.watchedPid !== pid) return;
    void this.recordExit(id, status, rfc3339Nano(exitedAt), pid);
  }

  /** Records one run's exit once, whichever source reports it first. */
  private async recordExit(id: string, status: number, finishedAt: string, pid = 0): Promise<void> {
    const live = this.liveOf(id);
    const rec = this.d.store.get(id);
    if (pid && live.recordedPid === pid) return;
    if (pid) live.recordedPid = pid;
    // Output first: the FIFOs reach EOF once the shim copied everything.
    if (live.io) await Promise.race([live.io.done, new Promise((r) => setTimeout(r, 2000))]);
    live.io?.close();
    live.io?.removeFifos();
    if (live.io) live.lastIO = live.io; // where the run's log files start (logical offsets), for reads after it
    live.io = undefined;
    for (const l of live.endListeners) l();
    const resolve = live.exitResolve;
    live.exited = undefined;
    live.exitResolve = undefined;
    if (rec) {
      const ranFor = Date.parse(finishedAt) - Date.parse(rec.State.StartedAt);
      const restart = this.shouldRestart(rec, status);
      rec.State = { ...rec.State, Status: restart ? 'restarting' : 'exited', Running: false, Paused: false, Restarting: restart, Pid: 0, ExitCode: status, FinishedAt: finishedAt };
      // die is announced as soon as the exit is known; deleting the task and saving the record follow, and the
      // next start or a remove waits for them.
      this.publish(rec, 'die', { exitCode: String(status) });
      const t = this.teardownNetwork(rec); // clears the endpoints before the record is written below
      live.teardownRecorded = t.recorded;
      live.teardown = t.done.finally(() => {
        live.teardown = undefined;
        live.teardownRecorded = undefined;
      });
      live.exitCleanup = Promise.all([
        ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: id })).catch(() => undefined),
        // after the start's own write, so the exited state is the one that stays on disk
        (live.startSaved ?? Promise.resolve()).then(() => this.d.store.save(rec)).catch((err) => this.d.logger.error('cannot save state', { id, err: String(err) })),
      ]).then(() => {
        live.exitCleanup = undefined;
      });
      if (restart) this.scheduleRestart(rec, ranFor);
    }
    if (!rec) await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: id })).catch(() => undefined);
    resolve?.(status);
  }

  /** The kernel killed a container's process for memory: remembered for the exit, and reported. */
  onOOM(id: string): void {
    const rec = this.d.store.get(id);
    if (!rec) return;
    rec.State.OOMKilled = true;
    this.publish(rec, 'oom');
  }

  /** The engine's restart policy decision after an exit. */
  private shouldRestart(rec: ContainerRecord, exitCode: number): boolean {
    const p = rec.HostConfig.RestartPolicy;
    if (!p || rec.HasBeenManuallyStopped) return false;
    switch (p.Name) {
      case 'always':
      case 'unless-stopped':
        return true;
      case 'on-failure':
        return exitCode !== 0 && (!p.MaximumRetryCount || rec.RestartCount < p.MaximumRetryCount);
      default:
        return false;
    }
  }

  private scheduleRestart(rec: ContainerRecord, ranForMs: number): void {
    const live = this.liveOf(rec.Id);
    // 100 ms, doubling; reset once the container had been running for 10 s.
    live.backoffMs = ranForMs >= 10_000 || !live.backoffMs ? 100 : Math.min(live.backoffMs * 2, 60_000);
    live.restartTimer = setTimeout(() => {
      live.restartTimer = undefined;
      const cur = this.d.store.get(rec.Id);
      if (!cur || !cur.State.Restarting) return;
      cur.RestartCount++;
      live.starting = this.start(cur.Id)
        .catch((err) => {
          this.d.logger.warn('restart failed', { id: cur.Id, err: String(err) });
          cur.State = { ...cur.State, Restarting: false, Status: 'exited' };
          void this.d.store.save(cur).catch(() => undefined);
        })
        .finally(() => (live.starting = undefined));
    }, live.backoffMs);
  }

  private cancelRestart(rec: ContainerRecord): boolean {
    const live = this.liveOf(rec.Id);
    if (!live.restartTimer) return false;
    clearTimeout(live.restartTimer);
    live.restartTimer = undefined;
    rec.State = { ...rec.State, Restarting: false, Status: 'exited' };
    return true;
  }

  /** Containers the engine starts again on its own start: `always`, and `unless-stopped` unless stopped by hand. */
  async startWithPolicies(): Promise<void> {
    for (const rec of this.d.store.all()) {
      const p = rec.HostConfig.RestartPolicy?.Name;
      // Running ones, ones stopped by hand, and ones whose restart is already scheduled (reconcile saw them exit).
      if (rec.State.Running || rec.HasBeenManuallyStopped || this.liveOf(rec.Id).restartTimer || this.liveOf(rec.Id).starting) continue;
      if (p === 'always' || p === 'unless-stopped' || (rec.State.Restarting && p === 'on-failure')) {
        await this.start(rec.Id).catch((err) => this.d.logger.warn('cannot start container by its restart policy', { id: rec.Id, err: String(err) }));
      }
    }
  }

  /** Re-attaches to what containerd kept while berth was down. */
  async reconcile(): Promise<void> {
    const { tasks } = await this.ctr.tasks.List({ filter: '' });
    const taskById = new Map(tasks.map((t) => [t.id, t]));
    for (const rec of this.d.store.all()) {
      const t = taskById.get(rec.Id);
      if (!rec.State.Running) {
        if (t) await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: rec.Id })).catch(() => undefined);
        if (rec.Endpoints && !rec.State.Restarting) await this.teardownNetwork(rec).done.catch(() => undefined);
        continue;
      }
      if (t && (t.status === 'RUNNING' || t.status === 'PAUSED' || t.status === 'CREATED')) {
        if (rec.IO) {
          const io = new ContainerIO(rec.IO, rec.LogPath || null, this.logOptionsOrNone(rec));
          try {
            await io.openOutputs();
            io.stdinReady = true;
            this.wireIO(rec.Id, io);
          } catch (err) {
            this.d.logger.warn('cannot reopen container output', { id: rec.Id, err: String(err) });
          }
        }
        rec.State.Paused = t.status === 'PAUSED';
        rec.State.Status = rec.State.Paused ? 'paused' : 'running';
        this.watchExit(rec.Id);
      } else {
        const code = t ? t.exit_status : 255;
        const at = t ? rfc3339Nano(fromProtoTime(t.exited_at)) : rfc3339Nano(now());
        if (rec.IO && t) {
          const io = new ContainerIO(rec.IO, rec.LogPath || null, this.logOptionsOrNone(rec));
          await io.openOutputs().then(() => this.wireIO(rec.Id, io)).catch(() => undefined);
        }
        await this.recordExit(rec.Id, code, at);
      }
    }
    // Tasks without a record are orphans of a failed create: remove them.
    const known = new Set(this.d.store.all().map((r) => r.Id));
    for (const t of tasks) {
      if (known.has(t.id)) continue;
      await this.ctr.tasks.Kill({ container_id: t.id, signal: 9, all: true }).catch(() => undefined);
      await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: t.id })).catch(() => undefined);
    }
  }

  // ---- stop / kill / wait -------------------------------------------------------------------------------

  private async signal(rec: ContainerRecord, sig: number): Promise<void> {
    try {
      await this.ctr.tasks.Kill({ container_id: rec.Id, signal: sig, all: false });
    } catch (err) {
      if (isGrpcNotFound(err)) throw conflict(`Container ${rec.Id} is not running`);
      throw err;
    }
  }

  private waitExit(id: string, timeoutMs?: number): Promise<number | undefined> {
    const live = this.liveOf(id);
    const rec = this.d.store.get(id);
    if (!live.exited || !rec?.State.Running) return Promise.resolve(rec?.State.ExitCode ?? 0);
    if (timeoutMs === undefined) return live.exited;
    return Promise.race([live.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), timeoutMs))]);
  }

  async stop(ref: string, timeoutSec?: number): Promise<void> {
    const rec = this.find(ref);
    const starting = this.liveOf(rec.Id).starting;
    if (!rec.State.Running && starting) {
      // A policy restart is under way: let it finish, then stop what it started.
      rec.HasBeenManuallyStopped = true;
      await starting;
    }
    if (!rec.State.Running) {
      if (this.cancelRestart(rec)) {
        rec.HasBeenManuallyStopped = true;
        await this.d.store.save(rec);
        this.publish(rec, 'stop');
        return;
      }
      throw notModified();
    }
    rec.HasBeenManuallyStopped = true;
    const t = timeoutSec ?? 10;
    const sig = parseSignal(rec.Config.StopSignal || 'SIGTERM');
    if (rec.State.Paused) await this.ctr.tasks.Resume({ container_id: rec.Id }).catch(() => undefined);
    this.publish(rec, 'kill', { signal: String(sig) });
    await this.signal(rec, sig).catch(() => undefined);
    if ((await this.waitExit(rec.Id, t < 0 ? undefined : t * 1000)) === undefined) {
      this.publish(rec, 'kill', { signal: '9' });
      await this.ctr.tasks.Kill({ container_id: rec.Id, signal: 9, all: true }).catch(() => undefined);
      await this.waitExit(rec.Id);
    }
    this.publish(rec, 'stop');
  }

  async kill(ref: string, signal?: string): Promise<void> {
    const rec = this.find(ref);
    const sig = parseSignal(signal);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    if (rec.State.Paused && sig !== 9) throw conflict(`Container ${rec.Id} is paused. Unpause the container before stopping or killing`);
    if (sig === 9) rec.HasBeenManuallyStopped = true;
    this.publish(rec, 'kill', { signal: String(sig) });
    if (sig === 9) {
      await this.ctr.tasks.Kill({ container_id: rec.Id, signal: 9, all: true });
      await this.waitExit(rec.Id);
    } else await this.signal(rec, sig);
  }

  async wait(ref: string): Promise<number> {
    const rec = this.find(ref);
    return (await this.waitExit(rec.Id)) ?? rec.State.ExitCode;
  }

  async restart(ref: string, timeoutSec?: number): Promise<void> {
    const rec = this.find(ref);
    if (rec.State.Running) await this.stop(rec.Id, timeoutSec).catch((e) => { if (!(e instanceof BerthError && e.kind === 'NotModified')) throw e; });
    this.cancelRestart(rec);
    await this.start(rec.Id);
    rec.HasBeenManuallyStopped = false;
    this.publish(rec, 'restart');
  }

  async pause(ref: string): Promise<void> {
    const rec = this.find(ref);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    if (rec.State.Paused) throw conflict(`Container ${rec.Id} is already paused`);
    await this.ctr.tasks.Pause({ container_id: rec.Id });
    rec.State = { ...rec.State, Paused: true, Status: 'paused' };
    await this.d.store.save(rec);
    this.publish(rec, 'pause');
  }

  async unpause(ref: string): Promise<void> {
    const rec = this.find(ref);
    if (!rec.State.Paused) throw conflict(`Container ${rec.Id} is not paused`);
    await this.ctr.tasks.Resume({ container_id: rec.Id });
    rec.State = { ...rec.State, Paused: false, Status: 'running' };
    await this.d.store.save(rec);
    this.publish(rec, 'unpause');
  }

  async rename(ref: string, newName: string): Promise<void> {
    const rec = this.find(ref);
    if (!newName) throw invalidParameter('Neither old nor new names may be empty');
    validateName(newName);
    const n = newName.startsWith('/') ? newName : `/${newName}`;
    if (n === rec.Name) throw invalidParameter(`Renaming a container with the same name as its current name`);
    this.d.store.reserveName(n, rec.Id);
    const old = rec.Name;
    rec.Name = n;
    this.d.store.releaseName(old, rec.Id);
    await this.d.store.save(rec);
    await this.ctr.containers.Update({ container: { id: rec.Id, labels: { 'berth.name': n } }, update_mask: { paths: ['labels.berth.name'] } }).catch(() => undefined);
    this.publish(rec, 'rename', { oldName: old });
    if (rec.State.Running) await this.d.networking.afterChange(rec).catch(() => undefined);
  }

  async remove(ref: string, opts: { force: boolean; volumes: boolean }): Promise<void> {
    const rec = this.find(ref);
    if (rec.State.Restarting && !rec.State.Running) {
      if (!opts.force) throw conflict(`You cannot remove a restarting container ${rec.Id}. Stop the container before attempting removal or force remove`);
      this.cancelRestart(rec);
    }
    if (rec.State.Running) {
      if (!opts.force) {
        const what = rec.State.Paused ? 'paused' : 'running';
        throw conflict(`You cannot remove a ${what} container ${rec.Id}. Stop the container before attempting removal or force remove`);
      }
      if (rec.State.Paused) await this.ctr.tasks.Resume({ container_id: rec.Id }).catch(() => undefined);
      this.publish(rec, 'kill', { signal: '9' });
      await this.ctr.tasks.Kill({ container_id: rec.Id, signal: 9, all: true }).catch(() => undefined);
      await this.waitExit(rec.Id);
    }
    rec.State.Status = 'removing';
    // An endpoint teardown still running finishes on its own (it deletes the netns); only its record write is awaited.
    const live = this.liveOf(rec.Id);
    await live.exitCleanup;
    if (live.teardown) await live.teardownRecorded;
    else await deleteNetns(rec.Id).catch(() => undefined);
    await ignoreNotFound(() => this.ctr.tasks.Delete({ container_id: rec.Id })).catch(() => undefined);
    await ignoreNotFound(() => this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: rec.Id }));
    await ignoreNotFound(() => this.ctr.snapshots.Remove({ snapshotter: SNAPSHOTTER, key: `${rec.Id}-init` }));
    await ignoreNotFound(() => this.ctr.containers.Delete({ id: rec.Id }));
    await fs.promises.rm(path.join(this.d.execRoot, 'fifo', rec.Id), { recursive: true, force: true });
    await this.d.store.delete(rec);
    this.live.delete(rec.Id);
    if (opts.volumes)
      for (const m of rec.MountPoints ?? []) if (m.Anonymous && m.Name && this.volumeUsers(m.Name).length === 0) await this.d.volumes.remove(m.Name, { force: true }).catch(() => undefined);
    for (const h of this.removeHooks) h(rec.Id);
    this.publish(rec, 'destroy');
  }

  async top(ref: string, psArgs = '-ef'): Promise<{ Titles: string[]; Processes: string[][] }> {
    const rec = this.find(ref);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    const { processes } = await this.ctr.tasks.ListPids({ container_id: rec.Id });
    const pids = new Set(processes.map((p) => p.pid));
    let out: string;
    try {
      ({ stdout: out } = await execFileP('ps', psArgs.split(/\s+/).filter(Boolean), { maxBuffer: 16 << 20 }));
    } catch (err) {
      throw systemError(`Error running ps: ${(err as Error).message}`);
    }
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    const titles = lines[0].trim().split(/\s+/);
    const pidCol = titles.indexOf('PID');
    if (pidCol < 0) throw systemError(`Couldn't find PID field in ps output`);
    const rows = lines.slice(1).map((l) => {
      const f = l.trim().split(/\s+/);
      return [...f.slice(0, titles.length - 1), f.slice(titles.length - 1).join(' ')];
    });
    this.publish(rec, 'top');
    return { Titles: titles, Processes: rows.filter((r) => pids.has(Number(r[pidCol]))) };
  }

  /** Live resource changes (Tasks.Update) and RestartPolicy, persisted in the record and the stored spec. */
  async update(ref: string, u: HostConfig): Promise<string[]> {
    const rec = this.find(ref);
    const fields: (keyof HostConfig)[] = ['BlkioWeight', 'CpuShares', 'CpuPeriod', 'CpuQuota', 'CpusetCpus', 'CpusetMems', 'Memory', 'MemorySwap', 'MemoryReservation', 'KernelMemory', 'PidsLimit'];
    const next: HostConfig = { ...rec.HostConfig };
    for (const f of fields) if (u[f] !== undefined && u[f] !== null && u[f] !== 0 && u[f] !== '') (next as Record<string, unknown>)[f] = u[f];
    if (u.RestartPolicy?.Name !== undefined) {
      next.RestartPolicy = u.RestartPolicy;
      if (!['', 'no', 'always', 'on-failure', 'unless-stopped'].includes(u.RestartPolicy.Name)) throw invalidParameter(`invalid restart policy '${u.RestartPolicy.Name}'`);
    }
    if (next.Memory && next.MemorySwap && next.MemorySwap > 0 && next.MemorySwap < next.Memory) throw invalidParameter('Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time');
    if (next.BlkioWeight && (next.BlkioWeight < 10 || next.BlkioWeight > 1000)) throw invalidParameter('Range of blkio weight is from 10 to 1000');
    const c = await this.ctr.containers.Get({ id: rec.Id });
    const spec = unpackJSON<OciSpec>(c.container?.spec as never);
    if (spec) {
      const fresh = generateSpec({ id: rec.Id, config: rec.Config, hostConfig: next, user: spec.process.user as never, cgroupParent: this.d.cgroupParent, mounts: [], hostname: '', seccompAvailable: false, devices: [], blockDevices: blockDevicesOf(next) });
      spec.linux.resources = { ...fresh.linux.resources, devices: spec.linux.resources.devices };
      if (rec.State.Running) {
        const { devices: _d, ...resources } = spec.linux.resources;
        try {
          await this.ctr.tasks.Update({ container_id: rec.Id, resources: packJSON(OCI_RESOURCES_URL, resources) });
        } catch (err) {
          throw systemError(`Cannot update container ${rec.Id}: ${(err as Error).message}`, err);
        }
      }
      await this.ctr.containers.Update({ container: { id: rec.Id, spec: packJSON(OCI_SPEC_URL, spec) }, update_mask: { paths: ['spec'] } });
    }
    rec.HostConfig = next;
    await this.d.store.save(rec);
    this.publish(rec, 'update');
    return [];
  }

  /** Called with the id of every removed container (exec records, volumes...). */
  onRemove(fn: (id: string) => void): void {
    this.removeHooks.push(fn);
  }

  /** Output of the container's current and future tasks, until unsubscribed. */
  subscribeOutput(id: string, fn: OutputListener, onEnd: () => void): () => void {
    const live = this.liveOf(id);
    live.listeners.add(fn);
    live.endListeners.add(onEnd);
    return () => {
      live.listeners.delete(fn);
      live.endListeners.delete(onEnd);
    };
  }

  /** The json-file options of a container's log (rotation, the entries' attributes); throws the engine's message. */
  private logOptions(rec: ContainerRecord): JsonFileLogOptions | undefined {
    if (!rec.LogPath) return undefined;
    const cfg = rec.HostConfig.LogConfig?.Config;
    const rotation = parseJsonFileOptions(cfg);
    const attrs = logAttributes(cfg, {
      id: rec.Id,
      name: rec.Name,
      imageId: rec.Image,
      imageName: rec.ImageName,
      path: rec.Path,
      args: rec.Args,
      env: rec.Config.Env ?? [],
      labels: rec.Config.Labels ?? {},
      logPath: rec.LogPath,
      hostname: os.hostname(),
    });
    return { ...rotation, attrs: attrs && goJsonAttrs(attrs) };
  }

  /** As logOptions, for a log a run already writes (its options were checked when it started). */
  private logOptionsOrNone(rec: ContainerRecord): JsonFileLogOptions | undefined {
    try {
      return this.logOptions(rec);
    } catch {
      return undefined;
    }
  }

  /**
   * The container's json-file log as of now: its files opened (the reader closes them, see LogSource), through
   * the capture when berth has one for it (it knows where each file starts), else as found on disk.
   */
  openLog(id: string): LogSource {
    const live = this.live.get(id);
    const src = (live?.io ?? live?.lastIO)?.openLog();
    if (src) return src;
    const rec = this.d.store.get(id);
    if (!rec?.LogPath) return { files: [] };
    let rotated = 0;
    try {
      rotated = readableRotated(parseJsonFileOptions(rec.HostConfig.LogConfig?.Config));
    } catch {
      /* never started */
    }
    return openLogFiles(rec.LogPath, rotated);
  }

  /** The container's json-file log size while a run writes it; undefined otherwise. */
  logSizeOf(id: string): number | undefined {
    return this.live.get(id)?.io?.logSize();
  }

  /**
   * The live side of `logs -f`: what the container's json-file log receives from now on (`fn`), and the log's
   * logical size it starts at; `onEnd` when the run's output is complete. Undefined when the container has no live
   * log.
   */
  subscribeLog(id: string, fn: LogAppendListener, onEnd: () => void): { offset: number; attrs?: string; unsubscribe: () => void } | undefined {
    const live = this.live.get(id);
    const sub = live?.io?.subscribeLog(fn);
    if (!live || !sub) return undefined;
    live.endListeners.add(onEnd);
    return {
      offset: sub.offset,
      attrs: sub.attrs,
      unsubscribe: () => {
        sub.unsubscribe();
        live.endListeners.delete(onEnd);
      },
    };
  }

  stdinOf(id: string) {
    return this.live.get(id)?.io;
  }

  async closeStdin(id: string): Promise<void> {
    const io = this.live.get(id)?.io;
    // Only after the bytes still buffered in the writer reached the FIFO: closing the shim's side first loses them.
    await io?.closeStdinWriter();
    await this.ctr.tasks.CloseIO({ container_id: id, exec_id: '', stdin: true }).catch(() => undefined);
  }

  async resize(ref: string, h: number, w: number): Promise<void> {
    const rec = this.find(ref);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    await this.ctr.tasks.ResizePty({ container_id: rec.Id, exec_id: '', width: w, height: h }).catch((err) => {
      throw systemError(`Cannot resize container ${rec.Id}: ${(err as Error).message}`, err);
    });
    this.publish(rec, 'resize', { height: String(h), width: String(w) });
  }

  /** Closes berth's ends of every container's I/O (shutdown); containers keep running. */
  /** Decodes big and followed log reads on a thread of its own (see logs-worker). */
  readonly logReader = new LogReaderThread();

  close(): void {
    this.logReader.close();
    for (const l of this.live.values()) {
      l.io?.close();
      if (l.restartTimer) clearTimeout(l.restartTimer);
    }
  }
}
