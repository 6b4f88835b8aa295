// System facts for /version and /info — types only.

export interface ContainerCounts {
  total: number;
  running: number;
  paused: number;
  stopped: number;
}

export interface VersionInfo {
  version: string;
  gitCommit: string;
  runtime: string; // node version
  os: string;
  arch: string;
  kernelVersion: string;
  buildTime: string;
  containerd: { version: string; revision: string };
  runc: { version: string; commit: string };
}

export interface SystemInfo {
  id: string;
  name: string;
  counts: ContainerCounts;
  images: number;
  ncpu: number;
  memTotal: number;
  kernelVersion: string;
  operatingSystem: string;
  osVersion: string;
  architecture: string;
  dataRoot: string;
  nfd: number;
  nHandles: number;
  nEventsListener: number;
  /** the volume drivers /info lists: local and the legacy plugins used so far */
  volumeDrivers: string[];
  /** configured authorization plugins, in order */
  authorizationPlugins: string[];
  systemTime: string;
  cgroupVersion: '1' | '2';
  memoryLimit: boolean;
  swapLimit: boolean;
  kernelMemory: boolean;
  cpuCfs: boolean;
  cpuShares: boolean;
  cpuSet: boolean;
  pidsLimit: boolean;
  oomKillDisable: boolean;
  ipv4Forwarding: boolean;
  bridgeNfIptables: boolean;
  bridgeNfIp6tables: boolean;
  backingFs: string;
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
  debug: boolean;
  /** daemon.json / flags, live (a SIGHUP reload shows at once) */
  labels: string[];
  loggingDriver: string;
  insecureRegistries: string[];
  registryMirrors: string[];
  liveRestore: boolean;
  /** exec-opts native.cgroupdriver */
  cgroupDriver: 'cgroupfs' | 'systemd';
  /** `--cluster-store` as given, '' without it */
  clusterStore: string;
  version: VersionInfo;
}
