// Healthchecks with the docker CLI: starting → healthy → unhealthy as the check starts failing, State.Health,
// the list's status and health filter, health_status events; NONE disables an image's check.
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});
const run = (args: string[]) => b.docker(args, { apiVersion: '1.24' });

/** Waits (bounded) for a container's health status, from inspect. */
async function waitHealth(name: string, want: string, ms = 20_000): Promise<Record<string, any>> {
  const until = Date.now() + ms;
  for (;;) {
    const h = (await b.request('GET', `/v1.24/containers/${name}/json`)).json().State.Health;
    if (h?.Status === want) return h;
    if (Date.now() > until) throw new Error(`health of ${name} stayed ${JSON.stringify(h)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('--health-cmd: starting, healthy once the check passes, unhealthy after the retries fail; events and list', async () => {
  const since = Math.floor(Date.now() / 1000) - 1;
  const r = await run(['run', '-d', '--name', 'hc', '--net', 'none', '--health-cmd', 'cat /tmp/ok', '--health-interval', '300ms', '--health-retries', '2', '--health-timeout', '2s', 'busybox', 'sleep', '300']);
  expect(r.code).toBe(0);
  const first = (await b.request('GET', '/v1.24/containers/hc/json')).json().State.Health;
  expect(first.Status).toBe('starting');
  expect((await b.request('GET', '/v1.24/containers/json')).json()[0].Status).toMatch(/^Up .* \(health: starting\)$/);
  expect((await b.request('GET', '/v1.22/containers/hc/json')).json().State.Health).toBeUndefined();

  expect((await run(['exec', 'hc', 'sh', '-c', 'echo fine > /tmp/ok'])).code).toBe(0);
  const healthy = await waitHealth('hc', 'healthy');
  expect(healthy.FailingStreak).toBe(0);
  const last = healthy.Log[healthy.Log.length - 1];
  expect(last).toMatchObject({ ExitCode: 0, Output: 'fine\n' });
  expect(Date.parse(last.End)).toBeGreaterThanOrEqual(Date.parse(last.Start));
  const filtered = (await b.request('GET', `/v1.24/containers/json?filters=${encodeURIComponent('{"health":["healthy"]}')}`)).json();
  expect(filtered.map((c: { Names: string[] }) => c.Names[0])).toEqual(['/hc']);
  expect((await b.request('GET', `/v1.24/containers/json?filters=${encodeURIComponent('{"health":["bogus"]}')}`)).status).toBe(400);

  expect((await run(['exec', 'hc', 'rm', '/tmp/ok'])).code).toBe(0);
  const bad = await waitHealth('hc', 'unhealthy');
  expect(bad.FailingStreak).toBeGreaterThanOrEqual(2);
  expect(bad.Log.length).toBeLessThanOrEqual(5);
  expect(bad.Log[bad.Log.length - 1].ExitCode).toBe(1);
  const ps = await run(['ps', '--format', '{{.Status}}']);
  expect(ps.stdout).toMatch(/\(unhealthy\)/);
  // probes never show up as the container's exec instances
  expect((await b.request('GET', '/v1.24/containers/hc/json')).json().ExecIDs).toBeNull();

  const until = Math.floor(Date.now() / 1000) + 1;
  const ev = (await b.request('GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent('{"container":["hc"]}')}`)).text.trim().split('\n').map((l) => JSON.parse(l).Action);
  expect(ev.filter((a: string) => a.startsWith('health_status'))).toEqual(['health_status: healthy', 'health_status: unhealthy']);
  expect(ev).toContain('exec_start: /bin/sh -c cat /tmp/ok'); // probes are execs with their events, as the reference shows them
  await run(['rm', '-f', 'hc']);
});

test('a timed-out probe counts as a failure with the engine output; --no-healthcheck disables', async () => {
  expect((await run(['run', '-d', '--name', 'slow', '--net', 'none', '--health-cmd', 'sleep 5', '--health-interval', '200ms', '--health-timeout', '100ms', '--health-retries', '1', 'busybox', 'sleep', '300'])).code).toBe(0);
  const h = await waitHealth('slow', 'unhealthy');
  expect(h.Log[0]).toMatchObject({ ExitCode: -1, Output: 'Health check exceeded timeout (0.1s)' });
  await run(['rm', '-f', 'slow']);
  expect((await run(['run', '-d', '--name', 'off', '--net', 'none', '--no-healthcheck', 'busybox', 'sleep', '300'])).code).toBe(0);
  const off = (await b.request('GET', '/v1.24/containers/off/json')).json();
  expect(off.Config.Healthcheck).toEqual({ Test: ['NONE'] });
  expect(off.State.Health).toBeUndefined();
  await run(['rm', '-f', 'off']);
});
