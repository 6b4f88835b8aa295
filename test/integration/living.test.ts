// Events, stats, update, restart policies and OOM: the engine's living behaviour.
import * as http from 'node:http';
import { containerdAddress, TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { Containerd } from '../../src/containerd/client';
import { metricsOf } from '../../src/containerd/tasks';
import { CgroupV1Reader } from '../../src/runtime/cgroup-metrics';
import { toStatsJSON } from '../../src/translate/response/stats';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const create = async (body: Record<string, unknown>, name: string) => (await b.request('POST', `/v1.24/containers/create?name=${name}`, { body: { Image: 'busybox', ...body } })).json().Id as string;
const inspect = async (id: string) => (await b.request('GET', `/v1.24/containers/${id}/json`)).json();

/** Streams /events and resolves with the parsed events once `until` returns true for one of them. */
function watchEvents(query: string, until: (e: any) => boolean): { events: any[]; done: Promise<any[]>; close: () => void } {
  const events: any[] = [];
  let close = () => undefined as void;
  const done = new Promise<any[]>((resolve, reject) => {
    const req = http.get({ socketPath: b.socket, path: `/v1.24/events${query}` }, (res) => {
      let buf = '';
      res.on('data', (c) => {
        buf += c;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const e = JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          events.push(e);
          if (until(e)) {
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (events.length ? resolve(events) : reject(err)));
    close = () => void req.destroy();
  });
  return { events, done, close };
}

describe('events', () => {
  test('a run produces create, attach, start, die (with exitCode), destroy in order, with the engine fields', async () => {
    const w = watchEvents(`?filters=${encodeURIComponent('{"type":["container"]}')}`, (e) => e.Action === 'destroy');
    await new Promise((r) => setTimeout(r, 50));
    await b.docker(['run', '--rm', '--name', 'evt', '-l', 'k=v', 'busybox', 'sh', '-c', 'exit 2'], { apiVersion: '1.24' });
    const events = (await w.done).filter((e) => e.Actor.Attributes.name === 'evt');
    expect(events.map((e) => e.Action)).toEqual(['create', 'attach', 'start', 'die', 'destroy']);
    const die = events[3];
    expect(die).toEqual(expect.objectContaining({ status: 'die', Type: 'container', from: 'busybox', id: die.Actor.ID }));
    expect(die.Actor.Attributes).toEqual(expect.objectContaining({ exitCode: '2', image: 'busybox', name: 'evt', k: 'v' }));
    expect(die.timeNano).toBeGreaterThan(die.time * 1e9 - 1);
  });

  test('since replays, until ends the stream, bad filters are 400 from 1.24', async () => {
    const since = Math.floor(Date.now() / 1000) - 60;
    const until = Math.floor(Date.now() / 1000) + 1;
    const r = await b.request('GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent('{"event":["die"]}')}`);
    const lines = r.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((e) => e.Action === 'die')).toBe(true);
    expect((await b.request('GET', `/v1.24/events?filters=${encodeURIComponent('{"bogus":["x"]}')}`)).status).toBe(400);
    const lax = await b.request('GET', `/v1.23/events?until=${Math.floor(Date.now() / 1000) - 1}&filters=${encodeURIComponent('{"bogus":["x"]}')}`);
    expect(lax.status).toBe(200);
  });
});

describe('restart policies, update, stats, OOM', () => {
  test('on-failure:3 ends with RestartCount 3; a manual stop ends `always`', async () => {
    const id = await create({ Cmd: ['false'], HostConfig: { RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } } }, 'onfail');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    const deadline = Date.now() + 15_000;
    let st = await inspect(id);
    while (Date.now() < deadline && !(st.RestartCount === 3 && !st.State.Running && !st.State.Restarting)) {
      await new Promise((r) => setTimeout(r, 100));
      st = await inspect(id);
    }
    expect(st.RestartCount).toBe(3);
    expect(st.State.ExitCode).toBe(1);
    const always = await create({ Cmd: ['sh', '-c', 'sleep 0.2; exit 1'], HostConfig: { RestartPolicy: { Name: 'always', MaximumRetryCount: 0 } } }, 'always');
    await b.request('POST', `/v1.24/containers/${always}/start`);
    while ((await inspect(always)).RestartCount < 1) await new Promise((r) => setTimeout(r, 100));
    expect((await b.request('POST', `/v1.24/containers/${always}/stop?t=1`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await inspect(always)).State.Running).toBe(false);
    await b.request('DELETE', `/v1.24/containers/${always}?force=1`);
    await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
  });

  test('`always` containers are started again when berth starts', async () => {
    const id = await create({ Cmd: ['sleep', '1000'], HostConfig: { RestartPolicy: { Name: 'always', MaximumRetryCount: 0 } } }, 'survivor');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    // The task disappears while berth is down (as after a host reboot).
    const ctr = new Containerd({ address: containerdAddress(), namespace: b.config.namespace });
    await b.daemon.close();
    await ctr.tasks.Kill({ container_id: id, signal: 9, all: true });
    await ctr.tasks.Wait({ container_id: id });
    ctr.close();
    await b.restart();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(await inspect(id)).State.Running) await new Promise((r) => setTimeout(r, 100));
    expect((await inspect(id)).State.Running).toBe(true);
    await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
  });

  test('update applies resources live and persists them; stats report real numbers per version', async () => {
    const id = await create({ Cmd: ['sh', '-c', 'while true; do :; done'] }, 'busyloop');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    const u = await b.request('POST', `/v1.24/containers/${id}/update`, { body: { Memory: 64 << 20, MemorySwap: 128 << 20, CpuShares: 512, RestartPolicy: { Name: 'unless-stopped' } } });
    expect(u.json()).toEqual({ Warnings: null }); // the reference: null, not []
    const hc = (await inspect(id)).HostConfig;
    expect([hc.Memory, hc.CpuShares, hc.RestartPolicy.Name]).toEqual([64 << 20, 512, 'unless-stopped']);
    const one = (await b.request('GET', `/v1.24/containers/${id}/stats?stream=0`)).json();
    expect(one.memory_stats.limit).toBe(64 << 20);
    expect(one.cpu_stats.cpu_usage.total_usage).toBeGreaterThan(0);
    expect(one.cpu_stats.system_cpu_usage).toBeGreaterThan(0);
    expect(one.precpu_stats.cpu_usage.total_usage).toBeGreaterThan(0);
    expect(one.pids_stats.current).toBeGreaterThanOrEqual(1);
    expect(one.networks).toBeDefined();
    const old = (await b.request('GET', `/v1.20/containers/${id}/stats?stream=0`)).json();
    expect(old.pids_stats).toBeUndefined();
    expect(old.network).toBeDefined();
    expect(old.networks).toBeUndefined();
    // 1.21, between the spec's `network` (to v1.20) and `networks` (since v1.22): the reference's `networks`
    const at121 = (await b.request('GET', `/v1.21/containers/${id}/stats?stream=0`)).json();
    expect([at121.network, typeof at121.networks]).toEqual([undefined, 'object']);
    const cli = await b.docker(['stats', '--no-stream', 'busyloop'], { apiVersion: '1.24' });
    expect(cli.stdout).toMatch(/64MiB/);
    await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
  });

  test("stats from the cgroup files are containerd's task metrics, field for field (cgroup v1 hosts)", async () => {
    // limits set, some disk and CPU work done, then still: the figures do not move between the two readings
    const id = await create({ Cmd: ['sh', '-c', 'dd if=/dev/zero of=/x bs=4k count=64 conv=fsync 2>/dev/null; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 3600'], HostConfig: { Memory: 48 << 20, MemorySwap: 96 << 20, PidsLimit: 50, CpuQuota: 50000, CpuPeriod: 100000 } }, 'cgstats');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    const pid = (await inspect(id)).State.Pid;
    const ctr = new Containerd({ address: containerdAddress(), namespace: b.config.namespace });
    const reader = new CgroupV1Reader();
    const cgroupV1Metrics = (pid: number) => reader.metrics(id, pid);
    try {
      let direct: Record<string, unknown> | undefined;
      let viaContainerd: Record<string, unknown> | undefined;
      for (let i = 0; i < 50; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const before = cgroupV1Metrics(pid);
        viaContainerd = (await metricsOf(ctr, [id])).get(id);
        direct = cgroupV1Metrics(pid);
        if (before && JSON.stringify(before) === JSON.stringify(direct) && (viaContainerd as any)?.cpu?.usage?.total === (direct as any)?.cpu?.usage?.total) break;
      }
      expect(direct).toBeDefined();
      const reading = (metrics: unknown) => ({ read: 'r', metrics, systemCpuNs: 1, onlineCpus: 2, memTotal: 8e9, networks: {} });
      for (const v of ['1.18', '1.20', '1.24'] as const) {
        const a = toStatsJSON(reading(direct), reading(direct), v, { id, name: '/cgstats' });
        const c = toStatsJSON(reading(viaContainerd), reading(viaContainerd), v, { id, name: '/cgstats' });
        expect(a).toEqual(c);
      }
      const s = toStatsJSON(reading(direct), undefined, '1.24') as any;
      expect([s.memory_stats.limit, s.pids_stats.limit, s.cpu_stats.throttling_data.periods > 0]).toEqual([48 << 20, 50, true]);
      expect(s.memory_stats.stats.hierarchical_memory_limit).toBe(48 << 20);
      // a one-shot's first reading: the CPU figures, as the full reading's
      expect(reader.metrics(id, pid, true)).toEqual({ cpu: (direct as any).cpu });
    } finally {
      ctr.close();
      await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
    }
  });

  test('the cgroup reader keeps a container\'s files open between readings: each reading is a fresh one; they close after the keep time, when the process is gone, and stay within the bound', async () => {
    const id = await create({ Cmd: ['sh', '-c', 'while true; do :; done'] }, 'keptfiles');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    const pid = (await inspect(id)).State.Pid;
    const reader = new CgroupV1Reader({ keepMs: 300 });
    const bounded = new CgroupV1Reader({ maxKept: 2, keepMs: 300 });
    const total = (m: any) => BigInt(m.cpu.usage.total);
    try {
      const first = reader.metrics(id, pid, true) as any;
      expect(reader.openFiles).toBe(3); // cpuacct.stat, cpuacct.usage_percpu, cpu.stat
      await new Promise((r) => setTimeout(r, 100));
      const full = reader.metrics(id, pid) as any;
      const files = reader.openFiles;
      expect(files).toBeGreaterThanOrEqual(12); // and the 9 others (more with the CFQ/BFQ recursive files)
      expect(total(full)).toBeGreaterThan(total(first)); // read anew through the same files: the busy loop's CPU went up
      await new Promise((r) => setTimeout(r, 100));
      expect(total(reader.metrics(id, pid) as any)).toBeGreaterThan(total(full));
      expect(reader.openFiles).toBe(files);
      // the bounded reader reads the same figures with at most 2 files open
      const b1 = bounded.metrics(id, pid) as any;
      expect(bounded.openFiles).toBe(2);
      expect(Object.keys(b1)).toEqual(Object.keys(full));
      expect(b1.memory.usage.limit).toBe(full.memory.usage.limit);
      expect(total(b1)).toBeGreaterThan(total(full));
      // not read for the keep time: closed (the sweep comes within twice the keep time)
      await new Promise((r) => setTimeout(r, 700));
      expect([reader.openFiles, bounded.openFiles]).toEqual([0, 0]);
      reader.metrics(id, pid);
      expect(reader.openFiles).toBe(files);
      // the process gone (its cgroup removed under the kept files): no reading, and its files closed
      await b.request('POST', `/v1.24/containers/${id}/kill`);
      for (let i = 0; i < 100 && (await inspect(id)).State.Running; i++) await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 100 && reader.metrics(id, pid) !== undefined; i++) await new Promise((r) => setTimeout(r, 50));
      expect(reader.metrics(id, pid)).toBeUndefined();
      expect(reader.openFiles).toBe(0);
    } finally {
      reader.close();
      bounded.close();
      await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
    }
  });

  test('a memory hog over -m 16m is OOMKilled, with the oom event', async () => {
    const w = watchEvents(`?filters=${encodeURIComponent('{"event":["oom"]}')}`, (e) => e.Action === 'oom');
    const id = await create({ Cmd: ['sh', '-c', 'x=a; while true; do x=$x$x; done'], HostConfig: { Memory: 16 << 20 } }, 'hog');
    await b.request('POST', `/v1.24/containers/${id}/start`);
    expect((await b.request('POST', `/v1.24/containers/${id}/wait`)).json().StatusCode).toBe(137);
    const events = await Promise.race([w.done, new Promise<any[]>((r) => setTimeout(() => r([]), 5000))]);
    w.close();
    expect(events.map((e) => e.Actor.ID)).toContain(id);
    expect((await inspect(id)).State.OOMKilled).toBe(true);
    await b.request('DELETE', `/v1.24/containers/${id}`);
  });
});
