// daemon.json as operators use it (docs/operations.md): refused files with the engine's messages, the keys' effects
// (/info, log and dns defaults of new containers), and SIGHUP: the reloadable keys applied and announced, a bad file
// refused whole with the running configuration kept. Drives the real bin/berthd.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { firstEvent, request } from '../helpers/berth';
import { berthdLauncher } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-djson-'));
const namespace = `berth-djson-${process.pid}`;
const { berthd, stop, exited, cleanup } = berthdLauncher({ dir, namespace, bridge: `bdj${process.pid % 10000}`, subnet: '10.251.78.0/24' });
const file = path.join(dir, 'daemon.json');
const socket = path.join(dir, 'berth.sock');

afterAll(cleanup);

async function refused(content: string, args: string[] = []): Promise<string> {
  fs.writeFileSync(file, content);
  const b = await berthd(['-H', `unix://${socket}`, '--config-file', file, ...args]);
  expect(await exited(b.child)).toBe(1);
  return b.log().trim();
}

test("a bad file refuses the start with the engine's message; a missing --config-file too", async () => {
  const P = `berthd: unable to configure the Docker daemon with file ${file}: `;
  expect(await refused('{"bogus":1}')).toBe(P + "the following directives don't match any configuration option: bogus");
  expect(await refused('{"debug":true}', ['-D'])).toBe(P + 'the following directives are specified both as a flag and in the configuration file: debug: (from flag: true, from file: true)');
  expect(await refused('{"labels":"a"}')).toBe(P + 'json: cannot unmarshal string into Go struct field Config.labels of type []string');
  expect(await refused('{"max-concurrent-downloads":-1}')).toBe(P + 'configuration validation from file failed: invalid max concurrent downloads: -1');
  fs.rmSync(file);
  const b = await berthd(['-H', `unix://${socket}`, '--config-file', file]);
  expect(await exited(b.child)).toBe(1);
  expect(b.log().trim()).toBe(`berthd: unable to configure the Docker daemon with file ${file}: open ${file}: no such file or directory`);
});

test('the keys take effect: /info, log-opts and dns defaults of new containers; SIGHUP reloads, a bad file is refused whole', async () => {
  fs.writeFileSync(
    file,
    JSON.stringify({
      hosts: [`unix://${socket}`],
      debug: true,
      labels: ['site=a'],
      'insecure-registries': ['myreg:5000', '10.1.0.0/16'],
      'registry-mirrors': ['https://mirror.example.com'],
      'log-driver': 'json-file',
      'log-opts': { 'max-size': '1m', 'max-file': '2' },
      dns: ['10.9.8.7'],
      'dns-search': ['example.com'],
      'dns-opts': ['ndots:2'],
      'max-concurrent-downloads': 4,
      'shutdown-timeout': 20,
    }),
  );
  // hosts come from the file (a -H flag as well would be a conflict)
  const b = await berthd(['--config-file', file], { socket });
  let info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info).toMatchObject({
    Debug: true,
    Labels: ['site=a'],
    LoggingDriver: 'json-file',
    RegistryConfig: {
      InsecureRegistryCIDRs: ['10.1.0.0/16', '127.0.0.0/8'],
      IndexConfigs: {
        'docker.io': { Name: 'docker.io', Mirrors: ['https://mirror.example.com/'], Secure: true, Official: true },
        'myreg:5000': { Name: 'myreg:5000', Mirrors: [], Secure: false, Official: false },
      },
      Mirrors: ['https://mirror.example.com/'],
    },
  });

  // a container without LogConfig gets the daemon's options; one that sets an option keeps its own value
  const load = await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['djson:1'] }) });
  expect(load.status).toBe(200);
  const c1 = (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'djson:1', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).json();
  const c2 = (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'djson:1', Cmd: ['true'], HostConfig: { NetworkMode: 'none', LogConfig: { Type: '', Config: { 'max-size': '5m' } } } } })).json();
  const i1 = (await request(socket, 'GET', `/v1.24/containers/${c1.Id}/json`)).json();
  const i2 = (await request(socket, 'GET', `/v1.24/containers/${c2.Id}/json`)).json();
  expect(i1.HostConfig.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } });
  expect(i2.HostConfig.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '5m', 'max-file': '2' } });
  expect((await request(socket, 'POST', `/v1.24/containers/${c1.Id}/start`)).status).toBe(204);
  const started = (await request(socket, 'GET', `/v1.24/containers/${c1.Id}/json`)).json();
  expect(fs.readFileSync(started.ResolvConfPath, 'utf8')).toBe('search example.com\nnameserver 10.9.8.7\noptions ndots:2\n');

  // SIGHUP: labels and mirrors change, max-concurrent-uploads too; unset max-concurrent-downloads is back to 3, unset
  // insecure-registries and shutdown-timeout keep their values (the engine's reload)
  const seen = firstEvent(socket, { type: ['daemon'] });
  await seen.subscribed;
  fs.writeFileSync(file, JSON.stringify({ hosts: [`unix://${socket}`], labels: ['site=b', 'tier=x'], 'registry-mirrors': ['https://m2.example.com'], 'max-concurrent-uploads': 2 }));
  process.kill(b.child.pid!, 'SIGHUP');
  const ev = await seen.event;
  expect(ev).toMatchObject({ Type: 'daemon', Action: 'reload', Actor: { ID: info.ID } });
  expect(ev.Actor.Attributes).toMatchObject({ labels: '["site=b","tier=x"]', 'registry-mirrors': '["https://m2.example.com"]', 'insecure-registries': '["myreg:5000","10.1.0.0/16"]', 'max-concurrent-downloads': '3', 'max-concurrent-uploads': '2', debug: 'true', 'shutdown-timeout': '20' });
  info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info.Labels).toEqual(['site=b', 'tier=x']);
  expect(info.RegistryConfig.Mirrors).toEqual(['https://m2.example.com/']);

  // a bad file: refused whole, logged, the running configuration kept
  fs.writeFileSync(file, JSON.stringify({ labels: ['site=c'], bogus: 1 }));
  process.kill(b.child.pid!, 'SIGHUP');
  const t0 = Date.now();
  while (!b.log().includes("the following directives don't match any configuration option: bogus") && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
  expect(b.log()).toContain(`unable to configure the Docker daemon with file ${file}: the following directives don't match any configuration option: bogus`);
  expect((await request(socket, 'GET', '/v1.24/info')).json().Labels).toEqual(['site=b', 'tier=x']);

  await request(socket, 'DELETE', `/v1.24/containers/${c1.Id}?force=1`);
  await request(socket, 'DELETE', `/v1.24/containers/${c2.Id}?force=1`);
  await stop(b);
});
