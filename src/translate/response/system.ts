// /version and /info bodies, per API version — pure.
import { ApiVersion, MAX_API_VERSION, supports } from '../version/features';
import type { SystemInfo, VersionInfo } from '../../types/system';

export function toVersionJSON(v: VersionInfo): Record<string, unknown> {
  return {
    Version: v.version,
    ApiVersion: MAX_API_VERSION,
    GitCommit: v.gitCommit,
    GoVersion: `node ${v.runtime}`,
    Os: v.os,
    Arch: v.arch,
    KernelVersion: v.kernelVersion,
    Experimental: false,
    BuildTime: v.buildTime,
  };
}

export function toInfoJSON(i: SystemInfo, version: ApiVersion): Record<string, unknown> {
  const runtimeLine = `containerd ${i.version.containerd.version}, runc ${i.version.runc.version}`;
  const out: Record<string, unknown> = {
    ID: i.id,
    Containers: i.counts.total,
    ContainersRunning: i.counts.running,
    ContainersPaused: i.counts.paused,
    ContainersStopped: i.counts.stopped,
    Images: i.images,
    Driver: 'overlayfs',
    DriverStatus: [
      ['Backing Filesystem', i.backingFs],
      ['Snapshotter', 'containerd overlayfs'],
    ],
    SystemStatus: null,
    Plugins: { Volume: i.volumeDrivers, Network: ['bridge', 'host', 'null'], Authorization: null },
    MemoryLimit: i.memoryLimit,
    SwapLimit: i.swapLimit,
    KernelMemory: i.kernelMemory,
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
    CgroupDriver: 'cgroupfs',
    NEventsListener: i.nEventsListener,
    KernelVersion: i.kernelVersion,
    OperatingSystem: i.operatingSystem,
    OSType: 'linux',
    Architecture: i.architecture,
    IndexServerAddress: 'https://index.docker.io/v1/',
    RegistryConfig: toRegistryConfig(i.insecureRegistries, i.registryMirrors),
    InitSha1: '',
    InitPath: '',
    NCPU: i.ncpu,
    MemTotal: i.memTotal,
    DockerRootDir: i.dataRoot,
    HttpProxy: i.httpProxy,
    HttpsProxy: i.httpsProxy,
    NoProxy: i.noProxy,
    Name: i.name,
    Labels: i.labels,
    ExperimentalBuild: false,
    ServerVersion: i.version.version,
    ClusterStore: '',
    ClusterAdvertise: '',
  };
  if (supports(version, 'InfoSwarm')) {
    Object.assign(out, {
      SecurityOptions: [],
      Runtimes: { runc: { path: 'runc' } },
      DefaultRuntime: 'runc',
      Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null, Nodes: 0, Managers: 0, Cluster: { ID: '', Version: {}, CreatedAt: '0001-01-01T00:00:00Z', UpdatedAt: '0001-01-01T00:00:00Z', Spec: { Orchestration: {}, Raft: { ElectionTick: 0, HeartbeatTick: 0 }, Dispatcher: {}, CAConfig: {}, TaskDefaults: {} } } },
      LiveRestoreEnabled: i.liveRestore,
    });
  }
  return out;
}

/**
 * /info's RegistryConfig as the engine builds it: insecure CIDRs before the loopback one, insecure host names as
 * their own index configs (not secure), mirrors with a trailing slash on docker.io's index and at the top.
 */
export function toRegistryConfig(insecure: string[], mirrors: string[]): Record<string, unknown> {
  const norm = mirrors.map((m) => (m.endsWith('/') ? m : m + '/'));
  const cidrs: string[] = [];
  const index: Record<string, unknown> = { 'docker.io': { Name: 'docker.io', Mirrors: norm, Secure: true, Official: true } };
  for (const r of insecure) {
    if (/^[0-9.]+\/\d{1,2}$/.test(r) || /^[0-9a-fA-F:]+\/\d{1,3}$/.test(r)) {
      if (!cidrs.includes(r)) cidrs.push(r);
    } else index[r] = { Name: r, Mirrors: [], Secure: false, Official: false };
  }
  if (!cidrs.includes('127.0.0.0/8')) cidrs.push('127.0.0.0/8');
  const sorted = Object.fromEntries(Object.keys(index).sort().map((k) => [k, index[k]]));
  return { InsecureRegistryCIDRs: cidrs, IndexConfigs: sorted, Mirrors: norm };
}
