// User-defined networks through the docker CLI and the API: create/ls/inspect/connect/disconnect/rm, name and
// alias resolution between containers, fixed addresses, legacy links, network events, persistence.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const run = (args: string[], apiVersion = '1.24') => b.docker(args, { apiVersion });

/** A shell loop that waits (bounded) until `name` answers one ping. */
/** The MAC the reference gives an interface: 02:42 and the four bytes of its IPv4 address. */
const macOf = (ip: string) => ['02', '42', ...ip.split('.').map((x) => Number(x).toString(16).padStart(2, '0'))].join(':');

const pingLoop = (name: string) => `(for i in $(seq 1 30); do ping -c 1 -W 1 ${name} >/dev/null 2>&1 && echo ok-${name} && exit 0; sleep 0.2; done; exit 1)`;

describe('user-defined networks', () => {
  test('create, ls, inspect, rm with the CLI; shapes per version; predefined ones are protected', async () => {
    const c = await run(['network', 'create', '--subnet', '10.123.45.0/24', '--gateway', '10.123.45.1', '--label', 'team=a', 'front']);
    expect(c.code).toBe(0);
    const id = c.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const ls = await run(['network', 'ls', '--format', '{{.Name}} {{.Driver}}']);
    expect(ls.stdout.split('\n').sort().filter(Boolean)).toEqual(['bridge bridge', 'front bridge', 'host host', 'none null']);
    const v24 = (await b.request('GET', '/v1.24/networks/front')).json();
    expect(v24).toEqual({
      Name: 'front', Id: id, Created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), Scope: 'local', Driver: 'bridge', EnableIPv6: false,
      IPAM: { Driver: 'default', Options: {}, Config: [{ Subnet: '10.123.45.0/24', Gateway: '10.123.45.1' }] },
      Internal: false, Attachable: false, Ingress: false, ConfigFrom: { Network: '' }, ConfigOnly: false, Containers: {}, Options: {}, Labels: { team: 'a' },
    });
    const v22 = (await b.request('GET', `/v1.22/networks/${id.slice(0, 10)}`)).json();
    expect(Object.keys(v22)).toEqual(['Name', 'Id', 'Created', 'Scope', 'Driver', 'IPAM', 'Attachable', 'Ingress', 'ConfigFrom', 'ConfigOnly', 'Containers', 'Options']);
    const custom = (await b.request('GET', '/v1.24/networks?filters=' + encodeURIComponent('{"type":["custom"]}'))).json();
    expect(custom.map((n: { Name: string }) => n.Name)).toEqual(['front']);
    const byLabel = (await b.request('GET', '/v1.24/networks?filters=' + encodeURIComponent('{"label":["team=a"]}'))).json();
    expect(byLabel.map((n: { Name: string }) => n.Name)).toEqual(['front']);
    expect((await b.request('GET', '/v1.22/networks?filters=' + encodeURIComponent('{"driver":["bridge"]}'))).status).toBe(400);

    const dup = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'front', CheckDuplicate: true } });
    expect(dup.status).toBe(409);
    expect(dup.json().message).toBe('network with name front already exists');
    const overlap = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'x', IPAM: { Config: [{ Subnet: '10.123.0.0/16' }] } } });
    expect(overlap.status).toBe(403);
    const plugin = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'x', Driver: 'weird' } });
    expect([plugin.status, plugin.json().message]).toEqual([404, 'plugin "weird" not found']);
    const pre = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'bridge' } });
    expect([pre.status, pre.json().message]).toEqual([403, 'operation is not permitted on predefined bridge network ']);
    const rmHost = await b.request('DELETE', '/v1.24/networks/host');
    expect([rmHost.status, rmHost.json().message]).toEqual([403, 'host is a pre-defined network and cannot be removed']);
    expect((await b.request('GET', '/v1.24/networks/nope')).status).toBe(404);

    // an automatically chosen subnet; removed with 200 at 1.22 (the spec), 204 at 1.21 and 1.23 (not shown in the
    // spec: the reference's) and from 1.24
    for (const v of ['1.21', '1.23']) {
      expect((await b.request('POST', `/v${v}/networks/create`, { body: { Name: `rm${v}` } })).status).toBe(201);
      const rm = await b.request('DELETE', `/v${v}/networks/rm${v}`);
      expect([rm.status, rm.text]).toEqual([204, '']);
    }
    const auto = (await b.request('POST', '/v1.22/networks/create', { body: { Name: 'auto' } })).json();
    const autoNet = (await b.request('GET', `/v1.24/networks/${auto.Id}`)).json();
    expect(autoNet.IPAM.Config[0].Subnet).toMatch(/^(172|192\.168)\./);
    expect(autoNet.IPAM.Options).toBeNull();
    expect((await b.request('DELETE', '/v1.22/networks/auto')).status).toBe(200);
    expect((await run(['network', 'rm', 'front'])).code).toBe(0);
    expect((await b.request('GET', `/v1.24/networks/${id}`)).status).toBe(404);
  });

  test('containers on one network reach each other by name, alias and short id; connect/disconnect live; rm refused while in use', async () => {
    expect((await run(['network', 'create', 'appnet'])).code).toBe(0);
    expect((await run(['run', '-d', '--name', 'db', '--net', 'appnet', '--network-alias', 'database', 'busybox', 'sleep', '300'])).code).toBe(0);
    const dbId = (await b.request('GET', '/v1.24/containers/db/json')).json().Id as string;
    const r = await run(['run', '--rm', '--net', 'appnet', 'busybox', 'sh', '-c', `${pingLoop('db')} && ${pingLoop('database')} && ${pingLoop(dbId.slice(0, 12))}`]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['ok-db', 'ok-database', `ok-${dbId.slice(0, 12)}`]);

    const insp = (await b.request('GET', '/v1.24/containers/db/json')).json();
    const ep = insp.NetworkSettings.Networks.appnet;
    expect(ep.Aliases).toEqual(['database', dbId.slice(0, 12)]);
    expect(ep.IPAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(insp.NetworkSettings.IPAddress).toBe('');
    const net = (await b.request('GET', '/v1.24/networks/appnet')).json();
    expect(net.Containers[dbId]).toMatchObject({ Name: 'db', IPv4Address: `${ep.IPAddress}/${ep.IPPrefixLen}`, MacAddress: ep.MacAddress });
    // the reference's MAC: 02:42 and the IPv4 address's bytes (10.123.0.2 → 02:42:0a:7b:00:02), on every network
    expect(ep.MacAddress).toBe(macOf(ep.IPAddress));

    // a container on the default bridge is connected live, and gets the name then
    const probe = await run(['run', '-d', '--name', 'probe', 'busybox', 'sleep', '300']);
    // (the CLI may log its own cancelled events subscription at API 1.24; only a daemon error fails here)
    expect([probe.code, probe.code ? probe.stderr : '']).toEqual([0, '']);
    expect((await run(['network', 'connect', '--alias', 'prober', 'appnet', 'probe'])).code).toBe(0);
    const probeNets = (await b.request('GET', '/v1.24/containers/probe/json')).json().NetworkSettings.Networks;
    for (const n of ['bridge', 'appnet']) expect([n, probeNets[n].MacAddress]).toEqual([n, macOf(probeNets[n].IPAddress)]);
    const seen = await run(['exec', 'probe', 'sh', '-c', `grep -c eth /proc/net/dev; cat /sys/class/net/eth1/address; ${pingLoop('db')}`]);
    expect(seen.stdout.trim().split('\n')).toEqual(['2', probeNets.appnet.MacAddress, 'ok-db']);
    const back = await run(['exec', 'db', 'sh', '-c', pingLoop('prober')]);
    expect(back.stdout.trim()).toBe('ok-prober');
    const again = await run(['network', 'connect', 'appnet', 'probe']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('endpoint with name probe already exists in network appnet');

    const busy = await b.request('DELETE', '/v1.24/networks/appnet');
    expect(busy.status).toBe(403);
    expect(busy.json().message).toContain('has active endpoints');

    expect((await run(['network', 'disconnect', 'appnet', 'probe'])).code).toBe(0);
    const after = await run(['exec', 'probe', 'sh', '-c', 'grep -c eth /proc/net/dev; grep -cw db /etc/hosts || true']);
    expect(after.stdout.trim().split('\n')).toEqual(['1', '0']);
    const notOn = await b.request('POST', '/v1.24/networks/appnet/disconnect', { body: { Container: 'probe' } });
    expect(notOn.status).toBe(500);

    expect((await run(['rm', '-f', 'db', 'probe'])).code).toBe(0);
    expect((await run(['network', 'rm', 'appnet'])).code).toBe(0);
  });

  test('a fixed address on a network with a configured subnet; network events; networks survive a restart', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    expect((await run(['network', 'create', '--subnet', '10.124.7.0/24', 'fixed'])).code).toBe(0);
    const r = await run(['run', '--name', 'pinned', '--net', 'fixed', '--ip', '10.124.7.77', 'busybox', 'sh', '-c', 'ip -4 addr show eth0 | grep -o "inet [0-9.]*"; cat /sys/class/net/eth0/address']);
    expect(r.stdout.trim().split('\n')).toEqual(['inet 10.124.7.77', '02:42:0a:7c:07:4d']);
    // the reference (20.10, 1.18-1.24): the create is made, its start is the 404
    const bad = await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'nope' } } });
    expect(bad.status).toBe(201);
    const badStart = await b.request('POST', `/v1.24/containers/${bad.json().Id}/start`);
    expect([badStart.status, badStart.json().message]).toEqual([404, 'network nope not found']);
    await b.request('DELETE', `/v1.24/containers/${bad.json().Id}`);

    const evs = async (from: number | string) => {
      const until = Math.floor(Date.now() / 1000) + 1;
      const ev = await b.request('GET', `/v1.24/events?since=${from}&until=${until}&filters=${encodeURIComponent('{"type":["network"]}')}`);
      return ev.body.toString().trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.Actor.Attributes.name === 'fixed').map((e) => e.Action);
    };
    expect(await evs(since)).toEqual(['create', 'connect', 'disconnect']);
    // containers started at once get addresses in order (as host-local hands them out), each its own MAC from it; a
    // MacAddress given is kept
    const many = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sleep', '60'], ...(i === 3 ? { MacAddress: '02:00:00:00:00:01' } : {}), HostConfig: { NetworkMode: 'fixed' } } })).json().Id as string;
        expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
        const ep = (await b.request('GET', `/v1.24/containers/${id}/json`)).json().NetworkSettings.Networks.fixed;
        await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
        return { ip: ep.IPAddress as string, mac: ep.MacAddress as string, given: i === 3 };
      }),
    );
    expect(new Set(many.map((m) => m.ip)).size).toBe(4);
    for (const m of many) expect(m.mac).toBe(m.given ? '02:00:00:00:00:01' : macOf(m.ip));
    // a lease left by a teardown that a crash cut short is released when berth starts
    const netId = (await b.request('GET', '/v1.24/networks/fixed')).json().Id as string;
    const stale = path.join(b.config.dataRoot, 'network', 'ipam', `berth-${netId.slice(0, 12)}`, '10.124.7.99');
    fs.writeFileSync(stale, 'f00dfeed\neth0');
    await b.restart();
    expect(fs.existsSync(stale)).toBe(false);
    // (the ring survives the restart: start counting from now, to the millisecond)
    const since2 = (Date.now() / 1000).toFixed(3);
    const net = (await b.request('GET', '/v1.24/networks/fixed')).json();
    expect(net.IPAM.Config[0].Subnet).toBe('10.124.7.0/24');
    // the stopped container is still configured on it and starts on it again
    const again = await run(['start', '-a', 'pinned']);
    expect([again.stdout.trim(), again.stderr]).toEqual(['inet 10.124.7.77\n02:42:0a:7c:07:4d', '']);
    expect((await run(['rm', 'pinned'])).code).toBe(0);
    expect((await run(['network', 'rm', 'fixed'])).code).toBe(0);
    expect(await evs(since2)).toEqual(['connect', 'disconnect', 'destroy']);
  });

  test('legacy links on the default bridge: the alias resolves and the environment is set', async () => {
    expect((await run(['run', '-d', '--name', 'target', '-e', 'SECRET=x', '--expose', '6379', 'busybox', 'sleep', '300'])).code).toBe(0);
    const ip = (await b.request('GET', '/v1.24/containers/target/json')).json().NetworkSettings.IPAddress;
    const r = await run(['run', '--rm', '--link', 'target:cache', 'busybox', 'sh', '-c', 'env | grep ^CACHE_ | sort; grep cache /etc/hosts']);
    expect(r.stdout).toContain(`CACHE_PORT=tcp://${ip}:6379\n`);
    expect(r.stdout).toContain(`CACHE_PORT_6379_TCP_ADDR=${ip}\n`);
    expect(r.stdout).toContain('CACHE_ENV_SECRET=x\n');
    expect(r.stdout).toMatch(/CACHE_NAME=\/[a-z_0-9]+\/cache\n/);
    expect(r.stdout).toContain(`${ip}\tcache`);
    // recorded as the engine records it; DELETE /containers/<parent>/<alias>?link=1 removes it (and its hosts line)
    expect((await run(['run', '-d', '--name', 'parent', '--link', 'target:cache', 'busybox', 'sleep', '300'])).code).toBe(0);
    expect((await b.request('GET', '/v1.24/containers/parent/json')).json().HostConfig.Links).toEqual(['/target:/parent/cache']);
    expect((await b.request('DELETE', '/v1.24/containers/parent/nope?link=1')).json()).toEqual({ message: 'No such container: parent/nope' });
    expect((await b.request('DELETE', '/v1.24/containers/parent/cache')).json()).toEqual({ message: 'No such container: parent/cache' });
    // the reference answers 500 here
    expect((await b.request('DELETE', '/v1.24/containers/target?link=1')).status).toBe(409);
    expect((await b.request('DELETE', '/v1.24/containers/parent/cache?link=1')).status).toBe(204);
    expect((await b.request('GET', '/v1.24/containers/parent/json')).json().HostConfig.Links).toBeNull();
    expect((await run(['exec', 'parent', 'grep', '-c', 'cache', '/etc/hosts'])).stdout).toBe('0\n');
    // a link's target must exist at create (400, as the reference)
    const bad = await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', HostConfig: { Links: ['nope:db'] } } });
    expect([bad.status, bad.json().message]).toEqual([400, 'could not get container for nope: No such container: nope']);
    expect((await run(['rm', '-f', 'target', 'parent'])).code).toBe(0);
  });
});
