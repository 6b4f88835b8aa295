import { parseArgs, DEFAULT_HOST } from '../../src/config';
import { bridgeSubnet6 } from '../../src/daemon';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parseHost, checkHosts, socketGroup, activatedFds, fdsFor } from '../../src/http/listeners';
import { rfc3339Nano, parseRfc3339, fromProtoTime, ZERO_TIME } from '../../src/translate/time';

describe('berthd flags', () => {
  test('--cluster-store etcd://HOST:PORT[,HOST:PORT]: etcd client URLs; anything else a usage error', () => {
    const c = parseArgs(['--cluster-store', 'etcd://127.0.0.1:2379,etcd.local:22379']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect(c.clusterStore).toEqual(['http://127.0.0.1:2379', 'http://etcd.local:22379']);
    expect(c.clusterStoreFlag).toBe('etcd://127.0.0.1:2379,etcd.local:22379');
    for (const bad of ['consul://h:1', 'etcd://', 'etcd://h', 'etcd://h:1/x']) {
      expect(() => parseArgs(['--cluster-store', bad])).toThrow(`invalid argument "${bad}" for "--cluster-store" flag`);
    }
  });
  test('defaults', () => {
    const c = parseArgs([]);
    if (typeof c === 'string') throw new Error('unexpected');
    expect(c.hosts).toEqual([DEFAULT_HOST]);
    expect(c.namespace).toBe('berth');
    expect(c.containerd).toBeUndefined();
  });
  test('repeatable -H, = forms, and the rest', () => {
    const c = parseArgs(['-H', 'unix:///tmp/a.sock', '--host=tcp://127.0.0.1:2375', '--data-root', '/d', '--exec-root=/e', '--containerd', '/c.sock', '--namespace', 'ns', '-l', 'debug', '--api-cors-header', '*']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect(c.hosts).toEqual(['unix:///tmp/a.sock', 'tcp://127.0.0.1:2375']);
    expect([c.dataRoot, c.execRoot, c.containerd, c.namespace, c.logLevel, c.corsHeader]).toEqual(['/d', '/e', '/c.sock', 'ns', 'debug', '*']);
  });
  test("plugin directories: the engine's by default, repeatable spec dirs", () => {
    const d = parseArgs([]);
    if (typeof d === 'string') throw new Error('unexpected');
    expect([d.pluginSocketDir, d.pluginSpecDirs]).toEqual(['/run/docker/plugins', ['/etc/docker/plugins', '/usr/lib/docker/plugins']]);
    const c = parseArgs(['--plugin-socket-dir', '/s', '--plugin-spec-dir', '/a', '--plugin-spec-dir=/b']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect([c.pluginSocketDir, c.pluginSpecDirs]).toEqual(['/s', ['/a', '/b']]);
  });
  test('--ipv6 and --fixed-cidr-v6 (the default bridge); the start checks them as the engine does', () => {
    const c = parseArgs(['--ipv6', '--fixed-cidr-v6', '2001:db8:1::5/64']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect([c.ipv6, c.fixedCidrV6, c.given.ipv6, c.given['fixed-cidr-v6']]).toEqual([true, '2001:db8:1::5/64', true, '2001:db8:1::5/64']);
    const off = parseArgs(['--ipv6=false']);
    if (typeof off === 'string') throw new Error('unexpected');
    expect(off.ipv6).toBe(false);
    // the subnet as the engine lists it; without --ipv6 it is listed and not used
    expect(bridgeSubnet6(c)).toBe('2001:db8:1::/64');
    expect(bridgeSubnet6({ ...c, ipv6: false })).toBe('2001:db8:1::/64');
    expect(bridgeSubnet6({ ...c, ipv6: false, fixedCidrV6: undefined })).toBeUndefined();
    const E = 'failed to start daemon: Error initializing network controller: ';
    expect(() => bridgeSubnet6({ ...c, fixedCidrV6: undefined })).toThrow(E + 'IPv6 is enabled for the default bridge, but no subnet is configured. Specify an IPv6 subnet using --fixed-cidr-v6');
    for (const bad of ['nonsense', '10.0.0.0/24', '2001:db8::/129']) expect(() => bridgeSubnet6({ ...c, fixedCidrV6: bad })).toThrow(E + `invalid CIDR address: ${bad}`);
  });
  test('help, version and bad flags', () => {
    expect(parseArgs(['--help'])).toBe('help');
    expect(parseArgs(['-v'])).toBe('version');
    expect(() => parseArgs(['--nope'])).toThrow('unknown flag: --nope');
    expect(() => parseArgs(['-H'])).toThrow('flag needs an argument');
  });
  test('host addresses', () => {
    expect(parseHost('unix:///var/run/berth.sock')).toEqual({ kind: 'unix', path: '/var/run/berth.sock' });
    expect(parseHost('tcp://0.0.0.0:2375')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 2375 });
    expect(parseHost(':2375')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 2375 });
    expect(() => parseHost('bogus')).toThrow();
  });
});

describe('Go time formats', () => {
  test('RFC3339Nano trims trailing zeros like Go', () => {
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 120000000 })).toBe('2023-11-14T22:13:20.12Z');
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 0 })).toBe('2023-11-14T22:13:20Z');
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 5 })).toBe('2023-11-14T22:13:20.000000005Z');
  });
  test('zero time and protobuf timestamps', () => {
    expect(rfc3339Nano(fromProtoTime({ seconds: '-62135596800', nanos: 0 }))).toBe(ZERO_TIME);
    expect(rfc3339Nano(fromProtoTime(null))).toBe(ZERO_TIME);
    expect(parseRfc3339('2023-11-14T22:13:20.123456789Z')).toEqual({ seconds: 1700000000, nanos: 123456789 });
    expect(parseRfc3339(ZERO_TIME).seconds).toBe(-62135596800);
  });
});

describe('listener flags (docs/operations.md)', () => {
  test('TLS flags and their DOCKER_CERT_PATH / DOCKER_TLS_VERIFY defaults', () => {
    const c = parseArgs([], { DOCKER_CERT_PATH: '/certs', DOCKER_TLS_VERIFY: '1' });
    if (typeof c === 'string') throw new Error('unexpected');
    expect([c.tls, c.tlsVerify, c.tlsCACert, c.tlsCert, c.tlsKey]).toEqual([undefined, true, '/certs/ca.pem', '/certs/cert.pem', '/certs/key.pem']);
    const d = parseArgs(['--tls=false', '--tlsverify=0', '--tlscacert', '/a', '--tlscert=/b', '--tlskey', '/c', '-G', 'wheel'], {});
    if (typeof d === 'string') throw new Error('unexpected');
    expect([d.tls, d.tlsVerify, d.tlsCACert, d.tlsCert, d.tlsKey, d.group]).toEqual([false, false, '/a', '/b', '/c', 'wheel']);
    expect(() => parseArgs(['--tls=maybe'], {})).toThrow('invalid argument "maybe" for "--tls" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  });
  test('an unauthenticated tcp host is refused unless --tls is given either way; then it warns', () => {
    expect(() => checkHosts({ hosts: ['tcp://0.0.0.0:2375'], tlsVerify: false })).toThrow('refusing to serve tcp://0.0.0.0:2375 without TLS');
    expect(checkHosts({ hosts: ['tcp://0.0.0.0:2375'], tlsVerify: true }).warnings).toEqual([]);
    expect(checkHosts({ hosts: ['tcp://0.0.0.0:2375'], tls: false, tlsVerify: false }).warnings[0]).toMatch(/^Binding to IP address without --tlsverify is insecure/);
    expect(checkHosts({ hosts: ['tcp://0.0.0.0:2375'], tls: true, tlsVerify: false }).warnings).toHaveLength(2);
    expect(checkHosts({ hosts: ['unix:///x.sock', 'fd://'], tlsVerify: false }).specs).toEqual([{ kind: 'unix', path: '/x.sock' }, { kind: 'fd' }]);
    expect(parseHost('fd://4')).toEqual({ kind: 'fd', fd: 4 });
    expect(() => checkHosts({ hosts: ['fd://x'], tlsVerify: false })).toThrow('invalid host address: fd://x');
  });
  test('socket group: docker by default if it exists, root otherwise; an explicit unknown group is an error', () => {
    const f = `${os.tmpdir()}/berth-group-${process.pid}`;
    fs.writeFileSync(f, 'root:x:0:\ndocker:x:107:alice\n');
    expect(socketGroup(undefined, f)).toEqual({ gid: 107 });
    expect(socketGroup('root', f)).toEqual({ gid: 0 });
    expect(socketGroup('1234', f)).toEqual({ gid: 1234 });
    expect(() => socketGroup('nope', f)).toThrow('group nope not found');
    fs.writeFileSync(f, 'root:x:0:\n');
    expect(socketGroup(undefined, f)).toMatchObject({ gid: 0, warning: expect.stringContaining('root-only') });
    fs.rmSync(f);
  });
  test('socket activation: LISTEN_PID must be ours; fd:// takes all, fd://N one', () => {
    const env: NodeJS.ProcessEnv = { LISTEN_PID: '42', LISTEN_FDS: '2', LISTEN_FDNAMES: 'a:b' };
    expect(activatedFds(env, 42)).toEqual([3, 4]);
    expect(env).toEqual({});
    expect(activatedFds({ LISTEN_PID: '41', LISTEN_FDS: '2' }, 42)).toEqual([]);
    expect(fdsFor({}, [3, 4])).toEqual([3, 4]);
    expect(fdsFor({ fd: 4 }, [3, 4])).toEqual([4]);
    expect(() => fdsFor({ fd: 5 }, [3, 4])).toThrow('fd 5 was not passed by systemd');
    expect(() => fdsFor({}, [])).toThrow('no sockets found via socket activation');
  });
});
