// Authorization plugins (docs/authz.md): a real plugin process (test/fixtures/authz-plugin) in berth's plugin socket
// directory, driven with the docker CLI and the API. Messages and the fields the plugin receives are the reference's
// (a private Docker 20.10 started with --authorization-plugin and the same fixture).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULTS } from '../../src/config';
import { startDaemon } from '../../src/daemon';
import { silentLogger } from '../../src/log';
import { AuthzPlugin, startAuthzPlugin } from '../helpers/authz-plugin';
import { containerdAddress, firstEvent, request, startTestBerth, TestBerth } from '../helpers/berth';
import { berthdLauncher } from '../helpers/berthd-process';
import { loadBusybox } from '../helpers/busybox-image';

const NAME = 'bauthz';
const TIMINGS = { retryWindowMs: 1500, longMs: 5000, shortMs: 5000 };
const pre = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-authz-'));
const socketDir = path.join(pre, 'plugins');
let b: TestBerth;
let p: AuthzPlugin;
const docker = (...args: string[]) => b.docker(args, { apiVersion: '1.24' });
const b64 = (s: string) => Buffer.from(s).toString('base64');
const last = (call: string, uri: string) => p.calls().filter((c) => c.call === call && c.RequestUri === uri).pop();
const until = async (f: () => unknown, ms = 5000) => {
  for (const t0 = Date.now(); !f() && Date.now() - t0 < ms; ) await new Promise((r) => setTimeout(r, 20));
  return f();
};

beforeAll(async () => {
  p = await startAuthzPlugin(path.join(socketDir, `${NAME}.sock`), path.join(pre, 'plugin'));
  b = await startTestBerth({ config: { pluginSocketDir: socketDir, authorizationPlugins: [NAME], pluginTimings: TIMINGS } });
  await loadBusybox(b);
});
afterAll(async () => {
  await b?.close();
  await p?.stop();
  fs.rmSync(pre, { recursive: true, force: true });
});
beforeEach(() => {
  p.rules({});
  p.clearCalls();
});

test('allowed: the plugin sees each request and its answer (method, URI, first header values, JSON bodies only)', async () => {
  expect((await b.request('GET', '/v1.24/info')).json().Plugins.Authorization).toEqual([NAME]);
  const ps = await docker('ps', '-q');
  expect(ps).toMatchObject({ code: 0, stderr: '' });
  const req = last('AuthZReq', '/v1.24/containers/json');
  expect(req).toMatchObject({ RequestMethod: 'GET', RequestHeaders: { 'User-Agent': expect.stringMatching(/^Docker-Client\//) } });
  expect(req).not.toHaveProperty('User');
  expect(req).not.toHaveProperty('RequestBody');
  const res = last('AuthZRes', '/v1.24/containers/json')!;
  expect(res.ResponseStatusCode).toBe(200);
  expect(res.ResponseHeaders).toMatchObject({ 'Content-Type': 'application/json', 'Api-Version': '1.24' });
  expect(JSON.parse(Buffer.from(res.ResponseBody, 'base64').toString())).toEqual([]);
  // a JSON body is shown to the plugin and still reaches the handler
  const body = JSON.stringify({ Name: 'authz-v1', Labels: { a: 'b' } });
  const v = await b.request('POST', '/v1.24/volumes/create', { body, headers: { 'Content-Type': 'application/json' } });
  expect(v.status).toBe(201);
  expect(v.json()).toMatchObject({ Name: 'authz-v1', Labels: { a: 'b' } });
  expect(last('AuthZReq', '/v1.24/volumes/create')).toMatchObject({ RequestBody: b64(body), RequestHeaders: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } });
  expect(last('AuthZRes', '/v1.24/volumes/create')).toMatchObject({ RequestBody: b64(body), ResponseStatusCode: 201 });
  // other bodies are not (a tar upload), nor an answer that is not JSON
  const load = await b.request('POST', '/v1.24/images/load', { body: Buffer.from('not a tar'), headers: { 'Content-Type': 'application/x-tar' } });
  expect(load.text).toContain('errorDetail');
  expect(last('AuthZReq', '/v1.24/images/load')).not.toHaveProperty('RequestBody');
  expect((await b.request('GET', '/_ping')).text).toBe('OK');
  expect(last('AuthZRes', '/_ping')).not.toHaveProperty('ResponseBody');
  expect((await docker('volume', 'rm', 'authz-v1')).code).toBe(0);
});

test('denied: 403 with the plugin\'s message (JSON at 1.24, text before, no common headers), nothing done', async () => {
  p.rules({ req: [{ match: 'networks', allow: false, msg: 'no networks for you' }, { match: 'volumes/create', allow: false, msg: 'no volumes' }, { match: 'GET /v1.24/images/json', allow: false }] });
  expect(await docker('network', 'ls')).toMatchObject({ code: 1, stderr: 'Error response from daemon: authorization denied by plugin bauthz: no networks for you\n' });
  expect(await docker('volume', 'create', 'authz-denied')).toMatchObject({ code: 1, stderr: 'Error response from daemon: authorization denied by plugin bauthz: no volumes\n' });
  const r = await b.request('GET', '/v1.24/networks');
  expect(r.status).toBe(403);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['api-version']).toBeUndefined();
  expect(r.headers.server).toBeUndefined();
  expect(r.text).toBe('{"message":"authorization denied by plugin bauthz: no networks for you"}\n');
  const old = await b.request('GET', '/v1.23/networks');
  expect(old.status).toBe(403);
  expect(old.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(old.text).toBe('authorization denied by plugin bauthz: no networks for you\n');
  // Allow missing, or false with Err in a 200 answer: still a refusal, with the (empty) message
  expect((await b.request('GET', '/v1.24/images/json')).text).toBe('{"message":"authorization denied by plugin bauthz: "}\n');
  // the handler never ran
  expect(p.calls().filter((c) => c.call === 'AuthZRes' && /networks|volumes|images/.test(c.RequestUri))).toEqual([]);
  p.rules({});
  expect((await b.request('GET', '/v1.24/volumes/authz-denied')).status).toBe(404);
});

test('a plugin that fails (non-200) is a 500 with its error; Allow with Err is allowed', async () => {
  p.rules({ req: [{ match: 'GET /v1.24/version', status: 500, body: '{"Err":"plugin blew up"}' }, { match: 'GET /v1.24/info', allow: true, err: 'ignored' }] });
  expect(await docker('version', '--format', '{{.Server.Version}}')).toMatchObject({ code: 1, stderr: expect.stringContaining('Error response from daemon: plugin bauthz failed with error: AuthZPlugin.AuthZReq: plugin blew up') });
  const r = await b.request('GET', '/v1.24/version');
  expect(r.status).toBe(500);
  expect(r.json()).toEqual({ message: 'plugin bauthz failed with error: AuthZPlugin.AuthZReq: plugin blew up' });
  expect((await b.request('GET', '/v1.24/info')).status).toBe(200);
});

test('a refused response: the handler ran, its answer is replaced; a handler error is the answer whatever the plugin says', async () => {
  p.rules({ res: [{ match: 'POST /v1.24/networks/create', allow: false, msg: 'made but denied' }, { match: 'containers/nope', allow: false, msg: 'ignored' }, { match: 'GET /v1.24/volumes$', status: 500, body: '{"Err":"res blew up"}' }] });
  const r = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'authz-net' } });
  expect(r.status).toBe(403);
  expect(r.headers['api-version']).toBeUndefined();
  expect(r.json()).toEqual({ message: 'authorization denied by plugin bauthz: made but denied' });
  expect(last('AuthZRes', '/v1.24/networks/create')).toMatchObject({ ResponseStatusCode: 201, ResponseHeaders: { 'Content-Type': 'application/json' } });
  expect(await docker('volume', 'ls')).toMatchObject({ code: 1, stderr: 'Error response from daemon: plugin bauthz failed with error: AuthZPlugin.AuthZRes: res blew up\n' });
  const nope = await b.request('GET', '/v1.24/containers/nope/json');
  expect(nope.status).toBe(404);
  expect(nope.json()).toEqual({ message: 'No such container: nope' });
  const res = last('AuthZRes', '/v1.24/containers/nope/json');
  expect(res).toBeDefined();
  expect(res).not.toHaveProperty('ResponseStatusCode');
  p.rules({});
  expect((await b.request('GET', '/v1.24/networks/authz-net')).status).toBe(200);
  expect((await docker('network', 'rm', 'authz-net')).code).toBe(0);
});

test('streams and hijacked connections pass at once; the plugin is asked when they end', async () => {
  p.rules({ res: [{ match: 'events|attach', allow: false, msg: 'too late' }] });
  const { event, subscribed } = firstEvent(b.socket, { type: ['volume'] });
  await subscribed;
  expect((await docker('volume', 'create', 'authz-ev')).code).toBe(0);
  expect(await event).toMatchObject({ Type: 'volume', Action: 'create', Actor: { ID: 'authz-ev' } });
  expect(await until(() => p.calls().some((c) => c.call === 'AuthZRes' && /^\/v1\.24\/events/.test(c.RequestUri)))).toBe(true);
  expect(p.calls().find((c) => c.call === 'AuthZRes' && /events/.test(c.RequestUri))).not.toHaveProperty('ResponseStatusCode');
  // attach (a hijack) through `docker run`
  expect(await docker('run', '--rm', 'busybox', 'echo', 'through')).toMatchObject({ code: 0, stdout: 'through\n' });
  expect(await until(() => p.calls().some((c) => c.call === 'AuthZRes' && /\/attach\?/.test(c.RequestUri)))).toBe(true);
  expect((await docker('volume', 'rm', 'authz-ev')).code).toBe(0);
});

test('the plugin down: 500 with the dial error after the retry window, nothing done; back when it returns', async () => {
  await p.stop();
  const t0 = Date.now();
  const r = await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'authz-down' } });
  expect(r.status).toBe(500);
  const sock = p.socket;
  expect(r.json()).toEqual({ message: `plugin bauthz failed with error: Post "http://${encodeURIComponent(sock)}/AuthZPlugin.AuthZReq": dial unix ${sock}: connect: no such file or directory` });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  p = await startAuthzPlugin(sock, p.dir);
  expect((await b.request('GET', '/v1.24/volumes/authz-down')).status).toBe(404);
  expect(p.calls().some((c) => c.call === 'Plugin.Activate')).toBe(false);
});

test('at start: a missing plugin or one that is not an authz plugin refuses the start', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-authz-start-'));
  const other = await startAuthzPlugin(path.join(socketDir, 'notauthz.sock'), path.join(dir, 'plugin'));
  try {
    other.rules({ activate: 'noauthz' });
    const config = { ...DEFAULTS, hosts: [`unix://${dir}/s.sock`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: containerdAddress(), namespace: 'berth-authz-start', pluginSocketDir: socketDir, pluginSpecDirs: [], pluginTimings: TIMINGS };
    await expect(startDaemon({ ...config, authorizationPlugins: ['nothere'] }, silentLogger())).rejects.toThrow('failed to validate authorization plugin: plugin "nothere" not found');
    await expect(startDaemon({ ...config, authorizationPlugins: ['notauthz'] }, silentLogger())).rejects.toThrow('failed to validate authorization plugin: Plugin does not implement the requested driver');
    expect(fs.existsSync(`${dir}/s.sock`)).toBe(false);
  } finally {
    await other.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('berthd: --authorization-plugin and daemon.json authorization-plugins, reloaded on SIGHUP', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-authz-d-'));
  const namespace = `berth-authz-${process.pid}`;
  const { berthd, stop, exited, cleanup } = berthdLauncher({ dir, namespace, bridge: `baz${process.pid % 10000}`, subnet: '10.251.79.0/24' });
  const file = path.join(dir, 'daemon.json');
  const socket = path.join(dir, 'berth.sock');
  const common = ['--plugin-socket-dir', socketDir, '--config-file', file];
  afterAll(cleanup);

  test('a flag and the key together are refused; the key is checked; SIGHUP adds, keeps on error, and removes', async () => {
    fs.writeFileSync(file, JSON.stringify({ 'authorization-plugins': [NAME] }));
    const both = await berthd(['-H', `unix://${socket}`, ...common, '--authorization-plugin', NAME]);
    expect(await exited(both.child)).toBe(1);
    expect(both.log().trim()).toBe(`berthd: unable to configure the Docker daemon with file ${file}: the following directives are specified both as a flag and in the configuration file: authorization-plugins: (from flag: [${NAME}], from file: [${NAME}])`);
    fs.writeFileSync(file, JSON.stringify({ 'authorization-plugins': NAME }));
    const typed = await berthd(['-H', `unix://${socket}`, ...common]);
    expect(await exited(typed.child)).toBe(1);
    expect(typed.log().trim()).toBe(`berthd: unable to configure the Docker daemon with file ${file}: json: cannot unmarshal string into Go struct field Config.authorization-plugins of type []string`);

    // started with none; SIGHUP with the plugin named: it is asked from then on
    fs.writeFileSync(file, JSON.stringify({}));
    const d = await berthd(['-H', `unix://${socket}`, ...common], { socket });
    p.rules({ req: [{ match: 'GET /v1.24/networks', allow: false, msg: 'reloaded' }] });
    expect((await request(socket, 'GET', '/v1.24/networks')).status).toBe(200);
    const hup = async (content: object, expectStatus: number) => {
      fs.writeFileSync(file, JSON.stringify(content));
      process.kill(d.child.pid!, 'SIGHUP');
      for (const t0 = Date.now(); Date.now() - t0 < 10_000; await new Promise((r) => setTimeout(r, 50))) if ((await request(socket, 'GET', '/v1.24/networks')).status === expectStatus) return true;
      return false;
    };
    expect(await hup({ 'authorization-plugins': [NAME] }, 403)).toBe(true);
    expect((await request(socket, 'GET', '/v1.24/networks')).json()).toEqual({ message: 'authorization denied by plugin bauthz: reloaded' });
    expect((await request(socket, 'GET', '/v1.24/info')).json().Plugins.Authorization).toEqual([NAME]);
    // a plugin that cannot be had (here: not an authz plugin): logged, the whole running configuration kept (the
    // engine exits here)
    const other = await startAuthzPlugin(path.join(socketDir, 'notauthz2.sock'), path.join(dir, 'notauthz2'));
    other.rules({ activate: 'noauthz' });
    fs.writeFileSync(file, JSON.stringify({ 'authorization-plugins': ['notauthz2'], labels: ['x=y'] }));
    process.kill(d.child.pid!, 'SIGHUP');
    expect(await until(() => d.log().includes('failed to validate authorization plugin: Plugin does not implement the requested driver'))).toBe(true);
    await other.stop();
    expect((await request(socket, 'GET', '/v1.24/networks')).status).toBe(403);
    p.rules({});
    expect((await request(socket, 'GET', '/v1.24/info')).json()).toMatchObject({ Labels: [], Plugins: { Authorization: [NAME] } });
    // an empty list removes them
    p.rules({ req: [{ match: 'GET /v1.24/networks', allow: false, msg: 'reloaded' }] });
    expect(await hup({ 'authorization-plugins': [] }, 200)).toBe(true);
    expect((await request(socket, 'GET', '/v1.24/info')).json().Plugins.Authorization).toBeNull();
    await stop(d);
  }, 90_000);
});
