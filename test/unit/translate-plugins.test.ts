// translate/plugins, pure: what the plugins area (src/plugins/service.ts, handlers/plugins.ts) asks of it — the
// privileges a plugin config asks for and their comparison, the 1.24 Plugin object (the seed's shape), and the OCI
// spec of a plugin's task.
import { PLUGIN_CONFIG_MEDIA_TYPE, privilegesOf, samePrivileges, toPluginJSON, toPluginSpec } from '../../src/translate/plugins';
import type { PluginConfig, PluginRecord } from '../../src/types/plugin';

const full: PluginConfig = {
  Description: 'a volume plugin',
  Documentation: 'https://example.com/doc',
  Interface: { Types: ['docker.volumedriver/1.0'], Socket: 'p.sock' },
  Entrypoint: ['/p', 'serve'],
  WorkDir: '/w',
  User: { UID: 1, GID: 2 },
  Network: { Type: 'host' },
  Linux: { Capabilities: ['CAP_SYS_ADMIN', 'CAP_CHOWN'], AllowAllDevices: false, Devices: [{ Name: 'fuse', Path: '/dev/fuse' }, { Name: 'unset', Path: null }] },
  Mounts: [
    { Name: 'state', Source: '/var/lib/p', Destination: '/state', Type: 'bind', Options: ['rbind', 'rw'] },
    { Name: 'settable', Source: null, Destination: '/later', Type: 'bind', Settable: ['source'] },
    { Name: 'plain', Source: '/srv', Destination: '/srv', Type: '', Options: [] },
  ],
  PropagatedMount: '/data',
  Env: [{ Name: 'DEBUG', Value: '1' }, { Name: 'UNSET', Value: null }, { Name: 'MISSING' }],
  Args: { Name: 'args', Description: 'extra', Settable: ['value'], Value: ['--x'] },
};
const record = (Config: PluginConfig): PluginRecord => ({ Id: 'a'.repeat(64), Name: 'vol', Tag: 'latest', Reference: '127.0.0.1:5000/vol:latest', Config, ConfigDigest: 'sha256:' + 'c'.repeat(64), Layers: [], Enabled: true });

test('the plugin config media type', () => {
  expect(PLUGIN_CONFIG_MEDIA_TYPE).toBe('application/vnd.docker.plugin.v1+json');
});

describe('privilegesOf', () => {
  test('network (not bridge or null), mounts with a source, devices with a path, allow-all-devices, capabilities — in that order', () => {
    expect(privilegesOf({ ...full, Linux: { ...full.Linux, AllowAllDevices: true } })).toEqual([
      { Name: 'network', Description: 'permissions to access a network', Value: ['host'] },
      { Name: 'mount', Description: 'host path to mount', Value: ['/var/lib/p'] },
      { Name: 'mount', Description: 'host path to mount', Value: ['/srv'] },
      { Name: 'device', Description: 'host device to access', Value: ['/dev/fuse'] },
      { Name: 'allow-all-devices', Description: "allow 'rwm' access to all devices", Value: ['true'] },
      { Name: 'capabilities', Description: 'list of additional capabilities required', Value: ['CAP_SYS_ADMIN', 'CAP_CHOWN'] },
    ]);
  });
  test('a config that asks for nothing: no privileges', () => {
    for (const t of ['bridge', 'null', '']) expect(privilegesOf({ Network: { Type: t } })).toEqual([]);
    expect(privilegesOf({})).toEqual([]);
    expect(privilegesOf({ Linux: { Capabilities: [], Devices: null }, Mounts: null })).toEqual([]);
  });
});

describe('samePrivileges', () => {
  const p = privilegesOf(full);
  test('the same list in another order, and values in another order, are the same', () => {
    expect(samePrivileges(p, [...p].reverse())).toBe(true);
    const caps = p.map((x) => (x.Name === 'capabilities' ? { ...x, Value: [...x.Value].reverse() } : x));
    expect(samePrivileges(p, caps)).toBe(true);
    expect(samePrivileges([], [])).toBe(true);
  });
  test('a missing, an extra or a changed privilege is not', () => {
    expect(samePrivileges(p, p.slice(1))).toBe(false);
    expect(samePrivileges(p, [...p, { Name: 'network', Description: 'permissions to access a network', Value: ['host'] }])).toBe(false);
    expect(samePrivileges(p, p.map((x) => (x.Name === 'network' ? { ...x, Value: ['none'] } : x)))).toBe(false);
  });
});

describe('toPluginJSON (the 1.24 Plugin object)', () => {
  test('a full config: Config holds the settings (env with values only), Manifest the config as pulled', () => {
    expect(toPluginJSON(record(full))).toEqual({
      Id: 'a'.repeat(64),
      Name: 'vol',
      Tag: 'latest',
      Active: true,
      Config: { Mounts: full.Mounts, Env: ['DEBUG=1'], Args: ['--x'], Devices: full.Linux!.Devices },
      Manifest: {
        ManifestVersion: 'v0',
        Description: 'a volume plugin',
        Documentation: 'https://example.com/doc',
        Interface: { Types: ['docker.volumedriver/1.0'], Socket: 'p.sock' },
        Entrypoint: ['/p', 'serve'],
        Workdir: '/w',
        User: { UID: 1, GID: 2 },
        Network: { Type: 'host' },
        Capabilities: ['CAP_SYS_ADMIN', 'CAP_CHOWN'],
        Mounts: full.Mounts,
        Devices: full.Linux!.Devices,
        Env: full.Env,
        Args: { Name: 'args', Description: 'extra', Settable: ['value'], Value: ['--x'] },
      },
    });
  });
  test("an empty config: the seed's fields all present, empty strings and lists, null where the engine has nil", () => {
    const j = toPluginJSON({ ...record({}), Enabled: false });
    expect(Object.keys(j)).toEqual(['Id', 'Name', 'Tag', 'Active', 'Config', 'Manifest']);
    expect(j.Active).toBe(false);
    expect(j.Config).toEqual({ Mounts: [], Env: [], Args: [], Devices: [] });
    expect(j.Manifest).toEqual({
      ManifestVersion: 'v0',
      Description: '',
      Documentation: '',
      Interface: { Types: [], Socket: '' },
      Entrypoint: null,
      Workdir: '',
      User: {},
      Network: { Type: '' },
      Capabilities: null,
      Mounts: null,
      Devices: null,
      Env: null,
      Args: { Name: '', Description: '', Settable: null, Value: [] },
    });
  });
});

describe("toPluginSpec (the plugin task's OCI spec)", () => {
  const input = { id: 'x', config: full, rootfs: '/r', socketDir: '/s/x', propagatedDir: '/d/pm', cgroupsPath: '/berth/plugin-x' };
  test('process: entrypoint then args, PATH and the set env, cwd, user, the default capabilities plus the asked ones once', () => {
    const s = toPluginSpec(input);
    expect(s.ociVersion).toBe('1.0.2-dev');
    expect(s.process.args).toEqual(['/p', 'serve', '--x']);
    expect(s.process.env).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'DEBUG=1']);
    expect([s.process.cwd, s.process.user, s.process.terminal, s.process.noNewPrivileges]).toEqual(['/w', { uid: 1, gid: 2 }, false, false]);
    const caps = s.process.capabilities;
    expect(caps.bounding).toEqual(caps.effective);
    expect(caps.bounding).toEqual(caps.permitted);
    expect(caps.bounding.filter((c) => c === 'CAP_CHOWN')).toHaveLength(1);
    expect(caps.bounding).toContain('CAP_SYS_ADMIN');
    expect(caps.bounding).toHaveLength(15);
    expect(s.root).toEqual({ path: '/r', readonly: false });
  });
  test('mounts: the system ones, the socket folder, the propagated mount, the config mounts with a source (bind, rbind rprivate by default), devices', () => {
    const s = toPluginSpec(input);
    expect(s.mounts.map((m) => m.destination)).toEqual(['/proc', '/dev', '/dev/pts', '/dev/shm', '/sys', '/run/docker/plugins', '/data', '/state', '/srv', '/dev/fuse']);
    expect(s.mounts.slice(5)).toEqual([
      { destination: '/run/docker/plugins', type: 'bind', source: '/s/x', options: ['rbind', 'rprivate'] },
      { destination: '/data', type: 'bind', source: '/d/pm', options: ['rbind', 'rshared'] },
      { destination: '/state', type: 'bind', source: '/var/lib/p', options: ['rbind', 'rw'] },
      { destination: '/srv', type: 'bind', source: '/srv', options: ['rbind', 'rprivate'] },
      { destination: '/dev/fuse', type: 'bind', source: '/dev/fuse', options: ['rbind', 'rprivate'] },
    ]);
  });
  test('linux: the cgroup path, host network leaves out the network namespace, devices allowed when the plugin has some', () => {
    const s = toPluginSpec(input);
    expect(s.linux.cgroupsPath).toBe('/berth/plugin-x');
    expect(s.linux.namespaces).toEqual([{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }]);
    expect(s.linux.resources.devices).toEqual([{ allow: false, access: 'rwm' }, { allow: true, access: 'rwm' }]);
    expect(s.linux.maskedPaths).toContain('/proc/kcore');
    expect(s.linux.readonlyPaths).toContain('/proc/sys');
  });
  test('a bare config: cwd /, root user, its own network namespace, no device allowed, no propagated mount without PropagatedMount', () => {
    const s = toPluginSpec({ id: 'y', config: { Entrypoint: ['/p'] }, rootfs: '/r', socketDir: '/s/y', propagatedDir: '/d/pm', cgroupsPath: '/c' });
    expect([s.process.args, s.process.cwd, s.process.user]).toEqual([['/p'], '/', { uid: 0, gid: 0 }]);
    expect(s.process.env).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']);
    expect(s.linux.namespaces).toContainEqual({ type: 'network' });
    expect(s.linux.resources.devices).toEqual([{ allow: false, access: 'rwm' }]);
    expect(s.mounts.map((m) => m.destination)).toEqual(['/proc', '/dev', '/dev/pts', '/dev/shm', '/sys', '/run/docker/plugins']);
    expect(toPluginSpec({ id: 'z', config: { Linux: { AllowAllDevices: true } }, rootfs: '/r', socketDir: '/s', cgroupsPath: '/c' }).linux.resources.devices).toEqual([{ allow: false, access: 'rwm' }, { allow: true, access: 'rwm' }]);
  });
});
