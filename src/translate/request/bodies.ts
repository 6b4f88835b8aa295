// The request bodies the engine decodes into Go structs, described field by field (Docker Engine 20.10's types),
// each compiled once into a decoder (see schema.ts) that answers a mismatch with encoding/json's message. The same
// structs serve every API version 1.18–1.24, so one decoder per body serves every version — pure.
import type { ImageRunConfig } from '../../types/image';
import type { HostConfig } from '../../types/config';
import type { CreateNetworkRequest, EndpointConfig } from '../../types/network';
import type { ExecConfig } from '../../types/exec';
import { bodyDecoder, GoType } from './schema';

const S = 'string';
const MAP = 'map[string]string';

export const decodeExecConfig = bodyDecoder<Partial<ExecConfig> & { Cmd?: string[] | null }>('types.ExecConfig', 'ExecConfig', {
  User: S, Privileged: 'bool', Tty: 'bool', AttachStdin: 'bool', AttachStderr: 'bool', AttachStdout: 'bool', Detach: 'bool', DetachKeys: S, Env: '[]string', WorkingDir: S, Cmd: '[]string',
});

export const decodeExecStart = bodyDecoder<{ Detach?: boolean | null; Tty?: boolean | null }>('types.ExecStartCheck', 'ExecStartCheck', { Detach: 'bool', Tty: 'bool' });

export const decodeVolumeCreate = bodyDecoder<{ Name?: string; Driver?: string; DriverOpts?: Record<string, string> | null; Labels?: Record<string, string> | null }>('volume.VolumeCreateBody', 'VolumeCreateBody', {
  Driver: S, DriverOpts: MAP, Labels: MAP, Name: S,
});

const ipamConfig: GoType = { struct: 'IPAMConfig', go: 'network.IPAMConfig', fields: { Subnet: S, IPRange: S, Gateway: S, AuxiliaryAddresses: MAP } };
export const decodeNetworkCreate = bodyDecoder<CreateNetworkRequest>('types.NetworkCreateRequest', 'NetworkCreateRequest', {
  Name: S, CheckDuplicate: 'bool', Driver: S, Scope: S, EnableIPv6: 'bool', Internal: 'bool', Attachable: 'bool', Ingress: 'bool', Options: MAP, Labels: MAP,
  IPAM: { struct: 'IPAM', go: 'network.IPAM', fields: { Driver: S, Options: MAP, Config: { slice: ipamConfig } } },
});

const endpointSettings: GoType = {
  struct: 'EndpointSettings',
  go: 'network.EndpointSettings',
  fields: {
    IPAMConfig: { struct: 'EndpointIPAMConfig', go: 'network.EndpointIPAMConfig', fields: { IPv4Address: S, IPv6Address: S, LinkLocalIPs: '[]string' } },
    Links: '[]string', Aliases: '[]string', NetworkID: S, EndpointID: S, Gateway: S, IPAddress: S, IPPrefixLen: 'int', IPv6Gateway: S, GlobalIPv6Address: S, GlobalIPv6PrefixLen: 'int', MacAddress: S, DriverOpts: MAP,
  },
};
export const decodeNetworkConnect = bodyDecoder<{ Container?: string; EndpointConfig?: Partial<EndpointConfig> | null }>('types.NetworkConnect', 'NetworkConnect', { Container: S, EndpointConfig: endpointSettings });
export const decodeNetworkDisconnect = bodyDecoder<{ Container?: string; Force?: boolean }>('types.NetworkDisconnect', 'NetworkDisconnect', { Container: S, Force: 'bool' });

export const decodeAuthConfig = bodyDecoder<{ username?: string; password?: string; serveraddress?: string; identitytoken?: string; registrytoken?: string }>('types.AuthConfig', 'AuthConfig', {
  username: S, password: S, auth: S, email: S, serveraddress: S, identitytoken: S, registrytoken: S,
});

/** POST /containers/(id)/update: the Resources fields berth applies, and RestartPolicy. */
export const decodeUpdateConfig = bodyDecoder<HostConfig>('container.UpdateConfig', 'UpdateConfig', {
  CpuShares: 'int64', Memory: 'int64', NanoCpus: 'int64', CgroupParent: S, BlkioWeight: 'uint16', CpuPeriod: 'int64', CpuQuota: 'int64', CpuRealtimePeriod: 'int64', CpuRealtimeRuntime: 'int64',
  CpusetCpus: S, CpusetMems: S, KernelMemory: 'int64', KernelMemoryTCP: 'int64', MemoryReservation: 'int64', MemorySwap: 'int64', MemorySwappiness: 'int64', OomKillDisable: 'bool', PidsLimit: 'int64', CpuCount: 'int64', CpuPercent: 'int64',
  RestartPolicy: { struct: 'RestartPolicy', go: 'container.RestartPolicy', fields: { Name: S, MaximumRetryCount: 'int' } },
});

/** POST /commit's body: the run config (the engine decodes it as runconfig.ContainerConfigWrapper). */
export const decodeCommitConfig = bodyDecoder<ImageRunConfig>('runconfig.ContainerConfigWrapper', 'ContainerConfigWrapper', {
  Hostname: S, Domainname: S, User: S, AttachStdin: 'bool', AttachStdout: 'bool', AttachStderr: 'bool', Tty: 'bool', OpenStdin: 'bool', StdinOnce: 'bool', Env: '[]string', Cmd: 'strslice', Image: S,
  WorkingDir: S, Entrypoint: 'strslice', OnBuild: '[]string', Labels: MAP, StopSignal: S,
});

const mode = (name: string): GoType => ({ named: `container.${name}`, of: S });
const hostConfig: GoType = {
  struct: 'HostConfig',
  go: 'container.HostConfig',
  fields: {
    Binds: '[]string', ContainerIDFile: S, NetworkMode: mode('NetworkMode'), RestartPolicy: { struct: 'RestartPolicy', go: 'container.RestartPolicy', fields: { Name: S, MaximumRetryCount: 'int' } },
    AutoRemove: 'bool', VolumeDriver: S, VolumesFrom: '[]string', CapAdd: 'strslice', CapDrop: 'strslice', CgroupnsMode: mode('CgroupnsMode'), Dns: '[]string', DnsOptions: '[]string', DnsSearch: '[]string',
    ExtraHosts: '[]string', GroupAdd: '[]string', IpcMode: mode('IpcMode'), Cgroup: mode('CgroupSpec'), Links: '[]string', OomScoreAdj: 'int', PidMode: mode('PidMode'), Privileged: 'bool', PublishAllPorts: 'bool',
    ReadonlyRootfs: 'bool', SecurityOpt: '[]string', StorageOpt: MAP, Tmpfs: MAP, UTSMode: mode('UTSMode'), UsernsMode: mode('UsernsMode'), ShmSize: 'int64', Sysctls: MAP, Runtime: S, Isolation: mode('Isolation'),
    CpuShares: 'int64', Memory: 'int64', NanoCpus: 'int64', CgroupParent: S, BlkioWeight: 'uint16', CpuPeriod: 'int64', CpuQuota: 'int64', CpuRealtimePeriod: 'int64', CpuRealtimeRuntime: 'int64', CpusetCpus: S, CpusetMems: S,
    KernelMemory: 'int64', KernelMemoryTCP: 'int64', MemoryReservation: 'int64', MemorySwap: 'int64', MemorySwappiness: 'int64', OomKillDisable: 'bool', PidsLimit: 'int64', CpuCount: 'int64', CpuPercent: 'int64', Init: 'bool',
  },
};

/** POST /containers/create's body: container.Config with HostConfig (runconfig.ContainerConfigWrapper); Volumes is checked by
 * normaliseCreateBody, StopSignal left out (berth takes a number, as older clients send it). */
export const decodeCreateConfig = bodyDecoder<Record<string, unknown>>('runconfig.ContainerConfigWrapper', 'ContainerConfigWrapper', {
  Hostname: S, Domainname: S, User: S, AttachStdin: 'bool', AttachStdout: 'bool', AttachStderr: 'bool', Tty: 'bool', OpenStdin: 'bool', StdinOnce: 'bool', Env: '[]string', Cmd: 'strslice', Image: S,
  WorkingDir: S, Entrypoint: 'strslice', NetworkDisabled: 'bool', MacAddress: S, OnBuild: '[]string', Labels: MAP, Shell: 'strslice', ArgsEscaped: 'bool', StopTimeout: 'int',
  HostConfig: hostConfig,
});
