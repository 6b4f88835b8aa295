import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

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

  test('published ports answer on 127.0.0.1; containers reach each other; -P picks ephemeral ports; leases are released', async () => {
    const run = (args: string[]) => b.docker(args, { apiVersion: '1.24' });
    await run(['run', '-d', '--name', 'web', '-p', '127.0.0.1:0:80', 'busybox', 'sh', '-c', 'echo hello-web > /www/index.html; exec httpd -f -p 80 -h /www']);
    const insp = (await b.request('GET', '/v1.24/containers/web/json')).json();
    const ip = insp.NetworkSettings.IPAddress;
    expect(ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(insp.NetworkSettings.Networks.bridge.IPAddress).toBe(ip);
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

  test('NetworkMode none has loopback only; host shares the host network', async () => {
    const none = await b.docker(['run', '--rm', '--net', 'none', 'busybox', 'sh', '-c', 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "'], { apiVersion: '1.24' });
    expect(none.stdout).toBe('lo\n');
    const host = await b.docker(['run', '--rm', '--net', 'host', 'busybox', 'hostname'], { apiVersion: '1.24' });
    expect(host.stdout.trim()).toBe(require('node:os').hostname());
    const unknown = await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', HostConfig: { NetworkMode: 'nosuchnet' } } });
    expect(unknown.status).toBe(404);
  });
});
