// Lifecycle benchmark (a script, not a test): create → start → wait → remove of `busybox true` through berth's
// API (NetworkMode none and the default bridge), against its limit, the same lifecycle driven directly over
// containerd gRPC (cookbook §6 order), and against the reference engine's API (REF_SOCK, default
// /work/ref/docker.sock, which needs busybox:latest; left out when it does not answer), interleaved in one run;
// and GET /containers/json?all=1 with 500 containers. The default bridge's floor (`cniFloorMs`), interleaved too: what
// berth runs for a bridge container's network done directly from this process, without berth or a container — `ip
// netns add`, the loopback and bridge plugins' ADD (bridge with host-local IPAM on berth's bench bridge, the same
// configuration less what berth adds per container), bridge DEL, `ip netns delete` — against berth's bridge − none.
// As root with cgroup v1, each lifecycle's CPU is counted by component (bench/cpu-census.ts startAccounting): this
// process's main thread (berth's daemon runs in it, beside the bench's client; for the raw lifecycle, the gRPC
// client alone), its other threads and helpers, containerd with its shims and runc, and the container
// (`cpuMsPerLifecycle`). BENCH_TRACE=<file> loads bench/trace.ts (as bench:cli does into its berthd) and adds each
// lifecycle's steps (HTTP requests, containerd calls, record writes) for berth and for the raw lifecycle: median start
// and duration (`berthTimeline`, `rawTimeline`). BENCH_CPUPROF=<file> profiles this process's main thread over the
// interleaved runs (written there) and sums its self time by origin for berth's lifecycles and for the raw ones,
// per lifecycle (`mainProfileMsPerLifecycle`; BENCH_CPUPROF_US sets the sampling interval, 250 µs by default).
// Run: npm run build && node dist/bench/lifecycle.js [runs]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as os from 'node:os';
import * as path from 'node:path';
import { OCI_SPEC_URL, packJSON } from '../src/containerd/any';
import { cniPath, CNI_VERSION } from '../src/network/cni';
import { DEFAULTS } from '../src/config';
import { startDaemon } from '../src/daemon';
import { silentLogger } from '../src/log';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { mkfifos, openReader } from '../src/runtime/fifo';
import { generateSpec } from '../src/translate/spec';
import { medianCensus, startAccounting } from './cpu-census';
import { removeScratch } from './scratch';
import { profileByOrigin, readTrace, runTimeline } from './trace-summary';


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const REF_SOCK = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const stats = (xs: number[]) => ({ median: +median(xs).toFixed(1), min: +Math.min(...xs).toFixed(1), max: +Math.max(...xs).toFixed(1) });

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 20);
  const trace = process.env.BENCH_TRACE && path.resolve(process.env.BENCH_TRACE);
  if (trace) {
    // (before the daemon and its containerd client are made: the trace patches their prototypes)
    process.env.BERTH_TRACE = trace;
    require('./trace');
  }
  const ctd = process.env.BERTH_BENCH_CONTAINERD ? { address: process.env.BERTH_BENCH_CONTAINERD, pid: 0, dir: '' } : await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-lc-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-${process.pid}`;
  const config = { ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: ctd.address, namespace: ns, cgroupParent: `/${ns}`, bridgeName: 'berthbench0', bridgeSubnet: '10.254.254.0/24' };
  const daemon = await startDaemon(config, silentLogger());
  const ctr = daemon.ctr;
  const acct = startAccounting({ tag: String(process.pid), berthPid: () => process.pid, containers: `/${ns}` });
  if (acct) {
    acct.add('berthd', process.pid);
    if (ctd.pid) acct.add('containerd', ctd.pid);
  }
  // per kind, each lifecycle's CPU by component and its window on the wall clock
  const cpu: Record<string, Record<string, number>[]> = {};
  const windows: Record<string, [number, number][]> = {};
  const monoWindows: Record<string, [number, number][]> = {}; // (µs, as a CPU profile's timestamps)
  const wallMs = () => performance.timeOrigin + performance.now();
  const monoUs = () => Number(process.hrtime.bigint() / 1000n);
  const counted = async (kind: string, f: () => Promise<number>) => {
    const a0 = acct?.read();
    const w0 = wallMs();
    const m0 = monoUs();
    const ms = await f();
    (windows[kind] ??= []).push([w0, wallMs()]);
    (monoWindows[kind] ??= []).push([m0, monoUs()]);
    if (acct && a0) (cpu[kind] ??= []).push(acct.perRun(a0, acct.read()));
    return ms;
  };
  try {
    await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage() });
    const img = (await request(socket, 'GET', '/v1.24/images/busybox/json')).json();
    const chain = img.RootFS.Layers[0];

    const viaApi = async (sock: string, networkMode: string) => {
      const t0 = process.hrtime.bigint();
      const c = await request(sock, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['/bin/busybox', 'true'], HostConfig: { NetworkMode: networkMode } } });
      const id = c.json().Id;
      if (!id) throw new Error(`create failed: ${c.text}`);
      const st = await request(sock, 'POST', `/v1.24/containers/${id}/start`);
      if (st.status !== 204) {
        await request(sock, 'DELETE', `/v1.24/containers/${id}?force=1`);
        throw new Error(`start failed: ${st.text}`);
      }
      await request(sock, 'POST', `/v1.24/containers/${id}/wait`);
      const rm = await request(sock, 'DELETE', `/v1.24/containers/${id}`);
      if (rm.status !== 204) throw new Error(`remove failed: ${rm.text}`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const viaBerth = (networkMode = 'none') => viaApi(socket, networkMode);
    // the reference, when it answers and runs busybox (warm-up below)
    const withRef = await request(REF_SOCK, 'GET', '/_ping').then((r) => r.status === 200, () => false);

    let n = 0;
    const raw = async () => {
      const t0 = process.hrtime.bigint();
      const id = `raw${process.pid}x${n++}`;
      const spec = generateSpec({ id, config: { Cmd: ['/bin/busybox', 'true'] }, hostConfig: {}, user: { uid: 0, gid: 0, additionalGids: [0] }, cgroupParent: `/${ns}`, mounts: [], hostname: id.slice(0, 12), seccompAvailable: true, devices: [], blockDevices: {} });
      await ctr.containers.Create({ container: { id, image: 'docker.io/library/busybox:latest', labels: {}, runtime: { name: 'io.containerd.runc.v2' }, spec: packJSON(OCI_SPEC_URL, spec), snapshotter: 'overlayfs', snapshot_key: id } });
      const { mounts } = await ctr.snapshots.Prepare({ snapshotter: 'overlayfs', key: id, parent: chain, labels: {} });
      const fifo = path.join(dir, id);
      await mkfifos([`${fifo}-out`, `${fifo}-err`]);
      const out = openReader(`${fifo}-out`);
      const err = openReader(`${fifo}-err`);
      out.resume();
      err.resume();
      await ctr.tasks.Create({ container_id: id, rootfs: mounts, stdin: '', stdout: `${fifo}-out`, stderr: `${fifo}-err`, terminal: false });
      const waited = ctr.tasks.Wait({ container_id: id });
      await ctr.tasks.Start({ container_id: id });
      await waited;
      await ctr.tasks.Delete({ container_id: id });
      await ctr.snapshots.Remove({ snapshotter: 'overlayfs', key: id });
      await ctr.containers.Delete({ id });
      out.destroy();
      err.destroy();
      fs.rmSync(`${fifo}-out`);
      fs.rmSync(`${fifo}-err`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };

    // The bridge's floor: the commands berth runs for a bridge container's network, run directly.
    const cniDir = cniPath();
    const ipamDir = path.join(dir, 'floor-ipam');
    const run = (file: string, args: string[], env?: NodeJS.ProcessEnv, input?: string) =>
      new Promise<void>((resolve, reject) => {
        const p = spawn(file, args, { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
        let out = '';
        p.stdout!.on('data', (d) => (out += d));
        p.stderr!.on('data', (d) => (out += d));
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')}: ${code}: ${out.slice(0, 300)}`))));
        if (input !== undefined) p.stdin!.end(input);
      });
    const cni = (type: string, command: string, id: string, netns: string, ifname: string, conf: object) =>
      run(`${cniDir}/${type}`, [], { CNI_COMMAND: command, CNI_CONTAINERID: id, CNI_NETNS: netns, CNI_IFNAME: ifname, CNI_PATH: cniDir }, JSON.stringify({ cniVersion: CNI_VERSION, name: 'berth-bench-floor', ...conf }));
    const bridgeConf = {
      type: 'bridge',
      bridge: config.bridgeName,
      isGateway: true,
      ipMasq: false,
      hairpinMode: true,
      ipam: { type: 'host-local', ranges: [[{ subnet: config.bridgeSubnet, rangeStart: '10.254.254.200', rangeEnd: '10.254.254.250' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDir },
    };
    let f = 0;
    const cniFloor = async () => {
      const name = `berth-floor-${process.pid}-${f++}`;
      const netns = `/var/run/netns/${name}`;
      const t0 = process.hrtime.bigint();
      await run('ip', ['netns', 'add', name]);
      await Promise.all([cni('loopback', 'ADD', name, netns, 'lo', { type: 'loopback' }), cni('bridge', 'ADD', name, netns, 'eth0', bridgeConf)]);
      await cni('bridge', 'DEL', name, netns, 'eth0', bridgeConf);
      await run('ip', ['netns', 'delete', name]);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };

    await viaBerth();
    await raw();
    const b: number[] = [];
    const br: number[] = [];
    const r: number[] = [];
    const ref: number[] = [];
    const refBr: number[] = [];
    const floor: number[] = [];
    await viaBerth('bridge');
    await cniFloor();
    // a reference mode that fails its warm-up (its docker0 gone, say) is left out and named in the report
    const refLeftOut: Record<string, string> = {};
    const refModes = withRef ? ['none', 'bridge'] : [];
    for (const m of [...refModes]) await viaApi(REF_SOCK, m).catch((err: Error) => ((refLeftOut[m] = err.message.slice(0, 300)), refModes.splice(refModes.indexOf(m), 1)));
    const profFile = process.env.BENCH_CPUPROF && path.resolve(process.env.BENCH_CPUPROF);
    const session = profFile ? new inspector.Session() : undefined;
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) => session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
    if (session) {
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_CPUPROF_US ?? 250) });
      await post('Profiler.start');
    }
    for (let i = 0; i < runs; i++) {
      b.push(await counted('berthNone', () => viaBerth('none')));
      br.push(await viaBerth('bridge'));
      floor.push(await cniFloor());
      r.push(await counted('raw', raw));
      if (refModes.includes('none')) ref.push(await viaApi(REF_SOCK, 'none'));
      if (refModes.includes('bridge')) refBr.push(await viaApi(REF_SOCK, 'bridge'));
    }
    let mainProfile: Record<string, Record<string, number>> | undefined;
    if (session && profFile) {
      const { profile } = (await post('Profiler.stop')) as { profile: object };
      session.disconnect();
      fs.writeFileSync(profFile, JSON.stringify(profile));
      mainProfile = Object.fromEntries(Object.entries(monoWindows).map(([k, w]) => [k, profileByOrigin(profFile, w.length, w)]));
    }
    // 500 containers for the list.
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push((await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'] } })).json().Id);
    const lt: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = process.hrtime.bigint();
      const l = await request(socket, 'GET', '/v1.24/containers/json?all=1');
      if (l.json().length !== 500) throw new Error('list size');
      lt.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    console.log(
      JSON.stringify(
        {
          runs,
          load: os.loadavg().map((x) => +x.toFixed(2)),
          berthLifecycleMs: stats(b),
          berthBridgeLifecycleMs: stats(br),
          rawContainerdLifecycleMs: stats(r),
          ...(ref.length ? { refLifecycleMs: stats(ref) } : {}),
          ...(refBr.length ? { refBridgeLifecycleMs: stats(refBr) } : {}),
          // berth (NetworkMode none: the raw lifecycle has no network either) against raw containerd
          ratio: +(median(b) / median(r)).toFixed(2),
          // the default bridge (CNI) against NetworkMode none, both through berth
          bridgeVsNone: +(median(br) / median(b)).toFixed(2),
          bridgeVsRaw: +(median(br) / median(r)).toFixed(2),
          // what the bridge costs berth over none, against the same commands run directly (the floor)
          bridgeOverNoneMs: +(median(br) - median(b)).toFixed(1),
          cniFloorMs: stats(floor),
          ...(ref.length ? { berthOverRef: +(median(b) / median(ref)).toFixed(2) } : {}),
          ...(refBr.length ? { berthBridgeOverRef: +(median(br) / median(refBr)).toFixed(2) } : {}),
          reference: withRef ? REF_SOCK : 'not answering',
          ...(Object.keys(refLeftOut).length ? { referenceLeftOut: refLeftOut } : {}),
          ...(acct ? { cpuMsPerLifecycle: Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, medianCensus(xs)])) } : {}),
          ...(trace ? Object.fromEntries(Object.entries(windows).map(([k, w]) => [`${k === 'raw' ? 'raw' : 'berth'}Timeline`, runTimeline(readTrace(trace), w)])) : {}),
          ...(mainProfile ? { mainProfileMsPerLifecycle: mainProfile } : {}),
          list500Ms: { median: +median(lt).toFixed(1), max: +Math.max(...lt).toFixed(1) },
          goals: { ratio: '<= 1.10', bridgeVsNone: '<= 1.10', list500MedianMs: '< 50' },
        },
        null,
        2,
      ),
    );
  } finally {
    await daemon.close();
    await cleanupNamespace(ctr.withNamespace(ns));
    await removeScratch({ ctdPid: ctd.pid, bridges: [{ name: config.bridgeName, subnet: config.bridgeSubnet }], dir });
    await acct?.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
