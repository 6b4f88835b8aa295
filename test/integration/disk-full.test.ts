// A full disk under the data root (issue 19): berth with its own containerd on a small loop-mounted ext4 data root.
// Filled up, every operation that must write answers a 5xx naming the disk ("no space left on device"), changes
// nothing it did not finish (a rename, an update, a name taken by a failed create), and berth keeps serving; a
// container's log drops what it cannot write (whole lines only). Once space is back everything works, the records
// and logs read back whole, and a restarted berth finds everything.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULTS, type Config } from '../../src/config';
import { startDaemon, type Daemon } from '../../src/daemon';
import { silentLogger } from '../../src/log';
import { bridgeRules, removeRules } from '../../src/network/bridge';
import { request } from '../helpers/berth';
import { buildBusyboxImage } from '../helpers/busybox-image';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-full-'));
const mnt = path.join(dir, 'mnt');
const image = path.join(dir, 'disk.img');
const socket = path.join(dir, 'b.sock');
const config: Config = {
  ...DEFAULTS,
  hosts: [`unix://${socket}`],
  dataRoot: path.join(mnt, 'data'),
  execRoot: path.join(dir, 'exec'),
  namespace: 'berth-full',
  cgroupParent: '/berth-full',
  bridgeName: `bfull${process.pid % 10000}`,
  bridgeSubnet: '10.252.91.0/24',
  pluginSocketDir: path.join(dir, 'plugins'),
  pluginSpecDirs: [],
};
const filler = path.join(mnt, 'filler');
const FULL = /no space left on device/;
let daemon: Daemon;
let busybox: Buffer;
const api = (method: string, p: string, body?: unknown) => request(socket, method, p, body === undefined ? {} : { body });
const ids: string[] = [];

async function create(name: string, cmd: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await api('POST', `/v1.24/containers/create?name=${name}`, { Image: 'busybox', Cmd: ['sh', '-c', cmd], HostConfig: { NetworkMode: 'none' }, ...extra });
  expect(r.status).toBe(201);
  ids.push(r.json().Id);
  return r.json().Id;
}

async function exec(id: string, cmd: string): Promise<{ code: number; out: string }> {
  const e = (await api('POST', `/v1.24/containers/${id}/exec`, { Cmd: ['sh', '-c', cmd], AttachStdout: true, AttachStderr: true })).json().Id;
  const out = (await api('POST', `/v1.24/exec/${e}/start`, { Tty: true })).text;
  return { code: (await api('GET', `/v1.24/exec/${e}/json`)).json().ExitCode, out };
}

/** Fills the filesystem to the last block: 1 MiB writes, then 4 KiB ones. */
function fill(): void {
  const fd = fs.openSync(filler, 'a');
  try {
    for (const size of [1 << 20, 4096, 512]) {
      const b = Buffer.alloc(size);
      try {
        for (;;) fs.writeSync(fd, b);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Every line of the container's json-file log (and rotated files) is a whole entry. */
function logLines(id: string): { log: string }[] {
  const file = path.join(config.dataRoot, 'containers', id, `${id}-json.log`);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

beforeAll(async () => {
  fs.mkdirSync(mnt);
  execFileSync('truncate', ['-s', '192M', image]);
  execFileSync('mkfs.ext4', ['-q', '-m', '0', '-F', image]);
  execFileSync('mount', ['-o', 'loop', image, mnt]);
  busybox = await buildBusyboxImage({ tags: ['busybox:latest'] });
  daemon = await startDaemon(config, silentLogger());
  expect((await api('POST', '/v1.24/images/load?quiet=1', busybox)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  fs.rmSync(filler, { force: true });
  for (const id of ids) await api('DELETE', `/v1.24/containers/${id}?force=1&v=1`).catch(() => undefined);
  await daemon?.close();
  const pidFile = path.join(config.execRoot, 'containerd', 'containerd.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    try {
      process.kill(pid, 'SIGTERM');
      // gone, or a zombie (it was this process's child)
      for (let i = 0; i < 800 && !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 25));
    } catch {
      /* gone */
    }
  }
  try {
    execFileSync('ip', ['link', 'delete', config.bridgeName], { stdio: 'ignore' });
  } catch {
    /* none */
  }
  await removeRules(bridgeRules(config.bridgeName, config.bridgeSubnet, false));
  // (containerd may take a while to let go of the filesystem)
  for (let i = 0; ; i++) {
    try {
      execFileSync('umount', i < 80 ? [mnt] : ['-l', mnt], { stdio: 'ignore' });
      break;
    } catch {
      if (i >= 80) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // the containers' (now empty) cgroup parent
  for (const ctl of fs.readdirSync('/sys/fs/cgroup')) {
    try {
      fs.rmdirSync(path.join('/sys/fs/cgroup', ctl, config.cgroupParent));
    } catch {
      /* none there */
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('a full data root: clean 5xx naming the disk, nothing half-changed, berth serving; afterwards all works and reads back whole', async () => {
  const talker = await create('talker', 'i=0; while true; do echo line $i; i=$((i+1)); usleep 20000; done');
  const vw = await create('vw', 'sleep 1000', { HostConfig: { NetworkMode: 'none', Binds: ['vol1:/v'] } });
  const other = await create('other', 'true');
  for (const id of [talker, vw]) expect((await api('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  for (const t0 = Date.now(); logLines(talker).length < 5 && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 50));

  fill();
  // the talker keeps writing: its entries are dropped whole while the disk is full
  await new Promise((r) => setTimeout(r, 500));

  // (each answer is checked with its message: a wrong status names its cause)
  const c = await api('POST', '/v1.24/containers/create?name=late', { Image: 'busybox', Cmd: ['true'] });
  expect([c.status, c.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  const v = await api('POST', '/v1.24/volumes/create', { Name: 'vol2' });
  expect([v.status, v.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  const load = await api('POST', '/v1.24/images/load', busybox);
  expect(load.text).toMatch(FULL);
  const commit = await api('POST', `/v1.24/commit?container=${talker}&repo=snap&tag=1`);
  expect([commit.status, commit.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  const ren = await api('POST', `/v1.24/containers/${other}/rename?name=renamed`);
  expect([ren.status, ren.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  const upd = await api('POST', `/v1.24/containers/${talker}/update`, { Memory: 64 << 20 });
  expect([upd.status, upd.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  const net = await api('POST', '/v1.24/networks/create', { Name: 'fullnet' });
  expect([net.status, net.json().message]).toEqual([500, expect.stringMatching(FULL)]);
  // a write into a volume is the container's own ENOSPC
  const dd = await exec(vw, 'dd if=/dev/zero of=/v/big bs=1M count=50');
  expect(dd.code).not.toBe(0);
  expect(dd.out).toMatch(/No space left on device/);
  // nothing half-changed, and berth serves
  expect((await api('GET', `/v1.24/containers/${other}/json`)).json().Name).toBe('/other');
  expect((await api('GET', `/v1.24/containers/${talker}/json`)).json().HostConfig.Memory).toBe(0);
  expect((await api('GET', '/v1.24/containers/late/json')).status).toBe(404);
  expect((await api('GET', '/_ping')).status).toBe(200);
  const info = await api('GET', '/v1.24/info');
  expect([info.status, info.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  expect((await api('GET', '/v1.24/containers/json?all=1')).json().map((x: { Names: string[] }) => x.Names[0]).sort()).toEqual(['/other', '/talker', '/vw']);
  expect((await api('GET', `/v1.24/containers/${talker}/logs?stdout=1&tail=5`)).status).toBe(200);
  const whileFull = logLines(talker).length;
  // the failed load left no file open (this process is berth)
  const open = fs.readdirSync('/proc/self/fd').map((f) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${f}`);
    } catch {
      return '';
    }
  });
  expect(open.filter((l) => l.startsWith(path.join(config.dataRoot, 'tmp')))).toEqual([]);

  // space back
  fs.rmSync(filler);
  expect((await exec(vw, 'rm -f /v/big')).code).toBe(0);
  for (const t0 = Date.now(); logLines(talker).length < whileFull + 5 && Date.now() - t0 < 10_000; ) await new Promise((r) => setTimeout(r, 50));
  const lines = logLines(talker).map((e) => e.log);
  expect(lines.length).toBeGreaterThan(whileFull);
  // whole entries only: each is a line of the talker, in order (with the gap of what was dropped)
  const nums = lines.map((l) => Number(/^line (\d+)\n$/.exec(l)?.[1]));
  expect(nums.every((n) => Number.isInteger(n))).toBe(true);
  expect(nums).toEqual([...nums].sort((a, b) => a - b));

  expect((await api('POST', '/v1.24/containers/create?name=late', { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } })).status).toBe(201);
  ids.push((await api('GET', '/v1.24/containers/late/json')).json().Id);
  expect((await api('POST', '/v1.24/volumes/create', { Name: 'vol2' })).status).toBe(201);
  expect((await api('POST', '/v1.24/images/load?quiet=1', busybox)).status).toBe(200);
  expect((await api('POST', `/v1.24/commit?container=${talker}&repo=snap&tag=1`)).status).toBe(201);
  expect((await api('POST', `/v1.24/containers/${other}/rename?name=renamed`)).status).toBe(204);
  expect((await api('POST', `/v1.24/containers/${talker}/update`, { Memory: 64 << 20 })).status).toBe(200);
  expect((await api('POST', '/v1.24/networks/create', { Name: 'fullnet' })).status).toBe(201);
  const nrm = await api('DELETE', '/v1.24/networks/fullnet');
  expect([nrm.status, nrm.text]).toEqual([204, '']);
  const run = await create('after', 'echo after');
  expect((await api('POST', `/v1.24/containers/${run}/start`)).status).toBe(204);
  expect((await api('POST', `/v1.24/containers/${run}/wait`)).json().StatusCode).toBe(0);
  expect(logLines(run).map((e) => e.log)).toEqual(['after\n']);

  // a restarted berth reads every record back as it was last answered
  await daemon.close();
  daemon = await startDaemon(config, silentLogger());
  const list = (await api('GET', '/v1.24/containers/json?all=1')).json().map((x: { Names: string[] }) => x.Names[0]).sort();
  expect(list).toEqual(['/after', '/late', '/renamed', '/talker', '/vw']);
  expect((await api('GET', `/v1.24/containers/${talker}/json`)).json()).toMatchObject({ HostConfig: { Memory: 64 << 20 }, State: { Running: true } });
  expect((await api('GET', '/v1.24/volumes/vol2')).status).toBe(200);
  expect((await api('GET', '/v1.24/images/snap:1/json')).status).toBe(200);
  for (const l of fs.readFileSync(path.join(config.dataRoot, 'events.jsonl'), 'utf8').split('\n').filter(Boolean)) expect(() => JSON.parse(l)).not.toThrow();
  const cdir = path.join(config.dataRoot, 'containers');
  expect(fs.readdirSync(cdir).flatMap((id) => fs.readdirSync(path.join(cdir, id))).filter((f) => f.includes('.tmp-'))).toEqual([]);
}, 120_000);
