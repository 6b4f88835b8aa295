// Build benchmark (a script, not a test): the same 6-step Dockerfile (FROM, COPY of 20 MB in 500 files, 2 RUNs,
// ENV, CMD) built cold (nocache=1) and then fully cached, by berth and by the reference engine's classic builder
// (DOCKER_BUILDKIT=0 semantics: POST /v1.24/build), interleaved, medians; and the context upload rate (a 200 MB
// context with a one-step Dockerfile, so the time is the upload and unpacking).
// berth is the real bin/berthd, a process of its own as the reference's dockerd is (a daemon sharing the bench's
// event loop paid for the client's side of every upload too).
// Run: npm run bench:build [samples]   (REF_SOCK overrides the reference's socket, default /work/ref/docker.sock)
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import { spawn } from 'node:child_process';
import { Containerd } from '../src/containerd/client';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { removeScratch, stopBerthd } from './scratch';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const REF = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const ROOT = path.resolve(__dirname, '../..');

async function contextTar(files: number, size: number, dockerfile: string): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile', mode: 0o644 }, dockerfile);
  for (let i = 0; i < files; i++) pack.entry({ name: `data/d${i % 10}/f${i}`, mode: 0o644 }, crypto.randomBytes(size));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function timedBuild(socket: string, query: string, body: Buffer): Promise<{ ms: number; id: string; cached: number }> {
  const t0 = process.hrtime.bigint();
  const r = await request(socket, 'POST', `/v1.24/build?${query}`, { body, headers: { 'Content-Type': 'application/x-tar' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 200 || r.text.includes('"error"')) throw new Error(`build failed on ${socket}: ${r.status} ${r.text.slice(-500)}`);
  const m = /Successfully built ([0-9a-f]{12})/.exec(r.text);
  return { ms, id: m ? m[1] : '', cached: (r.text.match(/Using cache/g) ?? []).length };
}

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 5);
  const ctd = process.env.BERTH_BENCH_CONTAINERD ? { address: process.env.BERTH_BENCH_CONTAINERD, pid: 0, dir: '' } : await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-build-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-build-${process.pid}`;
  const bridge = 'berthbb0';
  const subnet = '10.254.253.0/24';
  const log = fs.openSync(path.join(dir, 'berthd.log'), 'w');
  const berthd = spawn(
    path.join(ROOT, 'bin/berthd'),
    ['-H', `unix://${socket}`, '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'exec'), '--containerd', ctd.address, '--namespace', ns, '--bridge-name', bridge, '--bridge-subnet', subnet, '--cgroup-parent', `/${ns}`, '--log-level', 'warn'],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  const refImages: string[] = [];
  try {
    for (let i = 0; !(await request(socket, 'GET', '/_ping').then((r) => r.status === 200, () => false)); i++) {
      if (i > 600 || berthd.exitCode !== null) throw new Error(`berthd did not start: ${fs.readFileSync(path.join(dir, 'berthd.log'), 'utf8').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const df = 'FROM busybox:latest\nCOPY data /data\nRUN ls -R /data | wc -l > /count\nRUN cat /count\nENV BENCH=1\nCMD ["cat", "/count"]\n';
    const ctx = await contextTar(500, 40 * 1024, df);
    // The reference's RUN has no bridge here (the shared reference runs with --bridge=none): networkmode=none there.
    const ref = (q: string, body: Buffer) => timedBuild(REF, `${q}&networkmode=none`, body);
    const berth = (q: string, body: Buffer) => timedBuild(socket, q, body);
    // warm-up (first build fills both caches)
    refImages.push((await ref('t=build-bench:cached', ctx)).id);
    await berth('t=build-bench:cached', ctx);
    const cold = { berth: [] as number[], ref: [] as number[] };
    const cached = { berth: [] as number[], ref: [] as number[] };
    for (let i = 0; i < samples; i++) {
      const b = await berth('nocache=1', ctx);
      cold.berth.push(b.ms);
      const r = await ref('nocache=1', ctx);
      cold.ref.push(r.ms);
      refImages.push(r.id);
      const bc = await berth('t=build-bench:cached', ctx);
      if (bc.cached !== 5) throw new Error(`berth: ${bc.cached} cached steps`);
      cached.berth.push(bc.ms);
      const rc = await ref('t=build-bench:cached', ctx);
      cached.ref.push(rc.ms);
    }
    // Context upload: 200 MB in 500 files, a Dockerfile that only names the base image.
    const big = await contextTar(500, 400 * 1024, 'FROM busybox:latest\n');
    const mb = big.length / 1e6;
    const up = { berth: [] as number[], ref: [] as number[] };
    for (let i = 0; i < Math.max(3, Math.ceil(samples / 2)); i++) {
      up.berth.push(mb / ((await berth('q=1', big)).ms / 1000));
      up.ref.push(mb / ((await ref('q=1', big)).ms / 1000));
    }
    const out = {
      samples,
      coldMs: { berth: Math.round(median(cold.berth)), reference: Math.round(median(cold.ref)), ratio: +(median(cold.berth) / median(cold.ref)).toFixed(2) },
      cachedMs: { berth: Math.round(median(cached.berth)), reference: Math.round(median(cached.ref)), ratio: +(median(cached.berth) / median(cached.ref)).toFixed(2) },
      contextUploadMBps: { berth: Math.round(median(up.berth)), reference: Math.round(median(up.ref)), contextMB: Math.round(mb) },
    };
    console.log(JSON.stringify({ ...out, loadAverage: os.loadavg().map((x) => +x.toFixed(2)) }, null, 2));
  } finally {
    // The reference's images made here: the tag and every cold build (their untagged parents go with them).
    await request(REF, 'DELETE', '/v1.24/images/build-bench:cached?force=1').catch(() => undefined);
    for (const id of refImages) if (id) await request(REF, 'DELETE', `/v1.24/images/${id}?force=1`).catch(() => undefined);
    await stopBerthd(berthd);
    const ctr = new Containerd({ address: ctd.address, namespace: ns });
    await cleanupNamespace(ctr);
    ctr.close();
    await removeScratch({ ctdPid: ctd.pid, bridges: [{ name: bridge, subnet }], dir });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
