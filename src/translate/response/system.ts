// /version and /info bodies, per API version — pure.
import { MAX_API_VERSION, MIN_API_VERSION } from '../version/features';
import type { SystemInfo, VersionInfo } from '../../types/system';
import { storageDriverName } from './storage-driver';

/**
 * /version: the spec's fields ("Version information": Version, Os, KernelVersion, GoVersion, GitCommit, Arch,
 * ApiVersion, BuildTime, Experimental) and those the reference sends besides at every version (Platform,
 * Components, MinAPIVersion).
 */
export function toVersionJSON(v: VersionInfo): Record<string, unknown> {
  const details = { ApiVersion: MAX_API_VERSION, Arch: v.arch, BuildTime: v.buildTime, Experimental: 'false', GitCommit: v.gitCommit, GoVersion: `node ${v.runtime}`, KernelVersion: v.kernelVersion, MinAPIVersion: MIN_API_VERSION, Os: v.os };
  return {
    Platform: { Name: '' },
    Components: [
      { Name: 'Engine', Version: v.version, Details: details },
      { Name: 'containerd', Version: v.containerd.version, Details: { GitCommit: v.containerd.revision } },
      { Name: 'runc', Version: v.runc.version, Details: { GitCommit: v.runc.commit } },
    ],
    Version: v.version,
    ApiVersion: MAX_API_VERSION,
    MinAPIVersion: MIN_API_VERSION,
    GitCommit: v.gitCommit,
    GoVersion: `node ${v.runtime}`,
    Os: v.os,
    Arch: v.arch,
    KernelVersion: v.kernelVersion,
    Experimental: false,
    BuildTime: v.buildTime,
  };
}

/**
 * /info: the spec's fields ("System information") and every one the reference sends besides, at every version (the
 * spec has no version marker on any of them).
 */
export function toInfoJSON(i: SystemInfo): Record<string, unknown> {
  const runtimeLine = `containerd ${i.version.containerd.version}, runc ${i.version.runc.version}`;
  const out: Record<string, unknown> = {
    ID: i.id,
    Containers: i.counts.total,
    ContainersRunning: i.counts.running,
    ContainersPaused: i.counts.paused,
    ContainersStopped: i.counts.stopped,
    Images: i.images,
    Driver: storageDriverName('overlayfs'),
    DriverStatus: [
      ['Backing Filesystem', i.backingFs],
      ['Snapshotter', 'containerd overlayfs'],
    ],
    SystemStatus: null,
    Plugins: { Volume: i.volumeDrivers, Network: ['bridge', 'host', 'null'], Authorization: i.authorizationPlugins.length ? i.authorizationPlugins : null, Log: ['json-file'] },
    MemoryLimit: i.memoryLimit,
    SwapLimit: i.swapLimit,
    KernelMemory: i.kernelMemory,
    KernelMemoryTCP: i.kernelMemory,
    CpuCfsPeriod: i.cpuCfs,
    CpuCfsQuota: i.cpuCfs,
    CPUShares: i.cpuShares,
    CPUSet: i.cpuSet,
    PidsLimit: i.pidsLimit,
    IPv4Forwarding: i.ipv4Forwarding,
    BridgeNfIptables: i.bridgeNfIptables,
    BridgeNfIp6tables: i.bridgeNfIp6tables,
    Debug: i.debug,
    NFd: i.nfd,
    OomKillDisable: i.oomKillDisable,
    NGoroutines: i.nHandles,
    SystemTime: i.systemTime,
    ExecutionDriver: runtimeLine,
    LoggingDriver: i.loggingDriver,
    CgroupDriver: i.cgroupDriver,
    CgroupVersion: i.cgroupVersion,
    NEventsListener: i.nEventsListener,
    KernelVersion: i.kernelVersion,
    OperatingSystem: i.operatingSystem,
    OSVersion: i.osVersion,
    OSType: 'linux',
    Architecture: i.architecture,
    IndexServerAddress: 'https://index.docker.io/v1/',
    RegistryConfig: toRegistryConfig(i.insecureRegistries, i.registryMirrors),
    InitSha1: '',
    InitPath: '',
    NCPU: i.ncpu,
    MemTotal: i.memTotal,
    GenericResources: null,
    DockerRootDir: i.dataRoot,
    HttpProxy: i.httpProxy,
    HttpsProxy: i.httpsProxy,
    NoProxy: i.noProxy,
    Name: i.name,
    Labels: i.labels,
    ExperimentalBuild: false,
    ServerVersion: i.version.version,
    ClusterStore: i.clusterStore,
    ClusterAdvertise: '',
  };
  Object.assign(out, {
    Runtimes: { 'io.containerd.runc.v2': { path: 'runc' }, 'io.containerd.runtime.v1.linux': { path: 'runc' }, runc: { path: 'runc' } },
    DefaultRuntime: 'runc',
    // A node outside a swarm; handlers/system puts a member's section in its place.
    Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
    LiveRestoreEnabled: i.liveRestore,
    Isolation: '',
    // berth starts no init process in containers (HostConfig.Init is API 1.25).
    InitBinary: '',
    ContainerdCommit: { ID: i.version.containerd.revision, Expected: i.version.containerd.revision },
    RuncCommit: { ID: i.version.runc.commit, Expected: i.version.runc.commit },
    InitCommit: { ID: '', Expected: '' },
    SecurityOptions: ['seccomp'],
    Warnings: null,
  });
  return out;
}

/** An IPv4 CIDR with its host bits cleared (`10.1.2.3/16` → `10.1.0.0/16`). */
function networkOf4(cidr: string): string {
  const [addr, p] = cidr.split('/');
  const prefix = Number(p);
  const n = addr.split('.').reduce((a, x) => a * 256 + (Number(x) & 255), 0);
  const masked = prefix === 0 ? 0 : (n & ((0xffffffff << (32 - prefix)) >>> 0)) >>> 0;
  return `${[masked >>> 24, (masked >>> 16) & 255, (masked >>> 8) & 255, masked & 255].join('.')}/${prefix}`;
}

/**
 * /info's RegistryConfig as the engine builds it: insecure CIDRs before the loopback one, insecure host names as
 * their own index configs (not secure), mirrors with a trailing slash on docker.io's index and at the top.
 */
export function toRegistryConfig(insecure: string[], mirrors: string[]): Record<string, unknown> {
  const norm = mirrors.map((m) => (m.endsWith('/') ? m : m + '/'));
  const cidrs: string[] = [];
  const index: Record<string, unknown> = { 'docker.io': { Name: 'docker.io', Mirrors: norm, Secure: true, Official: true } };
  for (const entry of insecure) {
    // the engine drops an http:// or https:// prefix, and keeps a CIDR as Go prints it (its network address)
    const r = entry.replace(/^https?:\/\//i, '');
    if (/^[0-9.]+\/\d{1,2}$/.test(r)) {
      const c = networkOf4(r);
      if (!cidrs.includes(c)) cidrs.push(c);
    } else if (/^[0-9a-fA-F:]+\/\d{1,3}$/.test(r)) {
      if (!cidrs.includes(r)) cidrs.push(r);
    } else index[r] = { Name: r, Mirrors: [], Secure: false, Official: false };
  }
  if (!cidrs.includes('127.0.0.0/8')) cidrs.push('127.0.0.0/8');
  const sorted = Object.fromEntries(Object.keys(index).sort().map((k) => [k, index[k]]));
  return { AllowNondistributableArtifactsCIDRs: [], AllowNondistributableArtifactsHostnames: [], InsecureRegistryCIDRs: cidrs, IndexConfigs: sorted, Mirrors: norm };
}
