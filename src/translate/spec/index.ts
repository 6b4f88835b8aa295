// Config/HostConfig → OCI runtime spec: a default Linux spec like the reference engine's, then one small option per
// concern. Pure: image config, users, devices and mounts are resolved by the service and passed in as data.
import seccompDefault = require('./seccomp-default.json');
import type { ContainerConfig, HostConfig, OciDevice, OciMount, OciSpec } from '../../types/config';


export interface SpecInput {
  id: string;
  config: ContainerConfig;
  hostConfig: HostConfig;
  user: { uid: number; gid: number; additionalGids: number[] };
  cgroupParent: string;
  /** exec-opts native.cgroupdriver=systemd: cgroupsPath in runc's `slice:prefix:name` form, the parent a slice. */
  systemdCgroup?: boolean;
  /** Extra mounts (init files /etc/hosts…, volumes, binds), already resolved. */
  mounts: OciMount[];
  netnsPath?: string;
  pidNsPath?: string;
  ipcNsPath?: string;
  utsNsPath?: string;
  hostname: string;
  seccompAvailable: boolean;
  apparmorAvailable?: boolean;
  /** Devices for HostConfig.Devices (and every host device when privileged), resolved from the host. */
  devices: (OciDevice & { permissions: string })[];
  /** major:minor of the block devices named in the Blkio*Device lists, by host path. */
  blockDevices: Record<string, { major: number; minor: number }>;
}

export type SpecOpt = (spec: OciSpec, input: SpecInput) => void;

export const DEFAULT_CAPS = [
  'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_MKNOD', 'CAP_NET_RAW', 'CAP_SETGID', 'CAP_SETUID',
  'CAP_SETFCAP', 'CAP_SETPCAP', 'CAP_NET_BIND_SERVICE', 'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE',
];

export const ALL_CAPS = [
  'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_DAC_READ_SEARCH', 'CAP_FOWNER', 'CAP_FSETID', 'CAP_KILL', 'CAP_SETGID', 'CAP_SETUID',
  'CAP_SETPCAP', 'CAP_LINUX_IMMUTABLE', 'CAP_NET_BIND_SERVICE', 'CAP_NET_BROADCAST', 'CAP_NET_ADMIN', 'CAP_NET_RAW',
  'CAP_IPC_LOCK', 'CAP_IPC_OWNER', 'CAP_SYS_MODULE', 'CAP_SYS_RAWIO', 'CAP_SYS_CHROOT', 'CAP_SYS_PTRACE', 'CAP_SYS_PACCT',
  'CAP_SYS_ADMIN', 'CAP_SYS_BOOT', 'CAP_SYS_NICE', 'CAP_SYS_RESOURCE', 'CAP_SYS_TIME', 'CAP_SYS_TTY_CONFIG', 'CAP_MKNOD',
  'CAP_LEASE', 'CAP_AUDIT_WRITE', 'CAP_AUDIT_CONTROL', 'CAP_SETFCAP', 'CAP_MAC_OVERRIDE', 'CAP_MAC_ADMIN', 'CAP_SYSLOG',
  'CAP_WAKE_ALARM', 'CAP_BLOCK_SUSPEND', 'CAP_AUDIT_READ', 'CAP_PERFMON', 'CAP_BPF', 'CAP_CHECKPOINT_RESTORE',
];

export const MASKED = ['/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware'];
export const READONLY = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];
const DEFAULT_DEVICE_RULES = [
  { allow: false, access: 'rwm' },
  { allow: true, type: 'c', major: 1, minor: 5, access: 'rwm' },
  { allow: true, type: 'c', major: 1, minor: 3, access: 'rwm' },
  { allow: true, type: 'c', major: 1, minor: 9, access: 'rwm' },
  { allow: true, type: 'c', major: 1, minor: 8, access: 'rwm' },
  { allow: true, type: 'c', major: 5, minor: 0, access: 'rwm' },
  { allow: true, type: 'c', major: 5, minor: 1, access: 'rwm' },
  { allow: false, type: 'c', major: 10, minor: 229, access: 'rwm' },
];
export const DEFAULT_SHM_SIZE = 64 * 1024 * 1024;

/** Normalises a capability name: `net_admin`, `NET_ADMIN`, `CAP_NET_ADMIN` → `CAP_NET_ADMIN`; ALL stays ALL. */
export function normalizeCap(c: string): string {
  const u = c.toUpperCase();
  if (u === 'ALL') return u;
  return u.startsWith('CAP_') ? u : `CAP_${u}`;
}

/** The engine's capability arithmetic (TweakCapabilities). Unknown names are rejected by validation first. */
export function effectiveCaps(hc: HostConfig): string[] {
  if (hc.Privileged) return [...ALL_CAPS];
  const add = (hc.CapAdd ?? []).map(normalizeCap);
  const drop = (hc.CapDrop ?? []).map(normalizeCap);
  let caps = add.includes('ALL') ? [...ALL_CAPS] : [...DEFAULT_CAPS];
  if (drop.includes('ALL')) caps = [];
  caps = caps.filter((c) => !drop.includes(c));
  for (const c of add) if (c !== 'ALL' && !caps.includes(c)) caps.push(c);
  return caps;
}

function defaultMounts(hc: HostConfig): OciMount[] {
  const shm = hc.ShmSize && hc.ShmSize > 0 ? hc.ShmSize : DEFAULT_SHM_SIZE;
  const sysRo = hc.Privileged ? ['nosuid', 'noexec', 'nodev'] : ['nosuid', 'noexec', 'nodev', 'ro'];
  return [
    { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
    { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
    { destination: '/sys', type: 'sysfs', source: 'sysfs', options: sysRo },
    { destination: '/sys/fs/cgroup', type: 'cgroup', source: 'cgroup', options: hc.Privileged ? ['nosuid', 'noexec', 'nodev'] : ['ro', 'nosuid', 'noexec', 'nodev'] },
    { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
    { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', `size=${shm}`] },
  ];
}

export const withNamespaces: SpecOpt = (s, i) => {
  const hc = i.hostConfig;
  const ns: { type: string; path?: string }[] = [{ type: 'mount' }];
  const nm = hc.NetworkMode ?? '';
  if (nm !== 'host') ns.push(i.netnsPath ? { type: 'network', path: i.netnsPath } : { type: 'network' });
  if (hc.UTSMode !== 'host') ns.push(i.utsNsPath ? { type: 'uts', path: i.utsNsPath } : { type: 'uts' });
  if (hc.PidMode !== 'host') ns.push(i.pidNsPath ? { type: 'pid', path: i.pidNsPath } : { type: 'pid' });
  if (hc.IpcMode !== 'host') ns.push(i.ipcNsPath ? { type: 'ipc', path: i.ipcNsPath } : { type: 'ipc' });
  s.linux.namespaces = ns;
  if (hc.UTSMode === 'host') delete s.hostname;
};

/**
 * The engine's environment of a process: the defaults (PATH, HOSTNAME, TERM) with the container's variables over
 * them: a `K=V` replaces the default K in its place or is appended; a bare `K` (docker run -e K with K unset in the
 * client's environment) removes the default K and is itself left out (runc refuses a variable without `=`). Config.Env
 * keeps the bare name, as the reference's inspect shows it.
 */
export function replaceOrAppendEnv(defaults: string[], overrides: string[]): string[] {
  const out: (string | undefined)[] = [...defaults];
  const at = new Map<string, number>();
  out.forEach((e, n) => at.set(e!.split('=')[0], n));
  for (const v of overrides) {
    const eq = v.indexOf('=');
    if (eq < 0) {
      const n = at.get(v);
      if (n !== undefined) out[n] = undefined;
      continue;
    }
    // only the defaults are replaced in place: a repeated variable is appended again (runc's last one wins), and a
    // bare name after K=V leaves K=V (the reference: -e B=1 -e B runs with B=1)
    const n = at.get(v.slice(0, eq));
    if (n !== undefined) out[n] = v;
    else out.push(v);
  }
  return out.filter((e): e is string => e !== undefined);
}

export const withProcess: SpecOpt = (s, i) => {
  const c = i.config;
  const argv = [...(c.Entrypoint ?? []), ...(c.Cmd ?? [])];
  s.process.args = argv;
  const defaults = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
  if (i.hostConfig.UTSMode !== 'host') defaults.push(`HOSTNAME=${i.hostname}`);
  if (c.Tty) defaults.push('TERM=xterm');
  s.process.env = replaceOrAppendEnv(defaults, c.Env ?? []);
  s.process.cwd = c.WorkingDir || '/';
  s.process.terminal = !!c.Tty;
  s.process.user = { uid: i.user.uid, gid: i.user.gid, additionalGids: i.user.additionalGids };
};

export const withCapabilities: SpecOpt = (s, i) => {
  const caps = effectiveCaps(i.hostConfig);
  s.process.capabilities = { bounding: caps, effective: caps, permitted: caps };
};

export const withSecurity: SpecOpt = (s, i) => {
  const hc = i.hostConfig;
  const opts = hc.SecurityOpt ?? [];
  let seccomp: unknown = i.seccompAvailable && !hc.Privileged ? seccompDefault : undefined;
  for (const o of opts) {
    const [k, v] = o.includes('=') ? [o.slice(0, o.indexOf('=')), o.slice(o.indexOf('=') + 1)] : o.split(':');
    if (k === 'no-new-privileges') s.process.noNewPrivileges = v === undefined || v === 'true';
    else if (k === 'seccomp') seccomp = v === 'unconfined' ? undefined : JSON.parse(v);
    else if (k === 'apparmor' && i.apparmorAvailable) s.process.apparmorProfile = v;
    else if (k === 'label' && v?.startsWith('type:')) s.process.selinuxLabel = v;
  }
  if (seccomp) s.linux.seccomp = seccomp;
  if (hc.Privileged) {
    delete s.linux.maskedPaths;
    delete s.linux.readonlyPaths;
  }
  s.process.oomScoreAdj = hc.OomScoreAdj ?? 0;
};

export const withMounts: SpecOpt = (s, i) => {
  const hc = i.hostConfig;
  let mounts = defaultMounts(hc);
  const extra = [...i.mounts];
  for (const [dest, opts] of Object.entries(hc.Tmpfs ?? {})) {
    const o = opts ? opts.split(',') : [];
    extra.push({ destination: dest, type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'noexec', ...o.filter((x) => x !== '')] });
  }
  // A user mount replaces a default one at the same destination (e.g. a bigger /dev/shm).
  const dests = new Set(extra.map((m) => m.destination.replace(/\/+$/, '')));
  mounts = mounts.filter((m) => !dests.has(m.destination));
  if (hc.IpcMode === 'host') mounts = mounts.filter((m) => m.destination !== '/dev/shm' && m.destination !== '/dev/mqueue');
  // The user's mounts in the engine's order, the shallower destinations first (a stable sort by path depth): a volume
  // at /etc goes under the /etc/hosts, /etc/hostname and /etc/resolv.conf binds, not over them.
  const depth = (m: OciMount) => m.destination.replace(/\/+$/, '').split('/').length;
  const ordered = extra.map((m, i) => ({ m, i })).sort((a, b) => depth(a.m) - depth(b.m) || a.i - b.i).map((x) => x.m);
  s.mounts = [...mounts, ...ordered];
  s.root.readonly = !!hc.ReadonlyRootfs;
  // As the engine: a shared bind keeps the root shared, a slave one makes it rslave (runc's own default, named), so the
  // bind stays in its source's peer group (a shared bind under a slave root was a new group, a slave of the host's).
  const props = extra.flatMap((m) => (m.type === 'bind' ? m.options : []));
  if (props.some((o) => o === 'shared' || o === 'rshared')) s.linux.rootfsPropagation = 'shared';
  else if (props.some((o) => o === 'slave' || o === 'rslave')) s.linux.rootfsPropagation = 'rslave';
};

export const withResources: SpecOpt = (s, i) => {
  const hc = i.hostConfig;
  const r = s.linux.resources;
  const mem: NonNullable<typeof r.memory> = {};
  if (hc.Memory) mem.limit = hc.Memory;
  if (hc.MemoryReservation) mem.reservation = hc.MemoryReservation;
  if (hc.MemorySwap) mem.swap = hc.MemorySwap;
  else if (hc.Memory) mem.swap = hc.Memory * 2; // the engine's default: swap = memory
  if (hc.KernelMemory) mem.kernel = hc.KernelMemory;
  if (hc.MemorySwappiness !== undefined && hc.MemorySwappiness !== null && hc.MemorySwappiness >= 0) mem.swappiness = hc.MemorySwappiness;
  mem.disableOOMKiller = !!hc.OomKillDisable;
  r.memory = mem;
  const cpu: NonNullable<typeof r.cpu> = {};
  if (hc.CpuShares) cpu.shares = hc.CpuShares;
  if (hc.CpuQuota) cpu.quota = hc.CpuQuota;
  if (hc.CpuPeriod) cpu.period = hc.CpuPeriod;
  if (hc.CpusetCpus) cpu.cpus = hc.CpusetCpus;
  if (hc.CpusetMems) cpu.mems = hc.CpusetMems;
  r.cpu = cpu;
  if (hc.PidsLimit && hc.PidsLimit !== 0) r.pids = { limit: hc.PidsLimit };
  const dev = (p: string) => i.blockDevices[p] ?? { major: 0, minor: 0 };
  const rate = (list?: { Path: string; Rate: number }[] | null) => (list ?? []).map((d) => ({ ...dev(d.Path), rate: d.Rate }));
  r.blockIO = {
    ...(hc.BlkioWeight ? { weight: hc.BlkioWeight } : {}),
    ...(hc.BlkioWeightDevice?.length ? { weightDevice: hc.BlkioWeightDevice.map((d) => ({ ...dev(d.Path), weight: d.Weight })) } : {}),
    ...(hc.BlkioDeviceReadBps?.length ? { throttleReadBpsDevice: rate(hc.BlkioDeviceReadBps) } : {}),
    ...(hc.BlkioDeviceWriteBps?.length ? { throttleWriteBpsDevice: rate(hc.BlkioDeviceWriteBps) } : {}),
    ...(hc.BlkioDeviceReadIOps?.length ? { throttleReadIOPSDevice: rate(hc.BlkioDeviceReadIOps) } : {}),
    ...(hc.BlkioDeviceWriteIOps?.length ? { throttleWriteIOPSDevice: rate(hc.BlkioDeviceWriteIOps) } : {}),
  };
  s.linux.cgroupsPath = i.systemdCgroup ? `${hc.CgroupParent || i.cgroupParent}:berth:${i.id}` : `${(hc.CgroupParent || i.cgroupParent).replace(/\/+$/, '')}/${i.id}`;
};

export const withDevices: SpecOpt = (s, i) => {
  if (i.hostConfig.Privileged) {
    s.linux.resources.devices = [{ allow: true, access: 'rwm' }];
  }
  if (i.devices.length) {
    s.linux.devices = i.devices.map(({ permissions: _p, ...d }) => d);
    if (!i.hostConfig.Privileged)
      for (const d of i.devices) s.linux.resources.devices.push({ allow: true, type: d.type, major: d.major, minor: d.minor, access: d.permissions || 'rwm' });
  }
};

export const withSysctlsAndUlimits: SpecOpt = (s, i) => {
  const hc = i.hostConfig;
  s.linux.sysctl = { ...(hc.NetworkMode === 'host' ? {} : { 'net.ipv4.ip_unprivileged_port_start': '0', 'net.ipv4.ping_group_range': '0 2147483647' }), ...(hc.Sysctls ?? {}) };
  if (hc.Ulimits?.length) s.process.rlimits = hc.Ulimits.map((u) => ({ type: `RLIMIT_${u.Name.toUpperCase()}`, soft: u.Soft, hard: u.Hard }));
};

export const withHostname: SpecOpt = (s, i) => {
  s.hostname = i.hostname;
  if (i.config.Domainname) s.domainname = i.config.Domainname;
};

const DEFAULT_OPTS: SpecOpt[] = [withHostname, withNamespaces, withProcess, withCapabilities, withMounts, withResources, withDevices, withSysctlsAndUlimits, withSecurity];

export function generateSpec(input: SpecInput, ...extra: SpecOpt[]): OciSpec {
  const spec: OciSpec = {
    ociVersion: '1.0.2-dev',
    process: { user: { uid: 0, gid: 0 }, args: [], env: [], cwd: '/', capabilities: { bounding: [], effective: [], permitted: [] } },
    root: { path: 'rootfs' },
    mounts: [],
    linux: {
      resources: { devices: DEFAULT_DEVICE_RULES.map((d) => ({ ...d })) },
      cgroupsPath: '',
      namespaces: [],
      maskedPaths: [...MASKED],
      readonlyPaths: [...READONLY],
    },
  };
  for (const opt of [...DEFAULT_OPTS, ...extra]) opt(spec, input);
  return spec;
}
