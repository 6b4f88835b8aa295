// The default bridge with IPv6 (--ipv6 --fixed-cidr-v6, or daemon.json "ipv6"/"fixed-cidr-v6"), as the 20.10
// reference shows it (asked with a private dockerd started with the same flags): the bridge network lists the IPv6
// subnet without a gateway and says EnableIPv6; a container gets the subnet's prefix with its MAC address as the last
// six bytes (the subnet leaves 48 host bits or more), the subnet's first address as IPv6Gateway, at the top of
// NetworkSettings and under Networks.bridge, and an /etc/hosts line for it after the IPv4 one.
import { execFile } from 'node:child_process';
import * as crypto from 'node:crypto';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { FrameDecoder } from '../../src/http/stream';

// a /64 whose fourth group is 0, as the reference's 2001:db8:1::/64 (addresses then print as PREFIX::242:ac11:99)
const prefix = `fd${crypto.randomBytes(1).toString('hex')}:${crypto.randomInt(1, 0xffff).toString(16)}:${crypto.randomInt(1, 0xffff).toString(16)}`;
let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth({ config: { ipv6: true, fixedCidrV6: `${prefix}::5/64` } });
  await loadBusybox(b);
});
afterAll(async () => {
  await b?.close();
});

async function run(body: Record<string, unknown>, name: string): Promise<any> {
  const c = await b.request('POST', `/v1.24/containers/create?name=${name}`, { body: { Image: 'busybox', ...body } });
  expect(c.status).toBe(201);
  expect((await b.request('POST', `/v1.24/containers/${name}/start`)).status).toBe(204);
  return (await b.request('GET', `/v1.24/containers/${name}/json`)).json();
}

const logs = async (name: string) =>
  new FrameDecoder()
    .push((await b.request('GET', `/v1.24/containers/${name}/logs?stdout=1&stderr=1`)).body)
    .map((f) => f.payload.toString())
    .join('');

/** Whether an IPv6 address of a host interface is still tentative (duplicate address detection under way). */
const tentative = (dev: string) =>
  new Promise<boolean>((resolve) => execFile('ip', ['-6', 'addr', 'show', 'dev', dev, 'tentative'], (err, out) => resolve(!err && out.trim() !== '')));

/** The engine's address for a MAC on a /64: the prefix, then the MAC's six bytes. */
const fromMac = (mac: string) => {
  const h = mac.split(':');
  return `${prefix}::${[h[0] + h[1], h[2] + h[3], h[4] + h[5]].map((g) => g.replace(/^0+(?=.)/, '')).join(':')}`;
};

test('the default bridge is dual-stack: network, inspect, /etc/hosts, and a peer reaches the container over IPv6', async () => {
  const net = (await b.request('GET', '/v1.24/networks/bridge')).json();
  expect([net.EnableIPv6, net.IPAM.Config]).toEqual([true, [{ Subnet: b.config.bridgeSubnet, Gateway: expect.any(String) }, { Subnet: `${prefix}::/64` }]]);
  const a = await run({ Cmd: ['sleep', '60'] }, 'v6-a');
  const ns = a.NetworkSettings;
  const want = { GlobalIPv6Address: fromMac(ns.MacAddress), GlobalIPv6PrefixLen: 64, IPv6Gateway: `${prefix}::1` };
  expect(ns.MacAddress).toMatch(/^02:42:/);
  expect({ GlobalIPv6Address: ns.GlobalIPv6Address, GlobalIPv6PrefixLen: ns.GlobalIPv6PrefixLen, IPv6Gateway: ns.IPv6Gateway }).toEqual(want);
  expect(ns.Networks.bridge).toEqual(expect.objectContaining(want));
  expect((await b.request('GET', '/v1.24/networks/bridge')).json().Containers[a.Id].IPv6Address).toBe(`${want.GlobalIPv6Address}/64`);
  // before 1.22 the top-level IPv6 fields are not in the spec's NetworkSettings
  expect((await b.request('GET', `/v1.20/containers/v6-a/json`)).json().NetworkSettings.GlobalIPv6Address).toBeUndefined();

  const host = a.Config.Hostname;
  const hostsB = await run({ Cmd: ['sh', '-c', 'cat /etc/hosts; sleep 60'] }, 'v6-hosts');
  let hosts = '';
  for (let i = 0; i < 100 && !hosts.includes(`${hostsB.NetworkSettings.GlobalIPv6Address}\t`); i++) {
    await new Promise((r) => setTimeout(r, 50));
    hosts = await logs('v6-hosts');
  }
  expect(hosts).toBe(
    [
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet',
      'ff00::0\tip6-mcastprefix',
      'ff02::1\tip6-allnodes',
      'ff02::2\tip6-allrouters',
      `${hostsB.NetworkSettings.IPAddress}\t${hostsB.Config.Hostname}`,
      `${hostsB.NetworkSettings.GlobalIPv6Address}\t${hostsB.Config.Hostname}`,
      '',
    ].join('\n'),
  );
  expect(host).toBe(a.Id.slice(0, 12));

  // a given MAC address makes the IPv6 address; a peer reaches it, and the gateway answers
  const m = await run({ Cmd: ['sleep', '60'], MacAddress: '02:42:ac:11:00:99' }, 'v6-mac');
  expect(m.NetworkSettings.GlobalIPv6Address).toBe(`${prefix}::242:ac11:99`);
  // the gateway address the bridge got with the first container answers once the kernel's duplicate address
  // detection is done with it (about a second; the containers' own addresses are settled by the CNI plugin)
  for (let i = 0; i < 100 && (await tentative(b.config.bridgeName)); i++) await new Promise((r) => setTimeout(r, 50));
  await run({ Cmd: ['sh', '-c', `ping -6 -c1 -W5 ${prefix}::242:ac11:99 >/dev/null && echo peer; ping -6 -c1 -W5 ${prefix}::1 >/dev/null && echo gateway`] }, 'v6-ping');
  expect((await b.request('POST', '/v1.24/containers/v6-ping/wait')).json().StatusCode).toBe(0);
  expect(await logs('v6-ping')).toBe('peer\ngateway\n');
  for (const n of ['v6-a', 'v6-hosts', 'v6-mac', 'v6-ping']) await b.request('DELETE', `/v1.24/containers/${n}?force=1`);
});

test('a dual-stack user network: the container\'s /etc/hosts has its IPv6 line after the IPv4 one, as the reference writes it', async () => {
  const net = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'v6-user', EnableIPv6: true, IPAM: { Config: [{ Subnet: `${prefix}:9::/64` }] } } });
  expect(net.status).toBe(201);
  const c = await run({ Cmd: ['sh', '-c', 'cat /etc/hosts; sleep 60'], HostConfig: { NetworkMode: 'v6-user' } }, 'v6-user-c');
  const ep = c.NetworkSettings.Networks['v6-user'];
  expect(ep.GlobalIPv6Address).toBe(`${prefix}:9::2`);
  let hosts = '';
  for (let i = 0; i < 100 && !hosts.includes(`${ep.GlobalIPv6Address}\t`); i++) {
    await new Promise((r) => setTimeout(r, 50));
    hosts = await logs('v6-user-c');
  }
  expect(hosts.split('\n').slice(6)).toEqual([`${ep.IPAddress}\t${c.Config.Hostname}`, `${ep.GlobalIPv6Address}\t${c.Config.Hostname}`, '']);
  await b.request('DELETE', '/v1.24/containers/v6-user-c?force=1');
  expect((await b.request('DELETE', '/v1.24/networks/v6-user')).status).toBe(204);
});
