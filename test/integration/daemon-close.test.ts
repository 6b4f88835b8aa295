// The daemon's close() (SIGTERM, and every in-process test's teardown): it takes no new work and waits for the exits
// being recorded (the container record, the network record their teardown writes) before it resolves, so nothing
// is written under the data root afterwards. Before, a closed daemon still wrote a network record (ENOTEMPTY in a
// test's folder removal). What close() did not take on is found by the next start.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';

let b: TestBerth;

beforeAll(async () => {
  b = await startTestBerth();
  await loadBusybox(b);
}, 60_000);
afterAll(() => b?.close(), 60_000);

/** Every file under `dir` with its size and modification time. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = fs.statSync(p);
        out[path.relative(dir, p)] = `${st.size}@${st.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

test('close() resolves after the exits under way are written; nothing is written after it; the next start finds the rest', async () => {
  expect((await b.request('POST', '/v1.24/networks/create', { body: { Name: 'closenet' } })).status).toBe(201);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const c = await b.request('POST', `/v1.24/containers/create?name=closer${i}`, { body: { Image: 'busybox', Cmd: ['sleep', '1000'], HostConfig: { NetworkMode: 'closenet' } } });
    expect(c.status).toBe(201);
    ids.push(c.json().Id);
    expect((await b.request('POST', `/v1.24/containers/${c.json().Id}/start`)).status).toBe(204);
  }
  // close() is called as the first die goes out: that exit's record writes (and likely the others') are under way
  const firstDie = new Promise<void>((resolve) => {
    const req = http.get({ socketPath: b.socket, path: `/v1.24/events?filters=${encodeURIComponent(JSON.stringify({ event: ['die'] }))}` }, (res) =>
      res.once('data', () => resolve()),
    );
    req.on('error', () => undefined);
  });
  await new Promise((r) => setTimeout(r, 200));
  await Promise.all(ids.map((id) => b.request('POST', `/v1.24/containers/${id}/kill`)));
  await firstDie;
  await b.daemon.close();
  const after = tree(b.config.dataRoot);
  await new Promise((r) => setTimeout(r, 1500));
  expect(tree(b.config.dataRoot)).toEqual(after);
  // (a second close is the same close)
  await b.daemon.close();

  // the next start: every container exited (recorded before close, or found exited in containerd), the network empty
  await b.restart();
  for (const id of ids) expect((await b.request('GET', `/v1.24/containers/${id}/json`)).json().State).toMatchObject({ Running: false, ExitCode: 137 });
  const net = (await b.request('GET', '/v1.24/networks/closenet')).json();
  expect(net.Containers).toEqual({});
  // and the network's addresses were given back: four new containers get addresses on it again
  for (const id of ids) expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  for (const id of ids) expect((await b.request('POST', `/v1.24/containers/${id}/kill`)).status).toBe(204);
  for (const id of ids) expect((await b.request('POST', `/v1.24/containers/${id}/wait`)).json().StatusCode).toBe(137);

  // a client waiting for a running container does not hold close() up: its wait ends with its connection (close()
  // gives the requests under way 5 s; an idle close takes milliseconds)
  expect((await b.request('POST', `/v1.24/containers/${ids[0]}/start`)).status).toBe(204);
  const waiting = http.request({ socketPath: b.socket, path: `/v1.24/containers/${ids[0]}/wait`, method: 'POST' });
  waiting.on('error', () => undefined);
  waiting.end();
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  await b.daemon.close();
  expect(Date.now() - t0).toBeLessThan(4000);
}, 90_000);
