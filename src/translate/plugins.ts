// Pure shaping for managed plugins: the config's privileges, the 1.24 Plugin object, the plugin's OCI spec.
import type { OciMount, OciSpec } from '../types/config';
import type { PluginConfig, PluginPrivilege, PluginRecord } from '../types/plugin';

export const PLUGIN_CONFIG_MEDIA_TYPE = 'application/vnd.docker.plugin.v1+json';

/** What a plugin asks for, in the engine's order and wording (network, mount, device, allow-all-devices, capabilities). */
export function privilegesOf(c: PluginConfig): PluginPrivilege[] {
  const out: PluginPrivilege[] = [];
  if (c.Network?.Type && c.Network.Type !== 'null' && c.Network.Type !== 'bridge') out.push({ Name: 'network', Description: 'permissions to access a network', Value: [c.Network.Type] });
  for (const m of c.Mounts ?? []) if (m.Source) out.push({ Name: 'mount', Description: 'host path to mount', Value: [m.Source] });
  for (const d of c.Linux?.Devices ?? []) if (d.Path) out.push({ Name: 'device', Description: 'host device to access', Value: [d.Path] });
  if (c.Linux?.AllowAllDevices) out.push({ Name: 'allow-all-devices', Description: 'allow \'rwm\' access to all devices', Value: ['true'] });
  if (c.Linux?.Capabilities?.length) out.push({ Name: 'capabilities', Description: 'list of additional capabilities required', Value: c.Linux.Capabilities });
  return out;
}

/** The same privileges, order and values compared as the engine compares an accepted list. */
export function samePrivileges(a: PluginPrivilege[], b: PluginPrivilege[]): boolean {
  const key = (p: PluginPrivilege[]) => JSON.stringify(p.map((x) => [x.Name, [...(x.Value ?? [])].sort()]).sort());
  return key(a) === key(b);
}

/** The spec's Plugin object (API 1.24): Id, Name, Tag, Active, Config (the settings), Manifest. */
export function toPluginJSON(p: PluginRecord): Record<string, unknown> {
  const c = p.Config;
  return {
    Id: p.Id,
    Name: p.Name,
    Tag: p.Tag,
    Active: p.Enabled,
    Config: {
      Mounts: c.Mounts ?? [],
      Env: (c.Env ?? []).filter((e) => e.Value !== undefined && e.Value !== null).map((e) => `${e.Name}=${e.Value}`),
      Args: c.Args?.Value ?? [],
      Devices: c.Linux?.Devices ?? [],
    },
    Manifest: {
      ManifestVersion: 'v0',
      Description: c.Description ?? '',
      Documentation: c.Documentation ?? '',
      Interface: { Types: c.Interface?.Types ?? [], Socket: c.Interface?.Socket ?? '' },
      Entrypoint: c.Entrypoint ?? null,
      Workdir: c.WorkDir ?? '',
      User: c.User ?? {},
      Network: { Type: c.Network?.Type ?? '' },
      Capabilities: c.Linux?.Capabilities ?? null,
      Mounts: c.Mounts ?? null,
      Devices: c.Linux?.Devices ?? null,
      Env: c.Env ?? null,
      Args: { Name: c.Args?.Name ?? '', Description: c.Args?.Description ?? '', Settable: c.Args?.Settable ?? null, Value: c.Args?.Value ?? [] },
    },
  };
}

/** The engine's capabilities for a plugin task (its default set) plus those the config asks for. */
const PLUGIN_DEFAULT_CAPS = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_MKNOD', 'CAP_NET_RAW', 'CAP_SETGID', 'CAP_SETUID', 'CAP_SETFCAP', 'CAP_SETPCAP', 'CAP_NET_BIND_SERVICE', 'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE'];

export interface PluginSpecInput {
  id: string;
  config: PluginConfig;
  /** the mounted rootfs on the host */
  rootfs: string;
  /** the host folder bound at /run/docker/plugins inside the plugin */
  socketDir: string;
  /** the host folder bound rshared at PropagatedMount, when the config has one */
  propagatedDir?: string;
  cgroupsPath: string;
}

/** The OCI runtime spec of a plugin's task: entrypoint, env, args, cwd, capabilities, mounts, devices, network. */
export function toPluginSpec(i: PluginSpecInput): OciSpec {
  const c = i.config;
  const caps = [...new Set([...PLUGIN_DEFAULT_CAPS, ...(c.Linux?.Capabilities ?? [])])];
  const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...(c.Env ?? []).filter((e) => e.Value !== undefined && e.Value !== null).map((e) => `${e.Name}=${e.Value}`)];
  const mounts: OciMount[] = [
    { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
    { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
    { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] },
    { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
    { destination: '/run/docker/plugins', type: 'bind', source: i.socketDir, options: ['rbind', 'rprivate'] },
  ];
  if (i.propagatedDir && c.PropagatedMount) mounts.push({ destination: c.PropagatedMount, type: 'bind', source: i.propagatedDir, options: ['rbind', 'rshared'] });
  for (const m of c.Mounts ?? []) if (m.Source) mounts.push({ destination: m.Destination, type: m.Type || 'bind', source: m.Source, options: m.Options?.length ? m.Options : ['rbind', 'rprivate'] });
  // devices are bound from the host (their paths are privileges the user accepted) and allowed in the cgroup
  const devices = (c.Linux?.Devices ?? []).flatMap((d) => (d.Path ? [d.Path] : []));
  for (const d of devices) mounts.push({ destination: d, type: 'bind', source: d, options: ['rbind', 'rprivate'] });
  const allowAll = !!c.Linux?.AllowAllDevices || devices.length > 0;
  const namespaces = [{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }, ...(c.Network?.Type === 'host' ? [] : [{ type: 'network' }])];
  return {
    ociVersion: '1.0.2-dev',
    process: {
      terminal: false,
      user: { uid: c.User?.UID ?? 0, gid: c.User?.GID ?? 0 },
      args: [...(c.Entrypoint ?? []), ...(c.Args?.Value ?? [])],
      env,
      cwd: c.WorkDir || '/',
      capabilities: { bounding: caps, effective: caps, permitted: caps },
      noNewPrivileges: false,
    },
    root: { path: i.rootfs, readonly: false },
    hostname: '',
    mounts,
    linux: {
      namespaces,
      cgroupsPath: i.cgroupsPath,
      resources: { devices: [{ allow: false, access: 'rwm' }, ...(allowAll ? [{ allow: true, access: 'rwm' }] : [])] },
      maskedPaths: ['/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/sys/firmware'],
      readonlyPaths: ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}
