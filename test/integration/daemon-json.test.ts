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

/** A started container's output (Tty, so the log is raw). */
async function output(id: string): Promise<string> {
  expect((await request(socket, 'POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  expect((await request(socket, 'POST', `/v1.24/containers/${id}/wait`)).json().StatusCode).toBe(0);
  return (await request(socket, 'GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1`)).body.toString();
}

test('default-ulimits and --default-ulimit: the rlimits of new containers for the names HostConfig.Ulimits does not give, shown by inspect', async () => {
  // the reference (20.10 with --default-ulimit nofile=1234:2345) shows the request's own first, then the daemon's
  fs.writeFileSync(file, JSON.stringify({ 'default-ulimits': { nofile: { Name: 'nofile', Soft: 1234, Hard: 2345 }, nproc: { Name: 'nproc', Soft: 300, Hard: 400 } } }));
  let b = await berthd(['-H', `unix://${socket}`, '--config-file', file], { socket });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['djson:1'] }) })).status).toBe(200);
  const cmd = ['sh', '-c', 'echo $(ulimit -n) $(ulimit -Hn) $(ulimit -u) $(ulimit -Hu)'];
  const create = async (hc: object) => (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'djson:1', Cmd: cmd, Tty: true, HostConfig: { NetworkMode: 'none', ...hc } } })).json().Id as string;
  const c1 = await create({});
  const c2 = await create({ Ulimits: [{ Name: 'nofile', Soft: 50, Hard: 60 }] });
  const inspect = async (id: string) => (await request(socket, 'GET', `/v1.24/containers/${id}/json`)).json().HostConfig.Ulimits;
  expect(await inspect(c1)).toEqual([
    { Name: 'nofile', Soft: 1234, Hard: 2345 },
    { Name: 'nproc', Soft: 300, Hard: 400 },
  ]);
  expect(await inspect(c2)).toEqual([
    { Name: 'nofile', Soft: 50, Hard: 60 },
    { Name: 'nproc', Soft: 300, Hard: 400 },
  ]);
  expect((await output(c1)).trim()).toBe('1234 2345 300 400');
  expect((await output(c2)).trim()).toBe('50 60 300 400');
  for (const id of [c1, c2]) await request(socket, 'DELETE', `/v1.24/containers/${id}?force=1`);
  await stop(b);

  // the flag (NAME=SOFT[:HARD], repeatable; a later one for the same name wins); not both ways; bad values refused
  fs.writeFileSync(file, '{}');
  b = await berthd(['-H', `unix://${socket}`, '--config-file', file, '--default-ulimit', 'nofile=100:200', '--default-ulimit', 'nofile=300', '--default-ulimit', 'core=0:0'], { socket });
  const c3 = await create({});
  expect(await inspect(c3)).toEqual([
    { Name: 'nofile', Soft: 300, Hard: 300 },
    { Name: 'core', Soft: 0, Hard: 0 },
  ]);
  expect((await output(c3)).trim()).toMatch(/^300 300 /);
  await request(socket, 'DELETE', `/v1.24/containers/${c3}?force=1`);
  await stop(b);
  fs.writeFileSync(file, JSON.stringify({ 'default-ulimits': { nofile: { Name: 'nofile', Soft: 1, Hard: 2 } } }));
  expect(await refused(fs.readFileSync(file, 'utf8'), ['--default-ulimit', 'nofile=1:2'])).toContain('the following directives are specified both as a flag and in the configuration file: default-ulimits');
  for (const [v, why] of [
    ['nofile', 'invalid ulimit argument: nofile'],
    ['bogus=1', 'invalid ulimit type: bogus'],
    ['nofile=x', 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['nofile=5:4', 'ulimit soft limit must be less than or equal to hard limit: 5 > 4'],
  ]) {
    const r = await berthd(['-H', `unix://${socket}`, '--default-ulimit', v]);
    expect(await exited(r.child)).not.toBe(0);
    expect(r.log()).toContain(`invalid argument "${v}" for "--default-ulimit" flag: ${why}`);
  }
});
