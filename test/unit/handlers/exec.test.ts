// handlers/exec over a real socket with a fake backend: create's config, detached start, resize checks, inspect
// per version.
import { execRoutes, ExecBackend, ExecSession } from '../../../src/handlers/exec';
import type { ExecConfig, ExecState } from '../../../src/types/exec';
import { containerRecord, fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const EXEC = 'e'.repeat(64);
const created: [string, ExecConfig][] = [];
const resized: number[][] = [];
const state = (): ExecState => ({ id: EXEC, containerId: 'c'.repeat(64), config: created[0]?.[1] ?? { Cmd: ['true'] }, running: false, exitCode: 0, pid: 0, started: true });
const execs = fake<ExecBackend>({
  create: (ref, cfg) => {
    created.push([ref, cfg]);
    return EXEC;
  },
  get: () => state(),
  start: async (): Promise<ExecSession> => ({ ...state(), done: Promise.resolve(0) }),
  resize: async (_id, h, w) => void resized.push([h, w]),
  findContainer: () => containerRecord(),
  idsFor: () => [EXEC],
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(execRoutes(execs))));
afterAll(() => s.close());

test('create: a string Cmd is 400 as the reference; Env and WorkingDir (later versions) are not taken', async () => {
  const str = await s.request('POST', '/containers/web/exec', JSON.stringify({ Cmd: 'ls' }), { 'Content-Type': 'application/json' });
  expect([str.status, str.text]).toEqual([400, '{"message":"json: cannot unmarshal string into Go struct field ExecConfig.Cmd of type []string"}\n']);
  const body = { Cmd: ['ls'], Env: ['A=1'], WorkingDir: '/tmp', User: 'nobody', Tty: true, AttachStdout: true };
  const r = await s.request('POST', '/containers/web/exec', JSON.stringify(body), { 'Content-Type': 'application/json' });
  expect([r.status, r.text]).toEqual([201, `{"Id":"${EXEC}"}\n`]);
  expect(created).toEqual([['web', { Cmd: ['ls'], User: 'nobody', Privileged: false, Tty: true, AttachStdin: false, AttachStdout: true, AttachStderr: false, DetachKeys: '' }]]);
  const bad = await s.request('POST', '/containers/web/exec', JSON.stringify({ Cmd: ['ls'], DetachKeys: 'ctrl-' }), { 'Content-Type': 'application/json' });
  expect(bad.status).toBe(400);
});

test('a detached start answers 200 with an empty JSON body', async () => {
  const r = await s.request('POST', `/exec/${EXEC}/start`, JSON.stringify({ Detach: true }), { 'Content-Type': 'application/json' });
  expect([r.status, r.headers['content-type'], r.headers['content-length'], r.text]).toEqual([200, 'application/json', '0', '']);
});

test('resize checks the dimensions', async () => {
  expect(await s.request('POST', `/exec/${EXEC}/resize?h=0&w=80`)).toMatchObject({ status: 400, text: '{"message":"invalid resize dimensions"}\n' });
  expect((await s.request('POST', `/exec/${EXEC}/resize?h=24&w=80`)).status).toBe(201);
  expect(resized).toEqual([[24, 80]]);
});

test('inspect embeds the container up to 1.20, as plain/text', async () => {
  const old = await s.request('GET', `/v1.20/exec/${EXEC}/json`);
  expect(old.headers['content-type']).toBe('plain/text');
  expect(JSON.parse(old.text)).toMatchObject({ ID: EXEC, Container: { Id: 'c'.repeat(64), ExecIDs: [EXEC] } });
  const cur = JSON.parse((await s.request('GET', `/exec/${EXEC}/json`)).text);
  expect(cur).toMatchObject({ ID: EXEC, ContainerID: 'c'.repeat(64) });
  expect(cur.Container).toBeUndefined();
});
