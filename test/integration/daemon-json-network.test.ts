// daemon.json's network keys acted on through the real bin/berthd (docs/operations.md): bip (the default bridge's
// address and prefix), default-address-pools (the subnets of networks created without one), iptables and ip-forward
// (false: berth installs no host rules and leaves net.ipv4.ip_forward alone), userland-proxy (either way a published
// port answers on 127.0.0.1, as the engine's proxy or its hairpin rules make it). Each berthd runs in a network
// namespace of the test's own (nsenter --net), so its forwarding switch and iptables rules are its alone.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../helpers/berth';
import { berthdLauncher, exited, type Berthd } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-dnet-'));
const namespace = `berth-dnet-${process.pid}`;
const NETNS = `berth-dnet-${process.pid}`;
const { berthd, stop, cleanup } = berthdLauncher({ dir, namespace, bridge: `bdn${process.pid % 10000}`, subnet: '10.251.87.0/24' });
const file = path.join(dir, 'daemon.json');
const socket = path.join(dir, 'berth.sock');
const inNs = (cmd: string[]): string => execFileSync('ip', ['netns', 'exec', NETNS, ...cmd], { encoding: 'utf8' });

beforeAll(() => {
  execFileSync('ip', ['netns', 'add', NETNS]);
  execFileSync('ip', ['-n', NETNS, 'link', 'set', 'lo', 'up']);
});

afterAll(async () => {
  await cleanup();
  // the namespace's bridges and rules go with it
  try {
    execFileSync('ip', ['netns', 'delete', NETNS], { stdio: 'ignore' });
  } catch {
    /* not made */
  }
}, 60_000);

async function start(content: Record<string, unknown>): Promise<Berthd> {
  fs.writeFileSync(file, JSON.stringify(content));
  const b = await berthd(['-H', `unix://${socket}`, '--config-file', file], { socket, wrap: ['nsenter', `--net=/run/netns/${NETNS}`] });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['busybox:latest'] }) })).status).toBe(200);
  return b;
}

/** A busybox httpd on the default bridge with container port 80 published on 127.0.0.1; its inspect. */
async function web(name: string): Promise<Record<string, any>> {
  const c = await request(socket, 'POST', `/v1.24/containers/create?name=${name}`, {
    body: { Image: 'busybox', Cmd: ['sh', '-c', `echo ${name} > /tmp/index.html; exec httpd -f -p 80 -h /tmp`], ExposedPorts: { '80/tcp': {} }, HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } } },
  });
  expect(c.status).toBe(201);
  const st = await request(socket, 'POST', `/v1.24/containers/${name}/start`);
  expect([st.status, st.body.toString()]).toEqual([204, '']);
  return (await request(socket, 'GET', `/v1.24/containers/${name}/json`)).json();
}

/** What 127.0.0.1:port answers inside the namespace ('' when nothing does), a few tries. */
function fetchLocal(port: string): string {
  for (let i = 0; i < 10; i++) {
    try {
      return inNs(['wget', '-q', '-T', '2', '-O', '-', `http://127.0.0.1:${port}/`]);
    } catch {
      execFileSync('sleep', ['0.3']);
    }
  }
  return '';
}

/** The rules of a table as iptables-save prints them (the -A lines). */
const rules = (table: string) => inNs(['iptables-save', '-t', table]).split('\n').filter((l) => l.startsWith('-A'));

test('bip, default-address-pools; iptables: false and ip-forward: false install no rules and leave forwarding off', async () => {
  // a new namespace takes the host's value here: off first
  inNs(['sysctl', '-qw', 'net.ipv4.ip_forward=0']);
  const b = await start({ bip: '10.251.88.5/24', 'default-address-pools': [{ base: '10.252.0.0/16', size: 24 }], iptables: false, 'ip-forward': false });
  // bip: the default bridge's subnet and its own address
  const bridge = (await request(socket, 'GET', '/v1.24/networks/bridge')).json();
  expect(bridge.IPAM.Config).toEqual([{ Subnet: '10.251.88.0/24', Gateway: '10.251.88.5' }]);
  // default-address-pools: networks without a subnet, in order
  for (const [name, subnet] of [['p1', '10.252.0.0/24'], ['p2', '10.252.1.0/24']]) {
    const r = await request(socket, 'POST', '/v1.24/networks/create', { body: { Name: name } });
    expect(r.status).toBe(201);
    expect((await request(socket, 'GET', `/v1.24/networks/${name}`)).json().IPAM.Config).toEqual([{ Subnet: subnet, Gateway: subnet.replace(/0\/24$/, '1') }]);
  }
  const w = await web('w1');
  expect(w.NetworkSettings.IPAddress).toMatch(/^10\.251\.88\.\d+$/);
  expect(w.NetworkSettings.Gateway).toBe('10.251.88.5');
  expect(inNs(['ip', '-4', 'addr', 'show', 'dev', `bdn${process.pid % 10000}`])).toContain('inet 10.251.88.5/24');
  // no rule in any table, forwarding still off; the published port is recorded but nothing forwards it
  expect({ filter: rules('filter'), nat: rules('nat') }).toEqual({ filter: [], nat: [] });
  expect(inNs(['cat', '/proc/sys/net/ipv4/ip_forward']).trim()).toBe('0');
  expect(w.NetworkSettings.Ports['80/tcp'][0].HostIp).toBe('127.0.0.1');
  expect(() => inNs(['wget', '-q', '-T', '2', '-O', '-', `http://127.0.0.1:${w.NetworkSettings.Ports['80/tcp'][0].HostPort}/`])).toThrow();
  // the container itself answers on its bridge address
  expect(inNs(['wget', '-q', '-T', '3', '-O', '-', `http://${w.NetworkSettings.IPAddress}/`])).toBe('w1\n');
  await request(socket, 'DELETE', '/v1.24/containers/w1?force=1');
  for (const n of ['p1', 'p2']) expect((await request(socket, 'DELETE', `/v1.24/networks/${n}`)).status).toBe(204);
  await stop(b);
}, 120_000);

test('iptables and ip-forward on (the defaults): the bridge rules and forwarding; a published port answers on 127.0.0.1 with userland-proxy false and true', async () => {
  for (const proxy of [false, true]) {
    const b = await start({ 'userland-proxy': proxy });
    const w = await web(`w-${proxy}`);
    expect(inNs(['cat', '/proc/sys/net/ipv4/ip_forward']).trim()).toBe('1');
    const nat = rules('nat');
    expect(nat).toContain(`-A POSTROUTING -s 10.251.87.0/24 ! -o bdn${process.pid % 10000} -j MASQUERADE`);
    expect(nat.some((l) => l.includes('CNI-HOSTPORT-DNAT'))).toBe(true);
    expect(fetchLocal(w.NetworkSettings.Ports['80/tcp'][0].HostPort)).toBe(`w-${proxy}\n`);
    await request(socket, 'DELETE', `/v1.24/containers/w-${proxy}?force=1`);
    await stop(b);
  }
}, 120_000);

test("bad bip, default-address-pools and exec-opts refuse the start with the engine's messages; systemd needs systemd running", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ bip: '10.1.2.3' }, 'failed to start daemon: Error initializing network controller: Error initializing bridge driver: invalid CIDR address: 10.1.2.3'],
    [{ 'default-address-pools': [{ base: '10.0.0.0/16', size: 8 }] }, 'failed to start daemon: Error initializing network controller: error obtaining controller instance: invalid pools size: 8'],
    [{ 'default-address-pools': [{ base: '10.0.0.0/33', size: 24 }] }, 'failed to start daemon: Error initializing network controller: error obtaining controller instance: invalid base pool "10.0.0.0/33": invalid CIDR address: 10.0.0.0/33'],
    [{ 'exec-opts': ['native.cgroupdriver=foo'] }, 'failed to start daemon: native.cgroupdriver option foo not supported'],
    [{ 'exec-opts': ['native.cgroupdriver=none'] }, 'failed to start daemon: native.cgroupdriver option none is internally used and cannot be specified manually'],
  ];
  // this host runs no systemd (runc's test: /run/systemd/system): the engine starts and every container then fails
  // with runc's message; berth refuses the start with it
  if (!fs.existsSync('/run/systemd/system')) cases.push([{ 'exec-opts': ['native.cgroupdriver=systemd'] }, 'failed to start daemon: native.cgroupdriver option systemd: systemd not running on this host, cannot use systemd cgroups manager']);
  for (const [content, msg] of cases) {
    fs.writeFileSync(file, JSON.stringify(content));
    const b = await berthd(['-H', `unix://${socket}`, '--config-file', file]);
    expect([content, await exited(b.child), b.log().trim().split('\n').at(-1)]).toEqual([content, 1, `berthd: ${msg}`]);
  }
  // options other than native.cgroupdriver, and one without a value, are ignored as the engine ignores them
  const b = await start({ 'exec-opts': ['bogus=1', 'native.cgroupdriver', 'native.cgroupdriver=cgroupfs'] });
  expect((await request(socket, 'GET', '/v1.24/info')).json().CgroupDriver).toBe('cgroupfs');
  await stop(b);
}, 120_000);
