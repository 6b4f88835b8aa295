// System facts for /version and /info, gathered from the host, containerd and the other services.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Containerd } from '../containerd/client';
import type { Config } from '../config';
import { BERTH_VERSION, GIT_COMMIT } from '../version';
import { rfc3339Nano } from '../translate/time';
import { now } from '../runtime/clock';
import type { ContainerCounts, SystemInfo, VersionInfo } from '../types/system';

const execFileP = promisify(execFile);

export interface SystemDeps {
  ctr: Containerd;
  config: Config;
  containerCounts: () => Promise<ContainerCounts>;
  imageCount: () => Promise<number>;
  eventListeners: () => number;
  /** the volume drivers /info lists (Plugins.Volume) */
  volumeDrivers?: () => string[];
  /** the configured authorization plugins (/info Plugins.Authorization; null without any) */
  authorizationPlugins?: () => string[];
}

function readFirst(p: string): string | undefined {
  try {
    return fs.readFileSync(p, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function exists(p: string): boolean {
  try {
    fs.accessSync(p);
    return true;
  } catch {
    return false;
  }
}

function osRelease(): { pretty: string; version: string } {
  const text = readFirst('/etc/os-release') ?? '';
  const get = (k: string) => (new RegExp(`^${k}="?([^"\\n]*)"?`, 'm').exec(text)?.[1] ?? '');
  return { pretty: get('PRETTY_NAME') || 'Linux', version: get('VERSION_ID') };
}

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };

export class SystemService {
  private versionCache?: VersionInfo;
  private engineId?: string;
  private readonly buildTime = new Date().toISOString();

  constructor(private readonly deps: SystemDeps) {}

  /** The engine id, made once and kept in the data root (the reference's key-id format). */
  id(): string {
    if (this.engineId) return this.engineId;
    const p = path.join(this.deps.config.dataRoot, 'engine-id');
    let id = readFirst(p);
    if (!id) {
      const b32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      const bytes = crypto.randomBytes(48);
      const chars = Array.from(bytes, (b) => b32[b % 32]).join('');
      id = chars.match(/.{4}/g)!.slice(0, 12).join(':');
      try {
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p + '.tmp', id);
        fs.renameSync(p + '.tmp', p);
      } catch {
        // a full disk: this process keeps the id (the daemon makes it at start, so this is rare)
        fs.rmSync(p + '.tmp', { force: true });
      }
    }
    this.engineId = id;
    return id;
  }

  async version(): Promise<VersionInfo> {
    if (this.versionCache) return this.versionCache;
    const ctd = await this.deps.ctr.serverVersion(5000).catch(() => ({ version: '', revision: '' }));
    let runc = { version: '', commit: '' };
    try {
      const { stdout } = await execFileP('runc', ['--version']);
      runc = {
        version: /runc version (\S+)/.exec(stdout)?.[1] ?? '',
        commit: /commit: (\S+)/.exec(stdout)?.[1] ?? '',
      };
    } catch {
      /* runc missing: reported empty */
    }
    this.versionCache = {
      version: BERTH_VERSION,
      gitCommit: GIT_COMMIT,
      runtime: process.version,
      os: 'linux',
      arch: ARCH[process.arch] ?? process.arch,
      kernelVersion: os.release(),
      buildTime: this.buildTime,
      containerd: { version: ctd.version, revision: ctd.revision },
      runc,
    };
    return this.versionCache;
  }

  async info(): Promise<SystemInfo> {
    const [version, counts, images] = await Promise.all([
      this.version(),
      this.deps.containerCounts(),
      this.deps.imageCount(),
    ]);
    const cg = '/sys/fs/cgroup';
    const v2 = exists(path.join(cg, 'cgroup.controllers'));
    const rel = osRelease();
    let nfd = 0;
    try {
      nfd = fs.readdirSync('/proc/self/fd').length;
    } catch {
      /* not linux */
    }
    const proc = process as unknown as { getActiveResourcesInfo?: () => string[] };
    return {
      id: this.id(),
      name: os.hostname(),
      counts,
      images,
      ncpu: os.cpus().length,
      memTotal: os.totalmem(),
      kernelVersion: os.release(),
      operatingSystem: rel.pretty,
      osVersion: rel.version,
      architecture: os.machine(),
      dataRoot: this.deps.config.dataRoot,
      nfd,
      nHandles: proc.getActiveResourcesInfo?.().length ?? 0,
      nEventsListener: this.deps.eventListeners(),
      volumeDrivers: this.deps.volumeDrivers?.() ?? ['local'],
      authorizationPlugins: this.deps.authorizationPlugins?.() ?? [],
      systemTime: rfc3339Nano(now()),
      cgroupVersion: v2 ? '2' : '1',
      memoryLimit: v2 || exists(path.join(cg, 'memory/memory.limit_in_bytes')),
      swapLimit: v2 ? exists(path.join(cg, 'memory.swap.max')) || true : exists(path.join(cg, 'memory/memory.memsw.limit_in_bytes')),
      kernelMemory: !v2 && exists(path.join(cg, 'memory/memory.kmem.limit_in_bytes')),
      cpuCfs: v2 || exists(path.join(cg, 'cpu/cpu.cfs_period_us')),
      cpuShares: v2 || exists(path.join(cg, 'cpu/cpu.shares')),
      cpuSet: v2 || exists(path.join(cg, 'cpuset/cpuset.cpus')),
      pidsLimit: v2 || exists(path.join(cg, 'pids/pids.max')) || exists(path.join(cg, 'pids')),
      oomKillDisable: !v2 && exists(path.join(cg, 'memory/memory.oom_control')),
      ipv4Forwarding: readFirst('/proc/sys/net/ipv4/ip_forward') === '1',
      bridgeNfIptables: readFirst('/proc/sys/net/bridge/bridge-nf-call-iptables') === '1',
      bridgeNfIp6tables: readFirst('/proc/sys/net/bridge/bridge-nf-call-ip6tables') === '1',
      backingFs: backingFs(this.deps.config.dataRoot),
      httpProxy: process.env.HTTP_PROXY ?? process.env.http_proxy ?? '',
      httpsProxy: process.env.HTTPS_PROXY ?? process.env.https_proxy ?? '',
      noProxy: process.env.NO_PROXY ?? process.env.no_proxy ?? '',
      debug: this.deps.config.debug,
      labels: this.deps.config.labels,
      loggingDriver: this.deps.config.logDriver,
      insecureRegistries: this.deps.config.insecureRegistries,
      registryMirrors: this.deps.config.registryMirrors,
      liveRestore: this.deps.config.liveRestore,
      cgroupDriver: this.deps.config.cgroupDriver ?? 'cgroupfs',
      clusterStore: this.deps.config.clusterStoreFlag ?? '',
      version,
    };
  }
}

const FS_MAGIC: Record<string, string> = { ext2: 'extfs', ext3: 'extfs', ext4: 'extfs', xfs: 'xfs', btrfs: 'btrfs', tmpfs: 'tmpfs', overlay: 'overlayfs', zfs: 'zfs' };

/** The filesystem type under the data root, from /proc/mounts (longest mount-point prefix). */
function backingFs(dir: string): string {
  const mounts = readFirst('/proc/mounts') ?? '';
  let best = '';
  let type = '';
  for (const line of mounts.split('\n')) {
    const [, mp, t] = line.split(' ');
    if (!mp) continue;
    if ((dir === mp || dir.startsWith(mp.endsWith('/') ? mp : mp + '/')) && mp.length >= best.length) {
      best = mp;
      type = t;
    }
  }
  return FS_MAGIC[type] ?? (type || 'unknown');
}
