// Wire types (Docker's field names) and the OCI runtime spec subset berth writes — types only.

export interface HealthConfig {
  Test?: string[];
  Interval?: number;
  Timeout?: number;
  Retries?: number;
  StartPeriod?: number;
}

export interface ContainerConfig {
  Hostname?: string;
  Domainname?: string;
  User?: string;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  ExposedPorts?: Record<string, object> | null;
  Tty?: boolean;
  OpenStdin?: boolean;
  StdinOnce?: boolean;
  Env?: string[] | null;
  Cmd?: string[] | null;
  Healthcheck?: HealthConfig | null;
  ArgsEscaped?: boolean;
  Image?: string;
  Volumes?: Record<string, object> | null;
  WorkingDir?: string;
  Entrypoint?: string[] | null;
  NetworkDisabled?: boolean;
  MacAddress?: string;
  OnBuild?: string[] | null;
  Labels?: Record<string, string> | null;
  StopSignal?: string;
  StopTimeout?: number;
}

export interface DeviceMapping {
  PathOnHost: string;
  PathInContainer: string;
  CgroupPermissions: string;
}

export interface ThrottleDevice {
  Path: string;
  Rate: number;
}

export interface WeightDevice {
  Path: string;
  Weight: number;
}

export interface Ulimit {
  Name: string;
  Soft: number;
  Hard: number;
}

/** HostConfig.Mounts (mount.Mount): sent by the docker CLI's --mount at every version; the reference honours it. */
export interface MountSpec {
  Type?: string;
  Source?: string;
  Target?: string;
  ReadOnly?: boolean;
  Consistency?: string;
  BindOptions?: { Propagation?: string; NonRecursive?: boolean } | null;
  VolumeOptions?: { NoCopy?: boolean; Labels?: Record<string, string> | null; DriverConfig?: { Name?: string; Options?: Record<string, string> | null } | null } | null;
  TmpfsOptions?: { SizeBytes?: number; Mode?: number } | null;
}

export interface HostConfig {
  Binds?: string[] | null;
  Mounts?: MountSpec[] | null;
  ContainerIDFile?: string;
  LogConfig?: { Type: string; Config: Record<string, string> };
  NetworkMode?: string;
  PortBindings?: Record<string, { HostIp?: string; HostPort?: string }[] | null> | null;
  RestartPolicy?: { Name: string; MaximumRetryCount: number };
  AutoRemove?: boolean;
  VolumeDriver?: string;
  VolumesFrom?: string[] | null;
  CapAdd?: string[] | null;
  CapDrop?: string[] | null;
  Dns?: string[] | null;
  DnsOptions?: string[] | null;
  DnsSearch?: string[] | null;
  ExtraHosts?: string[] | null;
  GroupAdd?: string[] | null;
  IpcMode?: string;
  Cgroup?: string;
  Links?: string[] | null;
  OomScoreAdj?: number;
  PidMode?: string;
  Privileged?: boolean;
  PublishAllPorts?: boolean;
  ReadonlyRootfs?: boolean;
  SecurityOpt?: string[] | null;
  StorageOpt?: Record<string, string> | null;
  Tmpfs?: Record<string, string> | null;
  UTSMode?: string;
  UsernsMode?: string;
  ShmSize?: number;
  Sysctls?: Record<string, string> | null;
  Runtime?: string;
  ConsoleSize?: [number, number];
  Isolation?: string;
  CpuShares?: number;
  Memory?: number;
  CgroupParent?: string;
  BlkioWeight?: number;
  BlkioWeightDevice?: WeightDevice[] | null;
  BlkioDeviceReadBps?: ThrottleDevice[] | null;
  BlkioDeviceWriteBps?: ThrottleDevice[] | null;
  BlkioDeviceReadIOps?: ThrottleDevice[] | null;
  BlkioDeviceWriteIOps?: ThrottleDevice[] | null;
  CpuPeriod?: number;
  CpuQuota?: number;
  CpusetCpus?: string;
  CpusetMems?: string;
  Devices?: DeviceMapping[] | null;
  DiskQuota?: number;
  KernelMemory?: number;
  MemoryReservation?: number;
  MemorySwap?: number;
  MemorySwappiness?: number | null;
  OomKillDisable?: boolean | null;
  PidsLimit?: number | null;
  Ulimits?: Ulimit[] | null;
  CpuCount?: number;
  CpuPercent?: number;
  IOMaximumIOps?: number;
  IOMaximumBandwidth?: number;
  LxcConf?: unknown;
}

export interface OciMount {
  destination: string;
  type: string;
  source: string;
  options: string[];
}

export interface OciDevice {
  path: string;
  type: string;
  major: number;
  minor: number;
  fileMode?: number;
  uid?: number;
  gid?: number;
}

export interface OciDeviceRule {
  allow: boolean;
  type?: string;
  major?: number;
  minor?: number;
  access?: string;
}

export interface OciSpec {
  ociVersion: string;
  process: {
    terminal?: boolean;
    consoleSize?: { height: number; width: number };
    user: { uid: number; gid: number; additionalGids?: number[] };
    args: string[];
    env: string[];
    cwd: string;
    capabilities: { bounding: string[]; effective: string[]; permitted: string[]; inheritable?: string[]; ambient?: string[] };
    rlimits?: { type: string; hard: number; soft: number }[];
    noNewPrivileges?: boolean;
    apparmorProfile?: string;
    oomScoreAdj?: number;
    selinuxLabel?: string;
  };
  root: { path: string; readonly?: boolean };
  hostname?: string;
  domainname?: string;
  mounts: OciMount[];
  linux: {
    sysctl?: Record<string, string>;
    resources: {
      devices: OciDeviceRule[];
      memory?: { limit?: number; reservation?: number; swap?: number; kernel?: number; swappiness?: number; disableOOMKiller?: boolean };
      cpu?: { shares?: number; quota?: number; period?: number; cpus?: string; mems?: string };
      pids?: { limit: number };
      blockIO?: {
        weight?: number;
        weightDevice?: { major: number; minor: number; weight: number }[];
        throttleReadBpsDevice?: { major: number; minor: number; rate: number }[];
        throttleWriteBpsDevice?: { major: number; minor: number; rate: number }[];
        throttleReadIOPSDevice?: { major: number; minor: number; rate: number }[];
        throttleWriteIOPSDevice?: { major: number; minor: number; rate: number }[];
      };
    };
    cgroupsPath: string;
    namespaces: { type: string; path?: string }[];
    devices?: OciDevice[];
    seccomp?: unknown;
    maskedPaths?: string[];
    readonlyPaths?: string[];
    mountLabel?: string;
    rootfsPropagation?: string;
  };
}
