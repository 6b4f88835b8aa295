import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { spawner } from '../../src/spawner';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let d = '';
      res.on('data', (c) => (d += c));
      res.on('end', () => resolve(d));
    }).on('error', reject);
  });
}

async function getRetry(url: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    try {
      return await get(url);
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return get(url);
}

describe('NetworkMode none', () => {
  // As the reference writes them (asked of it: `docker run --rm --network none busybox cat /etc/hosts`): no line for
  // the hostname, which has no address here (berth wrote "\t<hostname>" at each start).
  test('/etc/hosts has the localhost lines only, /etc/hostname the short id', async () => {
    const r = await b.docker(['run', '--rm', '--network', 'none', 'busybox', 'sh', '-c', 'cat /etc/hosts; echo ---; cat /etc/hostname'], { apiVersion: '1.24' });
    const [hosts, hostname] = r.stdout.split('---\n');
    expect(hosts).toBe('127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n');
    expect(hostname).toMatch(/^[0-9a-f]{12}\n$/);
  });
});

describe('the default bridge through CNI', () => {
  test('an address in the bridge subnet, /etc/hosts names it, NetworkSettings show it per version', async () => {
    const r = await b.docker(['run', '--name', 'addr', 'busybox', 'sh', '-c', 'grep -c eth0 /proc/net/dev; tail -1 /etc/hosts'], { apiVersion: '1.24' });
    const ns = (await b.request('GET', '/v1.24/containers/addr/json')).json();
    expect(r.stdout.split('\n')[0]).toBe('1');
    expect(r.stdout).toContain(`\t${ns.Config.Hostname}`);
    // after the exit the endpoint is released
    expect(ns.NetworkSettings.IPAddress).toBe('');
    expect(ns.NetworkSettings.Networks.bridge).toBeDefined();
    await b.request('DELETE', '/v1.24/containers/addr');
  });

  // The CNI plugins, `ip netns` and mkfifo run in one kept sh (src/spawner.ts; this test's berth runs in this process,
  // so it is this process's helper). Stopped, then killed while a start's commands wait in its input: they run on a
  // new helper and the start succeeds (before, they failed with "the command helper exited" and so did the start).
  test('a start whose commands the command helper died under succeeds on a new helper', async () => {
    const id = (await b.request('POST', '/v1.24/containers/create?name=helper-died', { body: { Image: 'busybox', Cmd: ['sleep', '100'] } })).json().Id;
    await spawner.run('true', []);
    const current = (spawner as unknown as { current: { child: { pid: number }; ids: Set<number> } }).current;
    process.kill(current.child.pid, 'SIGSTOP');
    const started = b.request('POST', `/v1.24/containers/${id}/start`);
    // (until the start has given the stopped helper a command: the CNI ADD, or a mkfifo)
    for (let i = 0; i < 200 && current.ids.size === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(current.ids.size).toBeGreaterThan(0);
    process.kill(current.child.pid, 'SIGKILL');
    expect((await started).status).toBe(204);
    const ns = (await b.request('GET', `/v1.24/containers/${id}/json`)).json();
    expect([ns.State.Running, ns.NetworkSettings.IPAddress]).toEqual([true, expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/)]);
    expect((await b.request('DELETE', `/v1.24/containers/${id}?force=1`)).status).toBe(204);
  });

  test('published ports answer on 127.0.0.1; containers reach each other; -P picks ephemeral ports; leases are released', async () => {
    const run = (args: string[]) => b.docker(args, { apiVersion: '1.24' });
    await run(['run', '-d', '--name', 'web', '-p', '127.0.0.1:0:80', 'busybox', 'sh', '-c', 'echo hello-web > /www/index.html; exec httpd -f -p 80 -h /www']);
    const insp = (await b.request('GET', '/v1.24/containers/web/json')).json();
    const ip = insp.NetworkSettings.IPAddress;
    expect(ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(insp.NetworkSettings.Networks.bridge.IPAddress).toBe(ip);
    // the reference's MAC: 02:42 and the address's four bytes (172.17.0.2 → 02:42:ac:11:00:02)
    expect(insp.NetworkSettings.MacAddress).toBe(['02', '42', ...ip.split('.').map((x: string) => Number(x).toString(16).padStart(2, '0'))].join(':'));
    expect(insp.NetworkSettings.Networks.bridge.MacAddress).toBe(insp.NetworkSettings.MacAddress);
    const host = insp.NetworkSettings.Ports['80/tcp'][0];
    expect(host.HostIp).toBe('127.0.0.1');
    expect(await getRetry(`http://127.0.0.1:${host.HostPort}/`)).toBe('hello-web\n');
    const list = (await b.request('GET', '/v1.24/containers/json')).json();
    expect(list[0].Ports).toEqual([{ IP: '127.0.0.1', PrivatePort: 80, PublicPort: Number(host.HostPort), Type: 'tcp' }]);
    // Bounded attempts (nc -w 3): a first connection on a fresh bridge was once seen to go unanswered in a full
    // CI run; reachability itself is what is asserted.
    const probe = `for i in 1 2 3 4 5; do printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${ip} 80 | grep -q hello-web && echo reached && exit 0; sleep 0.5; done; exit 1`;
    const peer = await run(['run', '--rm', 'busybox', 'sh', '-c', probe]);
    expect([peer.code, peer.stdout]).toEqual([0, 'reached\n']);
    await run(['run', '-d', '--name', 'web2', '-P', '--expose', '80', 'busybox', 'httpd', '-f', '-p', '80', '-h', '/www']);
    const port = await run(['port', 'web2', '80']);
    expect(port.stdout).toMatch(/^0\.0\.0\.0:\d+\n$/);
    await run(['rm', '-f', 'web', 'web2']);
    // Endpoint teardown runs off the remove path: wait (bounded) for the leases and the namespace to go.
    const ipam = path.join(b.config.dataRoot, 'network', 'ipam');
    const leftovers = () => [
      ...fs.readdirSync(ipam).flatMap((n) => fs.readdirSync(path.join(ipam, n))).filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f)),
      ...(fs.existsSync(`/var/run/netns/berth-${insp.Id.slice(0, 16)}`) ? ['netns'] : []),
    ];
    for (let i = 0; i < 100 && leftovers().length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(leftovers()).toEqual([]);
  });

  test('the netns the create makes ahead goes with a removal before any start, and after a run', async () => {
    const netns = (id: string) => `/var/run/netns/berth-${id.slice(0, 16)}`;
    const create = async () => (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'] } })).json().Id as string;
    const early = await create(); // removed at once, while its netns may still be in the making
    expect((await b.request('DELETE', `/v1.24/containers/${early}`)).status).toBe(204);
    expect(fs.existsSync(netns(early))).toBe(false);
    const ran = await create();
    expect((await b.request('POST', `/v1.24/containers/${ran}/start`)).status).toBe(204);
    expect((await b.request('POST', `/v1.24/containers/${ran}/wait`)).json().StatusCode).toBe(0);
    expect((await b.request('DELETE', `/v1.24/containers/${ran}`)).status).toBe(204);
    for (let i = 0; i < 100 && fs.existsSync(netns(ran)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(netns(ran))).toBe(false);
  });

  // The reference (20.10, asked at 1.18/1.20/1.22/1.24): a container in NetworkMode none has a sandbox from its first
  // start, SandboxID 64 hex and SandboxKey a netns path (sent at every version; the spec has them since 1.22), kept
  // after it stops; while it runs, an endpoint on the none network (Networks.none.EndpointID, the network's
  // Containers), '' once it stopped; the top-level EndpointID stays ''. Before the first start all are ''.
  test('NetworkMode none: a named sandbox with its loopback up, an endpoint on none while it runs, the sandbox named after the stop, gone with the container', async () => {
    const id = (await b.request('POST', '/v1.24/containers/create?name=sandbox-none', { body: { Image: 'busybox', Cmd: ['sh', '-c', 'cat /sys/class/net/lo/flags; sleep 60'], HostConfig: { NetworkMode: 'none' } } })).json().Id as string;
    const key = `/var/run/netns/berth-${id.slice(0, 16)}`;
    const settings = async (v: string) => (await b.request('GET', `/v${v}/containers/${id}/json`)).json().NetworkSettings;
    for (const v of ['1.22', '1.24']) expect([v, (await settings(v)).SandboxID, (await settings(v)).SandboxKey]).toEqual([v, '', '']);
    expect((await settings('1.24')).Networks.none.EndpointID).toBe('');
    expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    for (const v of ['1.22', '1.24']) {
      const n = await settings(v);
      expect([v, n.SandboxID, n.SandboxKey, n.EndpointID, n.Networks.none.EndpointID, n.Networks.none.NetworkID]).toEqual([v, expect.stringMatching(/^[0-9a-f]{64}$/), key, '', expect.stringMatching(/^[0-9a-f]{64}$/), expect.stringMatching(/^[0-9a-f]{64}$/)]);
    }
    // (named just after the start, off its path)
    for (let i = 0; i < 100 && !fs.existsSync(key); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(key)).toBe(true);
    const endpointId = (await settings('1.24')).Networks.none.EndpointID;
    const none = (await b.request('GET', '/v1.24/networks/none')).json();
    expect(none.Containers[id]).toEqual({ Name: 'sandbox-none', EndpointID: endpointId, MacAddress: '', IPv4Address: '', IPv6Address: '' });
    // lo is up (IFF_UP|IFF_LOOPBACK): the namespace is the one runc made
    for (let i = 0; i < 100 && !(await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1`)).text.includes('0x'); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1`)).text).toContain('0x9');
    expect((await b.request('POST', `/v1.24/containers/${id}/stop?t=0`)).status).toBe(204);
    const after = await settings('1.24');
    expect([after.SandboxID, after.SandboxKey, after.Networks.none.EndpointID]).toEqual([id, key, '']);
    expect(((await b.request('GET', '/v1.24/networks/none')).json().Containers ?? {})[id]).toBeUndefined();
    for (let i = 0; i < 100 && fs.existsSync(key); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(key)).toBe(false); // (the namespace goes at the stop; the next start makes a new one)
    expect((await b.request('DELETE', `/v1.24/containers/${id}`)).status).toBe(204);
    // created for the bridge, started with NetworkMode none in start's HostConfig (API < 1.24): the netns made
    // ahead for the bridge (lo down) is not the one it runs in
    const switched = (await b.request('POST', '/v1.20/containers/create', { body: { Image: 'busybox', Cmd: ['cat', '/sys/class/net/lo/flags'] } })).json().Id as string;
    expect((await b.request('POST', `/v1.20/containers/${switched}/start`, { body: { NetworkMode: 'none' } })).status).toBe(204);
    expect((await b.request('POST', `/v1.20/containers/${switched}/wait`)).json().StatusCode).toBe(0);
    expect((await b.request('GET', `/v1.20/containers/${switched}/logs?stdout=1`)).text).toContain('0x9');
    expect((await b.request('DELETE', `/v1.24/containers/${switched}`)).status).toBe(204);
    expect(fs.existsSync(`/var/run/netns/berth-${switched.slice(0, 16)}`)).toBe(false);
  });

  test('NetworkMode none has loopback only; host shares the host network', async () => {
    const none = await b.docker(['run', '--rm', '--net', 'none', 'busybox', 'sh', '-c', 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "'], { apiVersion: '1.24' });
    expect(none.stdout).toBe('lo\n');
    const host = await b.docker(['run', '--rm', '--net', 'host', 'busybox', 'hostname'], { apiVersion: '1.24' });
    expect(host.stdout.trim()).toBe(require('node:os').hostname());
    // as the reference: made at create, refused at start
    const unknown = await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', HostConfig: { NetworkMode: 'nosuchnet' } } });
    expect(unknown.status).toBe(201);
    expect((await b.request('POST', `/v1.24/containers/${unknown.json().Id}/start`)).status).toBe(404);
    await b.request('DELETE', `/v1.24/containers/${unknown.json().Id}`);
  });
});
