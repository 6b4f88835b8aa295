import { generateSpec, SpecInput, effectiveCaps, DEFAULT_CAPS, ALL_CAPS, normalizeCap } from '../../src/translate/spec';
import type { ContainerConfig, HostConfig } from '../../src/types/config';

const ID = 'a'.repeat(64);
function input(hc: HostConfig = {}, c: ContainerConfig = {}, extra: Partial<SpecInput> = {}): SpecInput {
  return {
    id: ID,
    config: { Cmd: ['sh'], Env: ['PATH=/bin'], ...c },
    hostConfig: hc,
    user: { uid: 0, gid: 0, additionalGids: [0] },
    cgroupParent: '/berth',
    mounts: [],
    hostname: 'aaaaaaaaaaaa',
    seccompAvailable: true,
    devices: [],
    blockDevices: {},
    ...extra,
  };
}

describe('the default spec is the reference engine’s', () => {
  const s = generateSpec(input());
  test('process, capabilities, namespaces, cgroups path', () => {
    expect(s.process.args).toEqual(['sh']);
    expect(s.process.env).toEqual(['PATH=/bin', 'HOSTNAME=aaaaaaaaaaaa']);
    expect(s.process.cwd).toBe('/');
    expect(s.process.capabilities.bounding).toEqual(DEFAULT_CAPS);
    expect(s.process.oomScoreAdj).toBe(0);
    expect(s.process.rlimits).toBeUndefined();
    expect(s.linux.namespaces.map((n) => n.type)).toEqual(['mount', 'network', 'uts', 'pid', 'ipc']);
    expect(s.linux.cgroupsPath).toBe(`/berth/${ID}`);
    expect(s.hostname).toBe('aaaaaaaaaaaa');
    expect(s.root).toEqual({ path: 'rootfs', readonly: false });
  });
  test('mounts, masked and read-only paths, devices, seccomp, sysctls', () => {
    expect(s.mounts.map((m) => m.destination)).toEqual(['/proc', '/dev', '/dev/pts', '/sys', '/sys/fs/cgroup', '/dev/mqueue', '/dev/shm']);
    expect(s.mounts.find((m) => m.destination === '/dev/shm')!.options).toContain('size=67108864');
    expect(s.linux.maskedPaths).toContain('/proc/kcore');
    expect(s.linux.readonlyPaths).toContain('/proc/sys');
    expect(s.linux.resources.devices[0]).toEqual({ allow: false, access: 'rwm' });
    expect(s.linux.resources.devices).toHaveLength(8);
    expect((s.linux.seccomp as { defaultAction: string }).defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(s.linux.sysctl).toEqual({ 'net.ipv4.ip_unprivileged_port_start': '0', 'net.ipv4.ping_group_range': '0 2147483647' });
  });
});

describe('each HostConfig field', () => {
  test('memory family', () => {
    const r = generateSpec(input({ Memory: 64 << 20, MemoryReservation: 32 << 20, KernelMemory: 16 << 20, MemorySwappiness: 10, OomKillDisable: true })).linux.resources.memory;
    expect(r).toEqual({ limit: 64 << 20, reservation: 32 << 20, swap: 128 << 20, kernel: 16 << 20, swappiness: 10, disableOOMKiller: true });
    expect(generateSpec(input({ Memory: 64 << 20, MemorySwap: -1 })).linux.resources.memory!.swap).toBe(-1);
    expect(generateSpec(input({ MemorySwappiness: -1 })).linux.resources.memory!.swappiness).toBeUndefined();
  });
  test('cpu family and pids', () => {
    expect(generateSpec(input({ CpuShares: 512, CpuPeriod: 100000, CpuQuota: 50000, CpusetCpus: '0-1', CpusetMems: '0' })).linux.resources.cpu).toEqual({ shares: 512, period: 100000, quota: 50000, cpus: '0-1', mems: '0' });
    expect(generateSpec(input({ PidsLimit: 100 })).linux.resources.pids).toEqual({ limit: 100 });
    expect(generateSpec(input({ PidsLimit: 0 })).linux.resources.pids).toBeUndefined();
  });
  test('blkio with resolved devices', () => {
    const b = generateSpec(
      input(
        { BlkioWeight: 300, BlkioWeightDevice: [{ Path: '/dev/sda', Weight: 200 }], BlkioDeviceReadBps: [{ Path: '/dev/sda', Rate: 1000 }], BlkioDeviceWriteBps: [{ Path: '/dev/sda', Rate: 2000 }], BlkioDeviceReadIOps: [{ Path: '/dev/sda', Rate: 10 }], BlkioDeviceWriteIOps: [{ Path: '/dev/sda', Rate: 20 }] },
        {},
        { blockDevices: { '/dev/sda': { major: 8, minor: 0 } } },
      ),
    ).linux.resources.blockIO!;
    expect(b.weight).toBe(300);
    expect(b.weightDevice).toEqual([{ major: 8, minor: 0, weight: 200 }]);
    expect(b.throttleReadBpsDevice).toEqual([{ major: 8, minor: 0, rate: 1000 }]);
    expect(b.throttleWriteBpsDevice).toEqual([{ major: 8, minor: 0, rate: 2000 }]);
    expect(b.throttleReadIOPSDevice).toEqual([{ major: 8, minor: 0, rate: 10 }]);
    expect(b.throttleWriteIOPSDevice).toEqual([{ major: 8, minor: 0, rate: 20 }]);
  });
  test('privileged: all capabilities, all devices, no masks, no seccomp, rw /sys', () => {
    const s = generateSpec(input({ Privileged: true }));
    expect(s.process.capabilities.bounding).toEqual(ALL_CAPS);
    expect(s.linux.resources.devices).toEqual([{ allow: true, access: 'rwm' }]);
    expect(s.linux.maskedPaths).toBeUndefined();
    expect(s.linux.readonlyPaths).toBeUndefined();
    expect(s.linux.seccomp).toBeUndefined();
    expect(s.mounts.find((m) => m.destination === '/sys')!.options).not.toContain('ro');
  });
  test('capabilities: with and without CAP_, case, ALL', () => {
    expect(normalizeCap('net_admin')).toBe('CAP_NET_ADMIN');
    expect(effectiveCaps({ CapAdd: ['NET_ADMIN', 'cap_sys_time'], CapDrop: ['CHOWN', 'CAP_KILL'] })).toEqual([...DEFAULT_CAPS.filter((c) => c !== 'CAP_CHOWN' && c !== 'CAP_KILL'), 'CAP_NET_ADMIN', 'CAP_SYS_TIME']);
    expect(effectiveCaps({ CapDrop: ['ALL'], CapAdd: ['CHOWN'] })).toEqual(['CAP_CHOWN']);
    expect(effectiveCaps({ CapAdd: ['ALL'] })).toEqual(ALL_CAPS);
  });
  test('modes: pid/ipc/uts/net host and container namespaces', () => {
    const host = generateSpec(input({ PidMode: 'host', IpcMode: 'host', UTSMode: 'host', NetworkMode: 'host' }));
    expect(host.linux.namespaces.map((n) => n.type)).toEqual(['mount']);
    expect(host.hostname).toBeUndefined();
    expect(host.mounts.find((m) => m.destination === '/dev/shm')).toBeUndefined();
    expect(host.linux.sysctl).toEqual({});
    const joined = generateSpec(input({ PidMode: 'container:x' }, {}, { pidNsPath: '/proc/42/ns/pid', ipcNsPath: '/proc/42/ns/ipc', netnsPath: '/run/netns/x' }));
    expect(joined.linux.namespaces).toEqual([{ type: 'mount' }, { type: 'network', path: '/run/netns/x' }, { type: 'uts' }, { type: 'pid', path: '/proc/42/ns/pid' }, { type: 'ipc', path: '/proc/42/ns/ipc' }]);
  });
  test('read-only rootfs, tmpfs, shm size, binds given as mounts', () => {
    const s = generateSpec(input({ ReadonlyRootfs: true, Tmpfs: { '/run': 'rw,size=1m' }, ShmSize: 1 << 20 }, {}, { mounts: [{ destination: '/data', type: 'bind', source: '/srv', options: ['rbind', 'rprivate', 'ro'] }] }));
    expect(s.root.readonly).toBe(true);
    expect(s.mounts.find((m) => m.destination === '/run')).toEqual({ destination: '/run', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'noexec', 'rw', 'size=1m'] });
    expect(s.mounts.find((m) => m.destination === '/dev/shm')!.options).toContain(`size=${1 << 20}`);
    expect(s.mounts.find((m) => m.destination === '/data')!.options).toContain('ro');
    expect(s.linux.rootfsPropagation).toBeUndefined();
  });
  test('a shared bind keeps the root shared, a slave one makes it rslave (the engine’s root propagation)', () => {
    const bind = (p: string) => ({ destination: `/${p}`, type: 'bind', source: '/srv', options: ['rbind', p] });
    const prop = (...ps: string[]) => generateSpec(input({}, {}, { mounts: ps.map(bind) })).linux.rootfsPropagation;
    expect([prop('rprivate'), prop('rslave'), prop('slave', 'private'), prop('shared'), prop('rslave', 'rshared')]).toEqual([undefined, 'rslave', 'rslave', 'shared', 'shared']);
  });
  test('security options, oom score, ulimits, sysctls, cgroup parent, group add via user', () => {
    const s = generateSpec(input({ SecurityOpt: ['no-new-privileges', 'seccomp=unconfined'], OomScoreAdj: 500, Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }], Sysctls: { 'net.core.somaxconn': '1024' }, CgroupParent: '/custom/' }, {}, { user: { uid: 1000, gid: 50, additionalGids: [50, 60] } }));
    expect(s.process.noNewPrivileges).toBe(true);
    expect(s.linux.seccomp).toBeUndefined();
    expect(s.process.oomScoreAdj).toBe(500);
    expect(s.process.rlimits).toEqual([{ type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 }]);
    expect(s.linux.sysctl!['net.core.somaxconn']).toBe('1024');
    expect(s.linux.cgroupsPath).toBe(`/custom/${ID}`);
    expect(s.process.user).toEqual({ uid: 1000, gid: 50, additionalGids: [50, 60] });
    const custom = generateSpec(input({ SecurityOpt: ['seccomp={"defaultAction":"SCMP_ACT_ALLOW"}'] }));
    expect(custom.linux.seccomp).toEqual({ defaultAction: 'SCMP_ACT_ALLOW' });
  });
  test('devices with their cgroup rule', () => {
    const s = generateSpec(input({}, {}, { devices: [{ path: '/dev/fuse', type: 'c', major: 10, minor: 229, fileMode: 0o666, uid: 0, gid: 0, permissions: 'rw' }] }));
    expect(s.linux.devices).toEqual([{ path: '/dev/fuse', type: 'c', major: 10, minor: 229, fileMode: 0o666, uid: 0, gid: 0 }]);
    expect(s.linux.resources.devices[s.linux.resources.devices.length - 1]).toEqual({ allow: true, type: 'c', major: 10, minor: 229, access: 'rw' });
  });
  test("the environment as the engine's ReplaceOrAppendEnvValues: a bare name removes a default and is left out", () => {
    // the reference: run -e A=1 -e B busybox env printed PATH, HOSTNAME, A=1 (and runc's HOME); -e PATH -e HOSTNAME
    // (both unset in the CLI's environment) removed both; -e B=1 -e B ran with B=1
    const env = (e: string[], tty = false) => generateSpec(input({}, { Env: e, Tty: tty })).process.env;
    expect(env(['A=1', 'B'])).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOSTNAME=aaaaaaaaaaaa', 'A=1']);
    expect(env(['HOSTNAME', 'PATH', 'TERM'], true)).toEqual([]);
    expect(env(['A=1', 'PATH=/x', 'B=1', 'B', 'HOSTNAME=h'])).toEqual(['PATH=/x', 'HOSTNAME=h', 'A=1', 'B=1']);
  });
  test('Config fields: entrypoint + cmd, env, workdir, tty, domainname', () => {
    const s = generateSpec(input({}, { Entrypoint: ['/bin/sh', '-c'], Cmd: ['echo hi'], WorkingDir: '/tmp', Tty: true, Domainname: 'example.com', Env: ['A=1'] }));
    expect(s.process.args).toEqual(['/bin/sh', '-c', 'echo hi']);
    expect(s.process.env).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOSTNAME=aaaaaaaaaaaa', 'TERM=xterm', 'A=1']);
    expect(s.process.cwd).toBe('/tmp');
    expect(s.process.terminal).toBe(true);
    expect(s.domainname).toBe('example.com');
  });
});
