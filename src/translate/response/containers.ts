// Container inspect and list bodies per API version — pure (gather, then shape).
import { ApiVersion, HOST_CONFIG_FIELD_FEATURES, supports } from '../version/features';
import { MASKED, READONLY } from '../spec';
import type { ContainerRecord, HealthState } from '../../types/container';
import type { PortBinding } from '../../types/network';
import { own } from '../own';
import { storageDriverName } from './storage-driver';

/** go-units HumanDuration. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 1) return 'Less than a second';
  if (s === 1) return '1 second';
  if (s < 60) return `${s} seconds`;
  const m = Math.floor(s / 60);
  if (m === 1) return 'About a minute';
  if (m < 60) return `${m} minutes`;
  const h = Math.round(ms / 3_600_000);
  if (h === 1) return 'About an hour';
  if (h < 48) return `${h} hours`;
  if (h < 24 * 7 * 2) return `${Math.floor(h / 24)} days`;
  if (h < 24 * 30 * 2) return `${Math.floor(h / 24 / 7)} weeks`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24 / 30)} months`;
  return `${Math.floor(h / 24 / 365)} years`;
}

const parseMs = (t: string): number => Date.parse(t);
/** Go's zero time: StartedAt of a container that never started. */
const NEVER = '0001-01-01T00:00:00Z';

/** The list's status suffix of a container with a healthcheck. */
export function healthSuffix(h: HealthState | undefined): string {
  if (!h) return '';
  return h.Status === 'starting' ? ' (health: starting)' : ` (${h.Status})`;
}

export function statusText(rec: ContainerRecord, nowMs: number): string {
  const st = rec.State;
  if (st.Status === 'removing') return 'Removal In Progress';
  if (st.Dead) return 'Dead';
  if (st.Running) {
    const up = `Up ${humanDuration(nowMs - parseMs(st.StartedAt))}`;
    return st.Paused ? `${up} (Paused)` : up + healthSuffix(st.Health);
  }
  if (st.Restarting) return `Restarting (${st.ExitCode}) ${humanDuration(nowMs - parseMs(st.FinishedAt))} ago`;
  if (st.StartedAt === NEVER) return 'Created';
  return `Exited (${st.ExitCode}) ${humanDuration(nowMs - parseMs(st.FinishedAt))} ago`;
}

export function stateName(rec: ContainerRecord): string {
  const st = rec.State;
  if (st.Running && st.Paused) return 'paused';
  if (st.Running) return 'running';
  return st.Status === 'running' || st.Status === 'paused' ? 'exited' : st.Status;
}

/**
 * The list's Command, as the engine writes it (asked of the 20.10 reference): the path, then each argument that holds
 * a space in single quotes, as it is (no escaping: `sh -c 'echo 'a b''`), others bare (a tab or newline included);
 * the path alone when there are no arguments, `echo ` for one empty argument.
 */
export function listCommand(pathName: string, args: string[] | undefined): string {
  if (!args?.length) return pathName;
  return `${pathName} ${args.map((a) => (a.includes(' ') ? `'${a}'` : a)).join(' ')}`;
}

export interface ShapeExtras {
  sizeRw?: number;
  sizeRootFs?: number;
  execIds?: string[];
  /** GraphDriver.Data (the snapshot's directories); null when unknown. */
  graphDriverData?: Record<string, string> | null;
}

function inspectConfig(rec: ContainerRecord, v: ApiVersion): Record<string, unknown> {
  const c = rec.Config;
  const out: Record<string, unknown> = {
    Hostname: c.Hostname ?? '',
    Domainname: c.Domainname ?? '',
    User: c.User ?? '',
    AttachStdin: !!c.AttachStdin,
    AttachStdout: !!c.AttachStdout,
    AttachStderr: !!c.AttachStderr,
  };
  if (c.ExposedPorts && Object.keys(c.ExposedPorts).length) out.ExposedPorts = c.ExposedPorts;
  Object.assign(out, { Tty: !!c.Tty, OpenStdin: !!c.OpenStdin, StdinOnce: !!c.StdinOnce, Env: c.Env ?? null, Cmd: c.Cmd ?? null });
  if (c.Healthcheck && supports(v, 'Healthcheck')) out.Healthcheck = c.Healthcheck;
  Object.assign(out, { Image: c.Image ?? '', Volumes: c.Volumes && Object.keys(c.Volumes).length ? c.Volumes : null, WorkingDir: c.WorkingDir ?? '', Entrypoint: c.Entrypoint ?? null });
  // From 1.21 the engine's Config leaves these two out when unset (omitempty); up to 1.20 they are always shown below.
  if (supports(v, 'InspectConfigOmitsUnsetNetwork')) {
    if (c.NetworkDisabled) out.NetworkDisabled = true;
    if (c.MacAddress) out.MacAddress = c.MacAddress;
  }
  Object.assign(out, { OnBuild: c.OnBuild ?? null, Labels: c.Labels ?? {} });
  if (c.StopSignal && supports(v, 'StopSignal')) out.StopSignal = c.StopSignal;
  if (supports(v, 'ConfigPortSpecs')) out.PortSpecs = null;
  if (!supports(v, 'InspectConfigOmitsUnsetNetwork')) Object.assign(out, { MacAddress: c.MacAddress ?? '', NetworkDisabled: !!c.NetworkDisabled, ExposedPorts: c.ExposedPorts ?? null, VolumeDriver: rec.HostConfig.VolumeDriver ?? '' });
  if (supports(v, 'InspectConfigResources')) {
    const hc = rec.HostConfig;
    Object.assign(out, { Memory: hc.Memory ?? 0, MemorySwap: hc.MemorySwap ?? 0, CpuShares: hc.CpuShares ?? 0, Cpuset: hc.CpusetCpus ?? '' });
  }
  return out;
}

function inspectHostConfig(rec: ContainerRecord, v: ApiVersion): Record<string, unknown> {
  const out = inspectHostConfigFields(rec);
  for (const [field, feature] of Object.entries(HOST_CONFIG_FIELD_FEATURES)) if (!supports(v, feature)) delete out[field];
  return out;
}

function inspectHostConfigFields(rec: ContainerRecord): Record<string, unknown> {
  const hc = rec.HostConfig;
  return {
    Binds: hc.Binds ?? null,
    ContainerIDFile: hc.ContainerIDFile ?? '',
    LogConfig: hc.LogConfig ?? { Type: 'json-file', Config: {} },
    NetworkMode: hc.NetworkMode ?? 'default',
    PortBindings: hc.PortBindings ?? null,
    RestartPolicy: hc.RestartPolicy ?? { Name: 'no', MaximumRetryCount: 0 },
    AutoRemove: !!hc.AutoRemove,
    VolumeDriver: hc.VolumeDriver ?? '',
    VolumesFrom: hc.VolumesFrom ?? null,
    CapAdd: hc.CapAdd ?? null,
    CapDrop: hc.CapDrop ?? null,
    Dns: hc.Dns ?? null,
    DnsOptions: hc.DnsOptions ?? null,
    DnsSearch: hc.DnsSearch ?? null,
    ExtraHosts: hc.ExtraHosts ?? null,
    GroupAdd: hc.GroupAdd ?? null,
    // The engine's default for API clients before 1.40: a private namespace that others may join (container:<id>).
    IpcMode: hc.IpcMode || 'shareable',
    Cgroup: hc.Cgroup ?? '',
    Links: hc.Links ?? null,
    OomScoreAdj: hc.OomScoreAdj ?? 0,
    PidMode: hc.PidMode ?? '',
    Privileged: !!hc.Privileged,
    PublishAllPorts: !!hc.PublishAllPorts,
    ReadonlyRootfs: !!hc.ReadonlyRootfs,
    SecurityOpt: hc.SecurityOpt ?? null,
    StorageOpt: hc.StorageOpt ?? undefined,
    Tmpfs: hc.Tmpfs ?? undefined,
    UTSMode: hc.UTSMode ?? '',
    UsernsMode: hc.UsernsMode ?? '',
    ShmSize: hc.ShmSize || 67108864,
    Sysctls: hc.Sysctls ?? undefined,
    // Omitted (empty) for a container created without a HostConfig, as the reference does.
    Runtime: hc.Runtime === '' ? undefined : (hc.Runtime ?? 'runc'),
    ConsoleSize: hc.ConsoleSize ?? [0, 0],
    Isolation: hc.Isolation ?? '',
    CpuShares: hc.CpuShares ?? 0,
    Memory: hc.Memory ?? 0,
    CgroupParent: hc.CgroupParent ?? '',
    BlkioWeight: hc.BlkioWeight ?? 0,
    BlkioWeightDevice: hc.BlkioWeightDevice ?? null,
    BlkioDeviceReadBps: hc.BlkioDeviceReadBps ?? null,
    BlkioDeviceWriteBps: hc.BlkioDeviceWriteBps ?? null,
    BlkioDeviceReadIOps: hc.BlkioDeviceReadIOps ?? null,
    BlkioDeviceWriteIOps: hc.BlkioDeviceWriteIOps ?? null,
    CpuPeriod: hc.CpuPeriod ?? 0,
    CpuQuota: hc.CpuQuota ?? 0,
    CpusetCpus: hc.CpusetCpus ?? '',
    CpusetMems: hc.CpusetMems ?? '',
    Devices: hc.Devices ?? null,
    KernelMemory: hc.KernelMemory ?? 0,
    MemoryReservation: hc.MemoryReservation ?? 0,
    MemorySwap: hc.MemorySwap ?? 0,
    MemorySwappiness: hc.MemorySwappiness ?? null,
    OomKillDisable: !!hc.OomKillDisable,
    PidsLimit: hc.PidsLimit ?? null,
    Ulimits: hc.Ulimits ?? null,
    CpuCount: hc.CpuCount ?? 0,
    CpuPercent: hc.CpuPercent ?? 0,
    IOMaximumIOps: hc.IOMaximumIOps ?? 0,
    IOMaximumBandwidth: hc.IOMaximumBandwidth ?? 0,
    // HostConfig.Mounts as given (omitted when empty, as the reference's omitempty)
    Mounts: hc.Mounts?.length ? hc.Mounts : undefined,
    // Fields of API versions after 1.24 that the reference sends at every version (the spec's HostConfig table is
    // silent on them): berth's values for them (no cgroup namespace, no realtime or NanoCpus limits, no device rules
    // or requests; the default masked and read-only paths, none when privileged).
    CgroupnsMode: 'host',
    NanoCpus: 0,
    CpuRealtimePeriod: 0,
    CpuRealtimeRuntime: 0,
    DeviceCgroupRules: null,
    DeviceRequests: null,
    KernelMemoryTCP: 0,
    MaskedPaths: hc.Privileged ? null : [...MASKED],
    ReadonlyPaths: hc.Privileged ? null : [...READONLY],
  };
}

/** Mounts of inspect, or of the list (`inList`), where the reference shows an anonymous volume with no Source. */
export function toMounts(rec: ContainerRecord, v: ApiVersion, inList = false): Record<string, unknown>[] {
  return (rec.MountPoints ?? []).map((m) => {
    // Type is not in the spec's mount object; the reference sends it wherever Mounts is sent.
    const out: Record<string, unknown> = { Type: m.Type };
    if (m.Name !== undefined && supports(v, 'MountNameDriverPropagation')) out.Name = m.Name;
    Object.assign(out, { Source: inList && m.Anonymous ? '' : m.Source, Destination: m.Destination });
    if (supports(v, 'MountNameDriverPropagation') && m.Driver) out.Driver = m.Driver;
    Object.assign(out, { Mode: m.Mode, RW: m.RW });
    if (supports(v, 'MountNameDriverPropagation')) out.Propagation = m.Type === 'bind' ? m.Propagation : '';
    return out;
  });
}

/** One NetworkSettings.Networks entry: the configured endpoint, with its live addresses while the container runs. */
function endpoint(rec: ContainerRecord, name: string, inspect: boolean): Record<string, unknown> {
  const cfg = own(rec.Networks, name);
  const ep = own(rec.Endpoints, name);
  let aliases: string[] | null = cfg?.Aliases?.length ? [...cfg.Aliases] : null;
  // the short id, added to a user-defined network's aliases when the container joins it, stays after it stops
  const short = rec.Id.slice(0, 12);
  if ((ep || rec.State.StartedAt !== NEVER) && !PREDEFINED_NETWORKS.includes(name) && !aliases?.includes(short)) aliases = [...(aliases ?? []), short];
  return {
    IPAMConfig: cfg?.IPAMConfig ?? null, Links: cfg?.Links ?? null, Aliases: inspect ? aliases : null,
    // The engine fills NetworkID in when the container first joins the network, at its first start.
    NetworkID: rec.State.StartedAt !== NEVER ? (cfg?.NetworkID ?? '') : '', EndpointID: ep?.endpointId ?? '',
    Gateway: ep?.gateway ?? '', IPAddress: ep?.ip ?? '', IPPrefixLen: ep?.prefixLen ?? 0,
    IPv6Gateway: ep?.gateway6 ?? '', GlobalIPv6Address: ep?.ip6 ?? '', GlobalIPv6PrefixLen: ep?.prefixLen6 ?? 0, MacAddress: ep?.mac ?? '',
    DriverOpts: null,
  };
}

const PREDEFINED_NETWORKS = ['bridge', 'host', 'none'];

function networksOf(rec: ContainerRecord, inspect: boolean): Record<string, unknown> {
  return Object.fromEntries(Object.keys(rec.Networks ?? {}).map((n) => [n, endpoint(rec, n, inspect)]));
}

/** The endpoint whose ports are published (the NetworkMode network's). */
function portsOf(rec: ContainerRecord): Record<string, PortBinding[] | null> {
  return Object.values(rec.Endpoints ?? {}).find((e) => Object.keys(e.ports ?? {}).length > 0)?.ports ?? {};
}

/** The list's Ports: one entry per published binding, or the bare private port. */
function listPorts(rec: ContainerRecord): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const ports = portsOf(rec);
  for (const [key, binds] of Object.entries(ports)) {
    const [p, type] = key.split('/');
    if (!binds || binds.length === 0) out.push({ PrivatePort: Number(p), Type: type });
    else for (const b of binds) out.push({ IP: b.HostIp, PrivatePort: Number(p), PublicPort: Number(b.HostPort), Type: type });
  }
  return out;
}

function inspectNetworkSettings(rec: ContainerRecord, v: ApiVersion): Record<string, unknown> {
  const eps = Object.values(rec.Endpoints ?? {});
  const ep = rec.Endpoints?.bridge;
  const ports = !rec.State.Running && supports(v, 'InspectPortsNullWhenStopped') ? null : portsOf(rec);
  const out: Record<string, unknown> = { Bridge: ep ? 'bridge' : '', Gateway: ep?.gateway ?? '', IPAddress: ep?.ip ?? '', IPPrefixLen: ep?.prefixLen ?? 0, MacAddress: ep?.mac ?? '', Ports: ports };
  if (supports(v, 'InspectPortMapping')) out.PortMapping = null;
  if (supports(v, 'InspectNetworks')) {
    // The sandbox (the container's named netns) from its first start on, as the engine's: it keeps naming the last
    // one after the container stops (the namespace itself is gone then, and a new one is made at the next start).
    const mode = rec.HostConfig.NetworkMode || 'default';
    const sandbox = eps.length > 0 || (rec.State.StartedAt !== NEVER && mode !== 'host' && !mode.startsWith('container:'));
    Object.assign(out, {
      SandboxID: sandbox ? rec.Id : '', HairpinMode: false, LinkLocalIPv6Address: '', LinkLocalIPv6PrefixLen: 0, SandboxKey: sandbox ? `/var/run/netns/berth-${rec.Id.slice(0, 16)}` : '',
      SecondaryIPAddresses: null, SecondaryIPv6Addresses: null, EndpointID: ep?.endpointId ?? '', GlobalIPv6Address: ep?.ip6 ?? '', GlobalIPv6PrefixLen: ep?.prefixLen6 ?? 0, IPv6Gateway: ep?.gateway6 ?? '',
      Networks: networksOf(rec, true),
    });
  }
  return out;
}

export function toContainerInspect(rec: ContainerRecord, v: ApiVersion, x: ShapeExtras = {}): Record<string, unknown> {
  const st = rec.State;
  const started = st.StartedAt !== NEVER;
  const state: Record<string, unknown> = {};
  if (supports(v, 'InspectStateDeadStatus')) state.Status = stateName(rec);
  // (a container whose restart policy waits to restart it is running to the engine: Running with Restarting)
  Object.assign(state, { Running: st.Running || st.Restarting, Paused: st.Paused, Restarting: st.Restarting, OOMKilled: st.OOMKilled });
  if (supports(v, 'InspectStateDeadStatus')) state.Dead = st.Dead;
  Object.assign(state, { Pid: st.Pid, ExitCode: st.ExitCode, Error: st.Error, StartedAt: st.StartedAt, FinishedAt: st.FinishedAt });
  if (st.Health && supports(v, 'Healthcheck')) state.Health = st.Health;
  const out: Record<string, unknown> = {
    Id: rec.Id,
    Created: rec.Created,
    Path: rec.Path,
    Args: rec.Args,
    State: state,
    Image: rec.Image,
    // The engine makes these files when the container first starts and shows them from then on.
    ResolvConfPath: started ? rec.ResolvConfPath : '',
    HostnamePath: started ? rec.HostnamePath : '',
    HostsPath: started ? rec.HostsPath : '',
    LogPath: started ? rec.LogPath : '',
    Name: rec.Name,
    RestartCount: rec.RestartCount,
    Driver: storageDriverName(rec.Driver),
    Platform: 'linux',
  };
  if (supports(v, 'InspectExecDriver')) out.ExecDriver = 'containerd';
  Object.assign(out, { MountLabel: '', ProcessLabel: '', AppArmorProfile: '', ExecIDs: x.execIds?.length ? x.execIds : null, HostConfig: inspectHostConfig(rec, v), GraphDriver: { Data: x.graphDriverData ?? null, Name: storageDriverName(rec.Driver) } });
  if (x.sizeRw !== undefined && supports(v, 'InspectSize')) {
    out.SizeRw = x.sizeRw;
    out.SizeRootFs = x.sizeRootFs ?? 0;
  }
  if (supports(v, 'InspectVolumesRW')) {
    out.Volumes = Object.fromEntries((rec.MountPoints ?? []).map((m) => [m.Destination, m.Source]));
    out.VolumesRW = Object.fromEntries((rec.MountPoints ?? []).map((m) => [m.Destination, m.RW]));
  }
  if (supports(v, 'InspectMounts')) out.Mounts = toMounts(rec, v);
  out.Config = inspectConfig(rec, v);
  out.NetworkSettings = inspectNetworkSettings(rec, v);
  return out;
}

export function toContainerSummary(rec: ContainerRecord, v: ApiVersion, nowMs: number, x: ShapeExtras = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Id: rec.Id,
    Names: [rec.Name],
    Image: rec.ImageName,
  };
  if (supports(v, 'ListImageID')) out.ImageID = rec.Image;
  Object.assign(out, {
    Command: listCommand(rec.Path ?? '', rec.Args),
    Created: Math.floor(Date.parse(rec.Created) / 1000),
    Ports: listPorts(rec),
  });
  // The list leaves out a zero size (omitempty), inspect shows both whenever sizes were asked for.
  if (x.sizeRw) out.SizeRw = x.sizeRw;
  if (x.sizeRootFs) out.SizeRootFs = x.sizeRootFs;
  out.Labels = rec.Config.Labels ?? {};
  if (supports(v, 'ListState')) out.State = stateName(rec);
  out.Status = statusText(rec, nowMs);
  if (supports(v, 'ListHostConfig')) out.HostConfig = { NetworkMode: rec.HostConfig.NetworkMode ?? 'default' };
  if (supports(v, 'ListNetworkSettings')) out.NetworkSettings = { Networks: networksOf(rec, false) };
  if (supports(v, 'ListMounts')) out.Mounts = toMounts(rec, v, true);
  return out;
}
