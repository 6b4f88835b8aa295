// daemon.json: every key accepted, and the engine's messages (captured from a 20.10 dockerd) for each kind of error.
import { DEFAULTS } from '../../src/config';
import { applyDaemonFile, goValue, labelConflict, parseDaemonFile, reloadAttributes, reloadInto } from '../../src/daemon-config';

const F = '/etc/berth/daemon.json';
const P = `unable to configure the Docker daemon with file ${F}: `;
const parse = (text: string, flags: Record<string, unknown> = {}) => parseDaemonFile(text, F, flags);

const EVERY_KEY = {
  hosts: ['unix:///run/b.sock', 'tcp://127.0.0.1:2376'],
  tls: true,
  tlsverify: true,
  tlscacert: '/c/ca.pem',
  tlscert: '/c/cert.pem',
  tlskey: '/c/key.pem',
  'data-root': '/d',
  'exec-root': '/e',
  containerd: '/run/containerd/containerd.sock',
  'containerd-namespace': 'ns',
  group: 'wheel',
  'log-level': 'warn',
  debug: false,
  labels: ['a=b', 'c=d'],
  'log-driver': 'json-file',
  'log-opts': { 'max-size': '10m' },
  'default-ulimits': { nofile: { Name: 'nofile', Hard: 64000, Soft: 64000 } },
  dns: ['10.0.0.2'],
  'dns-search': ['example.com'],
  'dns-opts': ['ndots:2'],
  'insecure-registries': ['myreg:5000'],
  'registry-mirrors': ['https://mirror.example.com'],
  'max-concurrent-downloads': 6,
  'max-concurrent-uploads': 2,
  bip: '172.31.0.1/16',
  ipv6: true,
  'fixed-cidr-v6': '2001:db8:1::/64',
  'default-address-pools': [{ base: '10.10.0.0/16', size: 24 }],
  iptables: true,
  'ip-forward': true,
  'userland-proxy': false,
  'live-restore': true,
  'shutdown-timeout': 30,
  'cgroup-parent': '/b',
  'exec-opts': ['native.cgroupdriver=cgroupfs'],
  'api-cors-header': '*',
};

test('every key is accepted and lands in the configuration', () => {
  const c = applyDaemonFile(DEFAULTS, parse(JSON.stringify(EVERY_KEY)));
  expect(c).toMatchObject({
    hosts: EVERY_KEY.hosts,
    tls: true,
    tlsVerify: true,
    tlsCACert: '/c/ca.pem',
    tlsCert: '/c/cert.pem',
    tlsKey: '/c/key.pem',
    dataRoot: '/d',
    execRoot: '/e',
    containerd: '/run/containerd/containerd.sock',
    namespace: 'ns',
    group: 'wheel',
    logLevel: 'warn',
    debug: false,
    labels: ['a=b', 'c=d'],
    logDriver: 'json-file',
    logOpts: { 'max-size': '10m' },
    dns: ['10.0.0.2'],
    dnsSearch: ['example.com'],
    dnsOptions: ['ndots:2'],
    insecureRegistries: ['myreg:5000'],
    registryMirrors: ['https://mirror.example.com'],
    maxConcurrentDownloads: 6,
    maxConcurrentUploads: 2,
    liveRestore: true,
    shutdownTimeout: 30,
    cgroupParent: '/b',
    corsHeader: '*',
    ipv6: true,
    fixedCidrV6: '2001:db8:1::/64',
  });
  expect(c.file).toMatchObject({ bip: '172.31.0.1/16', iptables: true, 'exec-opts': ['native.cgroupdriver=cgroupfs'] });
  // null keeps the default, as Go's decoder does
  expect(applyDaemonFile(DEFAULTS, parse('{"debug":null,"labels":null}'))).toMatchObject({ debug: false, labels: [] });
});

test("syntax, unknown keys, conflicts with flags: the engine's messages, in its order", () => {
  expect(() => parse('{x')).toThrow(P + "invalid character 'x' looking for beginning of object key string");
  expect(() => parse('[]')).toThrow(P + 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  expect(() => parse('{"bogus":1}')).toThrow(P + "the following directives don't match any configuration option: bogus");
  expect(() => parse('{"ipv6":true}', { ipv6: true })).toThrow(P + 'the following directives are specified both as a flag and in the configuration file: ipv6: (from flag: true, from file: true)');
  expect(() => parse('{"debug":true}', { debug: true })).toThrow(P + 'the following directives are specified both as a flag and in the configuration file: debug: (from flag: true, from file: true)');
  expect(() => parse('{"hosts":["unix:///x"]}', { hosts: ['unix:///a', 'unix:///y'] })).toThrow(P + 'the following directives are specified both as a flag and in the configuration file: hosts: (from flag: [unix:///a unix:///y], from file: [unix:///x])');
  // a conflict is found before the type is checked
  expect(() => parse('{"hosts":"x"}', { hosts: ['unix:///a'] })).toThrow('hosts: (from flag: [unix:///a], from file: x)');
});

test("Go's type errors, key by key", () => {
  const cases: [string, string][] = [
    ['{"debug":"yes"}', 'json: cannot unmarshal string into Go struct field Config.debug of type bool'],
    ['{"labels":"a"}', 'json: cannot unmarshal string into Go struct field Config.labels of type []string'],
    ['{"shutdown-timeout":"x"}', 'json: cannot unmarshal string into Go struct field Config.shutdown-timeout of type int'],
    ['{"max-concurrent-downloads":1.5}', 'json: cannot unmarshal number 1.5 into Go struct field Config.max-concurrent-downloads of type int'],
    ['{"dns-opts":[1]}', 'json: cannot unmarshal number into Go struct field Config.dns-opts of type string'],
    ['{"insecure-registries":[1]}', 'json: cannot unmarshal number into Go struct field Config.insecure-registries of type string'],
    ['{"log-opts":1}', 'json: cannot unmarshal number into Go struct field Config.log-opts of type map[string]string'],
    ['{"default-ulimits":1}', 'json: cannot unmarshal number into Go struct field Config.default-ulimits of type map[string]*units.Ulimit'],
    ['{"default-ulimits":{"nofile":"x"}}', 'json: cannot unmarshal string into Go struct field Config.default-ulimits of type units.Ulimit'],
    ['{"default-address-pools":1}', 'json: cannot unmarshal number into Go struct field Config.default-address-pools of type []*ipamutils.NetworkToSplit'],
    ['{"bip":1}', 'json: cannot unmarshal number into Go struct field Config.bip of type string'],
    ['{"ipv6":"yes"}', 'json: cannot unmarshal string into Go struct field Config.ipv6 of type bool'],
  ];
  for (const [text, msg] of cases) expect(() => parse(text)).toThrow(P + msg);
});

test("values: the engine's validation messages", () => {
  const V = P + 'configuration validation from file failed: ';
  expect(() => parse('{"labels":["a"]}')).toThrow(V + 'bad attribute format: a');
  expect(() => parse('{"max-concurrent-downloads":-1}')).toThrow(V + 'invalid max concurrent downloads: -1');
  expect(() => parse('{"max-concurrent-uploads":-2}')).toThrow(V + 'invalid max concurrent uploads: -2');
  expect(() => parse('{"dns":["bad"]}')).toThrow(V + 'bad is not an ip address');
  expect(() => parse('{"dns-search":["-bad-"]}')).toThrow(V + '-bad- is not a valid domain');
  expect(() => parse('{"log-level":"loud"}')).toThrow(/^unable to parse logging level: loud$/);
  expect(parse('{"max-concurrent-uploads":0}')).toEqual({ 'max-concurrent-uploads': 0 });
  expect(labelConflict(['a=b', 'a=c'])).toBe('conflict labels for a=c and a=b');
  expect(labelConflict(['a=b', 'a=b'])).toBeUndefined();
});

test('a reload copies only the reloadable keys; the reload event carries them Go-style', () => {
  const live = applyDaemonFile(DEFAULTS, parse('{"labels":["a=b"],"cgroup-parent":"/x","max-concurrent-uploads":2,"shutdown-timeout":20}'));
  reloadInto(live, parse('{"labels":["c=d"],"debug":true,"cgroup-parent":"/y","max-concurrent-downloads":5,"insecure-registries":["r:5000"]}'));
  // cgroup-parent waits for a restart; an unset shutdown-timeout keeps its value, unset max-concurrent-* go back to the defaults
  expect(live).toMatchObject({ labels: ['c=d'], debug: true, cgroupParent: '/x', maxConcurrentDownloads: 5, maxConcurrentUploads: 5, shutdownTimeout: 20 });
  expect(reloadAttributes(live, 'host')).toMatchObject({ debug: 'true', labels: '["c=d"]', 'insecure-registries': '["r:5000"]', 'registry-mirrors': '[]', 'max-concurrent-downloads': '5', 'max-concurrent-uploads': '5', 'shutdown-timeout': '20', name: 'host' });
  expect(goValue({ b: 1, a: ['x', 'y'] })).toBe('map[a:[x y] b:1]');
});
