// Restart policies after a kill, a stop, a manual start and berth's own start, and kill's answers, as the reference
// engine (20.10) behaves (each case was asked of it: a kill with the container's stop signal, or any signal when it
// has none, ends its restarts and resumes it when paused; `always` and `on-failure` come back when the engine starts
// even after a stop by hand, `unless-stopped` does not; a manual start resets RestartCount).
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const TRAP = ['sh', '-c', 'trap "exit 3" USR2; while :; do sleep 0.1; done'];
const create = async (name: string, body: Record<string, unknown>) => {
  const r = await b.request('POST', `/v1.24/containers/create?name=${name}`, { body: { Image: 'busybox', ...body } });
  expect(r.status).toBe(201);
  return r.json().Id as string;
};
const inspect = async (id: string) => (await b.request('GET', `/v1.24/containers/${id}/json`)).json();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(id: string, ok: (c: any) => boolean, ms = 10_000): Promise<any> {
  const deadline = Date.now() + ms;
  let c = await inspect(id);
  while (!ok(c) && Date.now() < deadline) {
    await sleep(50);
    c = await inspect(id);
  }
  return c;
}
const policy = (Name: string, MaximumRetryCount = 0) => ({ RestartPolicy: { Name, MaximumRetryCount } });
const remove = (...ids: string[]) => Promise.all(ids.map((id) => b.request('DELETE', `/v1.24/containers/${id}?force=1`)));

describe('a kill and the restart policy', () => {
  test.each([
    ['always', undefined, false],
    ['always', 'SIGTERM', true],
    ['unless-stopped', undefined, false],
    ['unless-stopped', 'SIGTERM', false],
    ['on-failure', undefined, false],
    ['on-failure', 'SIGTERM', true],
  ] as const)('%s with stop signal %s: restarted after a kill with another signal: %s', async (name, stopSignal, restarted) => {
    const id = await create(`kill-${name}-${stopSignal ?? 'none'}`, { Cmd: TRAP, ...(stopSignal ? { StopSignal: stopSignal } : {}), HostConfig: policy(name) });
    expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    await sleep(300); // (the trap is set)
    expect((await b.request('POST', `/v1.24/containers/${id}/kill?signal=USR2`)).status).toBe(204);
    const c = await until(id, (x) => x.RestartCount > 0 && x.State.Running, 3000);
    expect([c.RestartCount > 0, c.State.Running]).toEqual([restarted, restarted]);
    if (!restarted) expect(c.State.ExitCode).toBe(3);
    await remove(id);
  });

  test('a paused container is resumed by a kill with its stop signal (any signal when it has none), else stays paused', async () => {
    const a = await create('kill-paused', { Cmd: ['sleep', '1000'] });
    const s = await create('kill-paused-stopsig', { Cmd: ['sleep', '1000'], StopSignal: 'SIGUSR1' });
    for (const id of [a, s]) {
      await b.request('POST', `/v1.24/containers/${id}/start`);
      expect((await b.request('POST', `/v1.24/containers/${id}/pause`)).status).toBe(204);
      // (sleep is pid 1: it ignores USR2, which shows where the kill left the container)
      expect((await b.request('POST', `/v1.24/containers/${id}/kill?signal=USR2`)).status).toBe(204);
    }
    const ca = await inspect(a);
    expect([ca.State.Status, ca.State.Running, ca.State.Paused]).toEqual(['running', true, false]);
    const cs = await inspect(s);
    expect([cs.State.Status, cs.State.Paused]).toEqual(['paused', true]);
    // a SIGKILL ends a paused container
    expect((await b.request('POST', `/v1.24/containers/${s}/kill`)).status).toBe(204);
    const killed = await until(s, (x) => !x.State.Running);
    expect([killed.State.Status, killed.State.ExitCode, killed.State.Paused]).toEqual(['exited', 137, false]);
    await remove(a, s);
  });

  test("kill's errors name the container as the engine's router does, at every version; the signal is read first", async () => {
    for (const v of ['1.19', '1.24']) {
      const r = await b.request('POST', `/v${v}/containers/nonexist/kill`);
      expect(r.status).toBe(404);
      expect(r.text).toContain('Cannot kill container: nonexist: No such container: nonexist');
    }
    const bad = await b.request('POST', '/v1.24/containers/nonexist/kill?signal=BOGUS');
    expect([bad.status, bad.json().message]).toEqual([400, 'Invalid signal: BOGUS']);
    const id = await create('kill-stopped', { Cmd: ['true'] });
    const stopped = await b.request('POST', `/v1.24/containers/kill-stopped/kill`);
    expect([stopped.status, stopped.json().message]).toEqual([409, `Cannot kill container: kill-stopped: Container ${id} is not running`]);
    // before 1.20 a container that is not running counts as killed
    expect((await b.request('POST', `/v1.19/containers/kill-stopped/kill`)).status).toBe(204);
    await remove(id);
  });
});

describe('RestartCount and the starts', () => {
  test('a start asked of the API resets RestartCount, and the policy counts again from there', async () => {
    const id = await create('count-reset', { Cmd: ['sh', '-c', 'sleep 0.2; exit 3'], HostConfig: policy('on-failure', 2) });
    await b.request('POST', `/v1.24/containers/${id}/start`);
    let c = await until(id, (x) => x.RestartCount === 2 && !x.State.Running && !x.State.Restarting);
    expect([c.RestartCount, c.State.ExitCode]).toEqual([2, 3]);
    expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
    expect((await inspect(id)).RestartCount).toBe(0);
    c = await until(id, (x) => x.RestartCount === 2 && !x.State.Running && !x.State.Restarting);
    expect(c.RestartCount).toBe(2);
    await remove(id);
  });

  test("berth's start brings back stopped `always` and failed `on-failure` containers, not stopped `unless-stopped` ones", async () => {
    const always = await create('back-always', { Cmd: ['sleep', '1000'], HostConfig: policy('always') });
    const unless = await create('back-unless', { Cmd: ['sleep', '1000'], HostConfig: policy('unless-stopped') });
    const failed = await create('back-onfailure', { Cmd: ['sleep', '1000'], HostConfig: policy('on-failure') });
    const clean = await create('back-onfailure-0', { Cmd: ['true'], HostConfig: policy('on-failure') });
    const never = await create('back-never-started', { Cmd: ['sleep', '1000'], HostConfig: policy('always') });
    for (const id of [always, unless, failed, clean]) await b.request('POST', `/v1.24/containers/${id}/start`);
    for (const id of [always, unless, failed]) expect((await b.request('POST', `/v1.24/containers/${id}/stop?t=0`)).status).toBe(204);
    await until(clean, (x) => !x.State.Running);
    for (const id of [always, unless, failed]) expect((await inspect(id)).State.Running).toBe(false);
    await b.restart();
    expect((await until(always, (x) => x.State.Running)).State.Running).toBe(true);
    expect((await until(failed, (x) => x.State.Running)).State.Running).toBe(true);
    await sleep(500);
    expect((await inspect(unless)).State.Running).toBe(false);
    expect((await inspect(clean)).State.Running).toBe(false);
    expect((await inspect(never)).State.Status).toBe('created');
    await remove(always, unless, failed, clean, never);
  });
});

describe('while the policy waits to restart a container (the reference counts it as running, and restarting)', () => {
  // `exit 1` under `always`: the back-off doubles from 100 ms, so the wait after the 6th exit is 3.2 s, long enough
  // for the questions below; RestartCount counts the restart as soon as it is decided.
  const pending = async (name: string, body: Record<string, unknown> = {}) => {
    const id = await create(name, { Cmd: ['sh', '-c', 'exit 1'], ...body, HostConfig: policy('always') });
    await b.request('POST', `/v1.24/containers/${id}/start`);
    return id;
  };
  const restarting = (id: string) => until(id, (x) => x.RestartCount === 6 && x.State.Restarting, 15_000);

  test('inspect, list, and the operations that need a running container', async () => {
    const id = await pending('rs-ops');
    const c = await restarting(id);
    expect([c.RestartCount, c.State.Status, c.State.Running, c.State.Restarting, c.State.Pid, c.State.ExitCode]).toEqual([6, 'restarting', true, true, 0, 1]);
    const listed = (q: string) => b.request('GET', `/v1.24/containers/json?${q}`).then((r) => r.json().map((x: { Id: string }) => x.Id));
    expect(await listed('')).toContain(id);
    expect(await listed(`filters=${encodeURIComponent('{"status":["restarting"]}')}`)).toEqual([id]);
    for (const f of ['{"status":["running"]}', '{"exited":["1"]}']) expect(await listed(`filters=${encodeURIComponent(f)}`)).not.toContain(id);
    const c409 = `Container ${id} is restarting, wait until the container is running`;
    expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(304);
    for (const [m, p, body] of [['POST', 'pause'], ['GET', 'top'], ['POST', 'exec', { Cmd: ['true'] }]] as const) {
      const r = await b.request(m, `/v1.24/containers/${id}/${p}`, body ? { body } : {});
      expect([p, r.status, r.json().message]).toEqual([p, 409, c409]);
    }
    const old = await b.request('POST', `/v1.18/containers/${id}/pause`);
    expect([old.status, old.text]).toEqual([409, `${c409}\n`]);
    for (const v of ['1.18', '1.24']) {
      const a = await b.request('POST', `/v${v}/containers/rs-ops/attach?stream=1&stdout=1`);
      expect([a.status, a.text]).toEqual([409, 'container rs-ops is restarting, wait until the container is running\r\n']);
    }
    const rs = await b.request('POST', `/v1.24/containers/${id}/resize?h=10&w=10`);
    expect([rs.status, rs.json().message]).toEqual([404, 'no such container']);
    const rm = await b.request('DELETE', `/v1.24/containers/${id}`);
    expect([rm.status, rm.json().message]).toEqual([409, `You cannot remove a restarting container ${id}. Stop the container before attempting removal or force remove`]);
    // (all of it within the one wait: the restart it waits for is still the 7th)
    expect((await inspect(id)).RestartCount).toBe(6);
    expect((await until(id, (x) => x.RestartCount === 7)).RestartCount).toBe(7);
    await remove(id);
  });

  test('a kill ends the restarts when it would end the run, without a signal or an event; wait returns with the next run', async () => {
    const [plain, stopSig, v119, waited] = await Promise.all([pending('rs-kill'), pending('rs-kill-stopsig', { StopSignal: 'SIGUSR2' }), pending('rs-kill-119'), pending('rs-wait')]);
    await Promise.all([plain, stopSig, v119, waited].map(restarting));
    const since = Math.floor(Date.now() / 1000) - 1;
    const waiting = b.request('POST', `/v1.24/containers/${waited}/wait`);
    expect((await b.request('POST', `/v1.24/containers/${plain}/kill?signal=USR1`)).status).toBe(204);
    expect((await b.request('POST', `/v1.19/containers/${v119}/kill`)).status).toBe(204);
    // another signal than the stop signal: the restarts go on
    expect((await b.request('POST', `/v1.24/containers/${stopSig}/kill?signal=USR1`)).status).toBe(204);
    expect((await inspect(stopSig)).State.Status).toBe('restarting');
    expect((await b.request('POST', `/v1.24/containers/${stopSig}/kill?signal=USR2`)).status).toBe(204);
    for (const id of [plain, v119, stopSig]) {
      const c = await inspect(id);
      expect([c.State.Status, c.State.Running, c.State.Restarting, c.State.ExitCode, c.RestartCount]).toEqual(['exited', false, false, 1, 6]);
      const again = await b.request('POST', `/v1.24/containers/${id}/kill`);
      expect([again.status, again.json().message]).toEqual([409, `Cannot kill container: ${id}: Container ${id} is not running`]);
    }
    const until2 = Math.floor(Date.now() / 1000) + 1;
    const ev = await b.request('GET', `/v1.24/events?since=${since}&until=${until2}&filters=${encodeURIComponent('{"event":["kill"]}')}`);
    expect(ev.text).toBe('');
    const w = await waiting;
    expect([w.status, w.text]).toEqual([200, '{"Error":null,"StatusCode":1}\n']);
    expect((await inspect(waited)).RestartCount).toBeGreaterThanOrEqual(7);
    await remove(plain, stopSig, v119, waited);
  });

  test('a restart asked of the API starts the back-off again at 100 ms', async () => {
    const id = await pending('rs-restart');
    await restarting(id);
    expect((await b.request('POST', `/v1.24/containers/${id}/restart?t=1`)).status).toBe(204);
    // 100 + 200 + 400 ms: three more restarts in well under the 3.2 s the old back-off would wait
    const c = await until(id, (x) => x.RestartCount >= 3, 2500);
    expect(c.RestartCount).toBeGreaterThanOrEqual(3);
    await remove(id);
  });
});
