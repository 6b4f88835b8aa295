// Lifecycle benchmark (a script, not a test): create → start → wait → remove of `busybox true` through berth's
// API (NetworkMode none and the default bridge), against its limit, the same lifecycle driven directly over
// containerd gRPC (cookbook §6 order), and against the reference engine's API (REF_SOCK, default
// /work/ref/docker.sock, which needs busybox:latest; left out when it does not answer), interleaved in one run;
// and GET /containers/json?all=1 with 500 containers.
// Run: npm run build && node dist/bench/lifecycle.js [runs]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OCI_SPEC_URL, packJSON } from '../src/containerd/any';
import { DEFAULTS } from '../src/config';
import { startDaemon } from '../src/daemon';
import { silentLogger } from '../src/log';
import { request } from '../test/helpers/berth';
import { buildBusyboxImage } from '../test/helpers/busybox-image';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { mkfifos, openReader } from '../src/runtime/fifo';
import { generateSpec } from '../src/translate/spec';
import { removeScratch } from './scratch';


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const REF_SOCK = process.env.REF_SOCK ?? '/work/ref/docker.sock';
const stats = (xs: number[]) => ({ median: +median(xs).toFixed(1), min: +Math.min(...xs).toFixed(1), max: +Math.max(...xs).toFixed(1) });

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 20);
  const ctd = process.env.BERTH_BENCH_CONTAINERD ? { address: process.env.BERTH_BENCH_CONTAINERD, pid: 0, dir: '' } : await startPrivateContainerd();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-lc-'));
  const socket = path.join(dir, 'b.sock');
  const ns = `berth-bench-${process.pid}`;
  const config = { ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, 'data'), execRoot: path.join(dir, 'exec'), containerd: ctd.address, namespace: ns, cgroupParent: `/${ns}`, bridgeName: 'berthbench0', bridgeSubnet: '10.254.254.0/24' };
  const daemon = await startDaemon(config, silentLogger());
  const ctr = daemon.ctr;
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

    await viaBerth();
    await raw();
    const b: number[] = [];
    const br: number[] = [];
    const r: number[] = [];
    const ref: number[] = [];
    const refBr: number[] = [];
    await viaBerth('bridge');
    // a reference mode that fails its warm-up (its docker0 gone, say) is left out and named in the report
    const refLeftOut: Record<string, string> = {};
    const refModes = withRef ? ['none', 'bridge'] : [];
    for (const m of [...refModes]) await viaApi(REF_SOCK, m).catch((err: Error) => ((refLeftOut[m] = err.message.slice(0, 300)), refModes.splice(refModes.indexOf(m), 1)));
    for (let i = 0; i < runs; i++) {
      b.push(await viaBerth('none'));
      br.push(await viaBerth('bridge'));
      r.push(await raw());
      if (refModes.includes('none')) ref.push(await viaApi(REF_SOCK, 'none'));
      if (refModes.includes('bridge')) refBr.push(await viaApi(REF_SOCK, 'bridge'));
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
          ...(ref.length ? { berthOverRef: +(median(b) / median(ref)).toFixed(2) } : {}),
          ...(refBr.length ? { berthBridgeOverRef: +(median(br) / median(refBr)).toFixed(2) } : {}),
          reference: withRef ? REF_SOCK : 'not answering',
          ...(Object.keys(refLeftOut).length ? { referenceLeftOut: refLeftOut } : {}),
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
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
