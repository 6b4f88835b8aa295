// Every daemon.json key of issue 19 through the real bin/berthd (docs/operations.md): each one accepted (one file
// holding them all, their effects where berth acts on them), each one refused with the engine's message (a wrong
// JSON type: messages asked of a 20.10 dockerd with the same files; and the value checks), and SIGHUP: the keys the
// engine reloads are applied and announced, the others wait for a restart. daemon-json.test covers the log and dns
// defaults of new containers and the bad-file reload, authz.test the authorization-plugins reload.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Containerd } from '../../src/containerd/client';
import { bridgeRules, removeRules } from '../../src/network/bridge';
import { cleanupNamespace } from '../helpers/cleanup';
import { containerdAddress, firstEvent, request } from '../helpers/berth';
import { exited } from '../helpers/berthd-process';

const ROOT = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-dkeys-'));
const file = path.join(dir, 'daemon.json');
const socket = path.join(dir, 'berth.sock');
const NS = `berth-dkeys-${process.pid}`;
const BRIDGE = `bdk${process.pid % 10000}`;
const SUBNET = '10.251.79.0/24';
const P = `berthd: unable to configure the Docker daemon with file ${file}: `;
const children: ChildProcess[] = [];

/** bin/berthd with only --config-file and the bridge flags (the file names everything else). */
function berthd(f = file): { child: ChildProcess; log: () => string } {
  const logPath = path.join(dir, `berthd-${children.length}.log`);
  const log = fs.openSync(logPath, 'w');
  const child = spawn(path.join(ROOT, 'bin/berthd'), ['--config-file', f, '--bridge-name', BRIDGE, '--bridge-subnet', SUBNET], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  children.push(child);
  return { child, log: () => fs.readFileSync(logPath, 'utf8') };
}

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  const ctr = new Containerd({ address: containerdAddress(), namespace: NS });
  await cleanupNamespace(ctr);
  ctr.close();
  await new Promise((r) => spawn('ip', ['link', 'delete', BRIDGE], { stdio: 'ignore' }).on('exit', r).on('error', r));
  await removeRules(bridgeRules(BRIDGE, SUBNET, false));
  fs.rmSync(dir, { recursive: true, force: true });
});

// the key, a value of the wrong JSON type, and the engine's Go type in its message
const WRONG_TYPE: [string, unknown, string][] = [
  ['hosts', 'x', 'string into Go struct field Config.hosts of type []string'],
  ['tls', 'x', 'string into Go struct field Config.tls of type bool'],
  ['tlsverify', 'x', 'string into Go struct field Config.tlsverify of type bool'],
  ['tlscacert', 1, 'number into Go struct field Config.tlscacert of type string'],
  ['tlscert', 1, 'number into Go struct field Config.tlscert of type string'],
  ['tlskey', 1, 'number into Go struct field Config.tlskey of type string'],
  ['data-root', 1, 'number into Go struct field Config.data-root of type string'],
  ['exec-root', 1, 'number into Go struct field Config.exec-root of type string'],
  ['containerd', 1, 'number into Go struct field Config.containerd of type string'],
  ['containerd-namespace', 1, 'number into Go struct field Config.containerd-namespace of type string'],
  ['group', 1, 'number into Go struct field Config.group of type string'],
  ['log-level', 1, 'number into Go struct field Config.log-level of type string'],
  ['debug', 'x', 'string into Go struct field Config.debug of type bool'],
  ['labels', 'x', 'string into Go struct field Config.labels of type []string'],
  ['log-driver', 1, 'number into Go struct field Config.log-driver of type string'],
  ['log-opts', 1, 'number into Go struct field Config.log-opts of type map[string]string'],
  ['default-ulimits', 1, 'number into Go struct field Config.default-ulimits of type map[string]*units.Ulimit'],
  ['dns', 'x', 'string into Go struct field Config.dns of type []string'],
  ['dns-search', 'x', 'string into Go struct field Config.dns-search of type []string'],
  ['dns-opts', 'x', 'string into Go struct field Config.dns-opts of type []string'],
  ['insecure-registries', 'x', 'string into Go struct field Config.insecure-registries of type []string'],
  ['registry-mirrors', 'x', 'string into Go struct field Config.registry-mirrors of type []string'],
  ['max-concurrent-downloads', 'x', 'string into Go struct field Config.max-concurrent-downloads of type int'],
  ['max-concurrent-uploads', 'x', 'string into Go struct field Config.max-concurrent-uploads of type int'],
  ['bip', 1, 'number into Go struct field Config.bip of type string'],
  ['default-address-pools', 1, 'number into Go struct field Config.default-address-pools of type []*ipamutils.NetworkToSplit'],
  ['iptables', 'x', 'string into Go struct field Config.iptables of type bool'],
  ['ip-forward', 'x', 'string into Go struct field Config.ip-forward of type bool'],
  ['userland-proxy', 'x', 'string into Go struct field Config.userland-proxy of type bool'],
  ['live-restore', 'x', 'string into Go struct field Config.live-restore of type bool'],
  ['shutdown-timeout', 'x', 'string into Go struct field Config.shutdown-timeout of type int'],
  ['cgroup-parent', 1, 'number into Go struct field Config.cgroup-parent of type string'],
  ['exec-opts', 'x', 'string into Go struct field Config.exec-opts of type []string'],
  ['api-cors-header', 1, 'number into Go struct field Config.api-cors-header of type string'],
  ['authorization-plugins', 'x', 'string into Go struct field Config.authorization-plugins of type []string'],
  ['ipv6', 'x', 'string into Go struct field Config.ipv6 of type bool'],
  ['fixed-cidr-v6', 1, 'number into Go struct field Config.fixed-cidr-v6 of type string'],
];

// values of the right type the engine refuses, with its messages (whole lines of berthd's output)
const BAD_VALUE: [Record<string, unknown>, string][] = [
  [{ labels: ['novalue'] }, P + 'configuration validation from file failed: bad attribute format: novalue'],
  [{ labels: ['a=b', 'a=c'] }, 'berthd: conflict labels for a=c and a=b'],
  [{ dns: ['bad'] }, P + 'configuration validation from file failed: bad is not an ip address'],
  [{ 'dns-search': ['-bad-'] }, P + 'configuration validation from file failed: -bad- is not a valid domain'],
  [{ 'max-concurrent-downloads': -1 }, P + 'configuration validation from file failed: invalid max concurrent downloads: -1'],
  [{ 'max-concurrent-uploads': -2 }, P + 'configuration validation from file failed: invalid max concurrent uploads: -2'],
  [{ 'registry-mirrors': ['ftp://m'] }, P + 'configuration validation from file failed: invalid mirror: unsupported scheme "ftp" in "ftp://m"'],
  [{ 'log-level': 'loud' }, 'berthd: unable to parse logging level: loud'],
];

test("a bad file refuses the start with the engine's message; TLS files named in the file are read", async () => {
  // each key's wrong type is checked at reload below (the same check, the same message); here a few at the start
  await Promise.all(
    WRONG_TYPE.filter(([k]) => ['hosts', 'tlsverify', 'data-root', 'containerd-namespace', 'default-address-pools'].includes(k)).map(async ([key, value, msg]) => {
      const f = path.join(dir, `wrong-${key}.json`);
      fs.writeFileSync(f, JSON.stringify({ [key]: value }));
      const b = berthd(f);
      expect([key, await exited(b.child), b.log().trim()]).toEqual([key, 1, `berthd: unable to configure the Docker daemon with file ${f}: json: cannot unmarshal ${msg}`]);
    }),
  );
  fs.writeFileSync(file, JSON.stringify(BAD_VALUE[0][0]));
  const bad = berthd();
  expect([await exited(bad.child), bad.log().trim()]).toEqual([1, BAD_VALUE[0][1]]);
  fs.writeFileSync(file, JSON.stringify({ hosts: ['tcp://127.0.0.1:0'], tlsverify: true, tlscacert: path.join(dir, 'ca.pem'), tlscert: path.join(dir, 'cert.pem'), tlskey: path.join(dir, 'key.pem') }));
  const b = berthd();
  expect(await exited(b.child)).toBe(1);
  expect(b.log()).toContain(`failed to create API server: Could not load X509 key pair (cert: "${path.join(dir, 'cert.pem')}", key: "${path.join(dir, 'key.pem')}"): open ${path.join(dir, 'cert.pem')}: no such file or directory`);
}, 60_000);

const EVERY_KEY = {
  hosts: [`unix://${socket}`],
  tls: false,
  tlsverify: false,
  tlscacert: path.join(dir, 'unused-ca.pem'),
  tlscert: path.join(dir, 'unused-cert.pem'),
  tlskey: path.join(dir, 'unused-key.pem'),
  'data-root': path.join(dir, 'data'),
  'exec-root': path.join(dir, 'exec'),
  containerd: containerdAddress(),
  'containerd-namespace': NS,
  group: 'root',
  'log-level': 'info',
  debug: false,
  labels: ['site=a'],
  'log-driver': 'json-file',
  'log-opts': { 'max-size': '1m' },
  'default-ulimits': { nofile: { Name: 'nofile', Hard: 4096, Soft: 1024 } },
  dns: ['10.9.8.7'],
  'dns-search': ['example.com'],
  'dns-opts': ['ndots:2'],
  'insecure-registries': ['myreg:5000'],
  'registry-mirrors': ['https://mirror.example.com'],
  'max-concurrent-downloads': 4,
  'max-concurrent-uploads': 2,
  bip: '10.251.79.1/24',
  'default-address-pools': [{ base: '10.240.0.0/16', size: 24 }],
  iptables: true,
  'ip-forward': true,
  'userland-proxy': true,
  'live-restore': false,
  'shutdown-timeout': 7,
  'cgroup-parent': '/' + NS,
  'exec-opts': ['native.cgroupdriver=cgroupfs'],
  'api-cors-header': 'https://a.example.com',
  'authorization-plugins': [],
  ipv6: false,
  'fixed-cidr-v6': 'fd00:dead:beef::/64',
};
const ALL_KEYS = Object.keys(EVERY_KEY);

async function started(b: { child: ChildProcess; log: () => string }): Promise<void> {
  for (const t0 = Date.now(); !(await request(socket, 'GET', '/_ping').then((r) => r.status === 200, () => false)); await new Promise((r) => setTimeout(r, 50))) {
    if (b.child.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`berthd did not start: ${b.log().slice(-2000)}`);
  }
}

/** SIGHUP with `content` as the file; resolves with the reload event's attributes. */
async function reload(b: { child: ChildProcess }, content: Record<string, unknown>): Promise<Record<string, string>> {
  const seen = firstEvent(socket, { type: ['daemon'] });
  await seen.subscribed;
  fs.writeFileSync(file, JSON.stringify({ ...EVERY_KEY, ...content }));
  process.kill(b.child.pid!, 'SIGHUP');
  return (await seen.event).Actor.Attributes;
}

test('one file with every key is accepted and acted on; SIGHUP reloads what the engine reloads, and only that', async () => {
  fs.writeFileSync(file, JSON.stringify(EVERY_KEY));
  const b = berthd();
  await started(b);
  // where berth acts on a key, it shows
  const st = fs.statSync(socket);
  expect([st.mode & 0o777, st.gid]).toEqual([0o660, 0]);
  const ping = await request(socket, 'GET', '/_ping');
  expect(ping.headers['access-control-allow-origin']).toBe('https://a.example.com');
  let info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info).toMatchObject({
    Debug: false,
    Labels: ['site=a'],
    LoggingDriver: 'json-file',
    LiveRestoreEnabled: false,
    DockerRootDir: path.join(dir, 'data'),
    CgroupDriver: 'cgroupfs',
    RegistryConfig: { Mirrors: ['https://mirror.example.com/'], IndexConfigs: { 'myreg:5000': { Secure: false } } },
  });
  // bip: the default bridge's subnet and address (daemon-json-network.test covers the network keys)
  expect((await request(socket, 'GET', '/v1.24/networks/bridge')).json().IPAM.Config[0]).toEqual({ Subnet: SUBNET, Gateway: '10.251.79.1' });
  expect(fs.existsSync(path.join(dir, 'exec'))).toBe(true);
  // berth's records in the named containerd namespace
  expect((await request(socket, 'POST', '/v1.24/volumes/create', { body: { Name: 'dk' } })).status).toBe(201);
  expect(fs.existsSync(path.join(dir, 'data', 'volumes', 'dk'))).toBe(true);

  // SIGHUP: the reloadable keys, each changed
  const attrs = await reload(b, {
    debug: true,
    labels: ['site=b'],
    'insecure-registries': ['other:5000'],
    'registry-mirrors': ['https://m2.example.com'],
    'max-concurrent-downloads': 6,
    'max-concurrent-uploads': 1,
    'shutdown-timeout': 9,
    'live-restore': true,
    // and keys the engine does not reload
    'api-cors-header': 'https://b.example.com',
    dns: ['10.1.1.1'],
    'cgroup-parent': '/elsewhere',
  });
  expect(attrs).toMatchObject({
    debug: 'true',
    labels: '["site=b"]',
    'insecure-registries': '["other:5000"]',
    'registry-mirrors': '["https://m2.example.com"]',
    'max-concurrent-downloads': '6',
    'max-concurrent-uploads': '1',
    'shutdown-timeout': '9',
    'live-restore': 'true',
  });
  info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info).toMatchObject({ Debug: true, Labels: ['site=b'], LiveRestoreEnabled: true, RegistryConfig: { Mirrors: ['https://m2.example.com/'] } });
  expect(info.RegistryConfig.IndexConfigs['other:5000']).toMatchObject({ Secure: false });
  expect(info.RegistryConfig.IndexConfigs['myreg:5000']).toBeUndefined();
  // not reloaded: the CORS header stays
  expect((await request(socket, 'GET', '/_ping')).headers['access-control-allow-origin']).toBe('https://a.example.com');

  // every key of the wrong type, and each refused value: the file is refused whole with the engine's message (logged),
  // the running configuration kept
  expect(WRONG_TYPE.map(([k]) => k).sort()).toEqual([...ALL_KEYS].sort());
  const cases: [Record<string, unknown>, string][] = [
    ...WRONG_TYPE.map(([key, value, msg]): [Record<string, unknown>, string] => [{ [key]: value }, `${P.slice('berthd: '.length)}json: cannot unmarshal ${msg}`]),
    ...BAD_VALUE.map(([content, msg]): [Record<string, unknown>, string] => [content, msg.slice('berthd: '.length)]),
  ];
  for (const [content, msg] of cases) {
    const count = () => b.log().split('\n').filter((l) => l.includes(JSON.stringify(msg).slice(1, -1))).length;
    const n0 = count();
    fs.writeFileSync(file, JSON.stringify({ ...EVERY_KEY, ...content }));
    process.kill(b.child.pid!, 'SIGHUP');
    for (const t0 = Date.now(); count() === n0 && Date.now() - t0 < 5000; ) await new Promise((r) => setTimeout(r, 20));
    expect([content, count()]).toEqual([content, n0 + 1]);
  }
  expect((await request(socket, 'GET', '/v1.24/info')).json()).toMatchObject({ Debug: true, Labels: ['site=b'], LiveRestoreEnabled: true });

  // log-level: at 'error', the next reload's own info line is not written; back at 'info' it is again
  const gotSignal = () => b.log().split('\n').filter((l) => l.includes('Got signal to reload configuration')).length;
  await reload(b, { 'log-level': 'error' });
  const n = gotSignal();
  await reload(b, { 'log-level': 'info' }); // logged at the level before this reload: 'error'
  expect(gotSignal()).toBe(n);
  await reload(b, { 'log-level': 'info' });
  expect(gotSignal()).toBe(n + 1);

  b.child.kill('SIGTERM');
  expect(await exited(b.child)).toBe(0);
}, 120_000);
