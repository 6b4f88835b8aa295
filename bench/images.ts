// Image transfer benchmark (a script, not a test): a generated 200 MB, 5-layer image in a local docker-registry,
// pulled into a fresh containerd namespace through berth (POST /images/create) and by containerd's own client
// (`ctr images pull --plain-http`, which also unpacks), interleaved, in one run; then save and load throughput.
// Run: npm run bench:images [runs]
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import * as tar from 'tar-stream';
import { DEFAULTS } from '../src/config';
import { startDaemon } from '../src/daemon';
import { silentLogger } from '../src/log';
import { RegistryClient } from '../src/registry/client';
import { request } from '../test/helpers/berth';
import { cleanupNamespace } from '../test/helpers/cleanup';
import { startPrivateContainerd } from '../test/helpers/private-containerd';
import { startRegistry } from '../test/helpers/registry';
import { bridgeRules, removeRules } from '../src/network/bridge';

/** A bench berth's default bridge rules (no container ran, so no bridge link). */
const dropBridge = (name: string, subnet: string) => removeRules(bridgeRules(name, subnet, false));

const execFileP = promisify(execFile);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sha = (b: Buffer) => 'sha256:' + crypto.createHash('sha256').update(b).digest('hex');

function layerTar(name: string, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: unknown) => chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
    pack.entry({ name, size: bytes, mode: 0o644, mtime: new Date(0) }, crypto.randomBytes(bytes));
    pack.finalize();
  });
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const ctd = await startPrivateContainerd();
  const reg = await startRegistry();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-img-'));
  const repo = 'bench/big';
  const ref = `${reg.host}/${repo}:1`;
  try {
    // The image: 5 layers of 40 MB of random bytes (incompressible), an OCI manifest, pushed with berth's client.
    const client = new RegistryClient(reg.host);
    const layers: { mediaType: string; digest: string; size: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const t = await layerTar(`layer${i}.bin`, 40 << 20);
      const digest = sha(t);
      await client.uploadBlob(repo, digest, t.length, () => Readable.from([t]));
      layers.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest, size: t.length });
    }
    const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: {}, rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) }, history: [] }));
    await client.uploadBlob(repo, sha(config), config.length, () => Readable.from([config]));
    const manifest = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length }, layers };
    await client.putManifest(repo, '1', { bytes: Buffer.from(JSON.stringify(manifest)), mediaType: manifest.mediaType });
    const totalMB = layers.reduce((s, l) => s + l.size, 0) / 1e6;

    const viaBerth = async (i: number) => {
      const ns = `berth-bench-pull-${process.pid}-${i}`;
      const socket = path.join(dir, `b${i}.sock`);
      const daemon = await startDaemon({ ...DEFAULTS, hosts: [`unix://${socket}`], dataRoot: path.join(dir, `d${i}`), execRoot: path.join(dir, `e${i}`), containerd: ctd.address, namespace: ns, cgroupParent: `/${ns}`, bridgeName: `bbp${i}`, bridgeSubnet: `10.253.${i}.0/24` }, silentLogger());
      try {
        const t0 = process.hrtime.bigint();
        const r = await request(socket, 'POST', `/v1.24/images/create?fromImage=${encodeURIComponent(`${reg.host}/${repo}`)}&tag=1`);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (!r.text.includes('Downloaded newer image')) throw new Error(`pull failed: ${r.text.slice(-300)}`);
        return { ms, socket, daemon, ns };
      } catch (err) {
        await daemon.close();
        throw err;
      }
    };
    const viaCtr = async (i: number) => {
      const ns = `berth-bench-ctr-${process.pid}-${i}`;
      const t0 = process.hrtime.bigint();
      await execFileP('ctr', ['-a', ctd.address, '-n', ns, 'images', 'pull', '--plain-http', ref], { maxBuffer: 64 << 20 });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      return { ms, ns };
    };

    const berthMs: number[] = [];
    const ctrMs: number[] = [];
    let saveMBs = 0;
    let loadMBs = 0;
    for (let i = 0; i < runs; i++) {
      const b = await viaBerth(i);
      berthMs.push(b.ms);
      if (i === 0) {
        // save the pulled image, then load the archive into another fresh berth
        const t0 = process.hrtime.bigint();
        const saved = await request(b.socket, 'GET', `/v1.24/images/get?names=${encodeURIComponent(ref)}`);
        const saveS = Number(process.hrtime.bigint() - t0) / 1e9;
        saveMBs = saved.body.length / 1e6 / saveS;
        const ns2 = `berth-bench-load-${process.pid}`;
        const socket2 = path.join(dir, 'load.sock');
        const d2 = await startDaemon({ ...DEFAULTS, hosts: [`unix://${socket2}`], dataRoot: path.join(dir, 'dl'), execRoot: path.join(dir, 'el'), containerd: ctd.address, namespace: ns2, cgroupParent: `/${ns2}`, bridgeName: 'bbl0', bridgeSubnet: '10.253.250.0/24' }, silentLogger());
        const t1 = process.hrtime.bigint();
        const loaded = await request(socket2, 'POST', '/v1.24/images/load?quiet=1', { body: saved.body });
        const loadS = Number(process.hrtime.bigint() - t1) / 1e9;
        if (!loaded.text.includes('Loaded image')) throw new Error(`load failed: ${loaded.text.slice(-300)}`);
        loadMBs = saved.body.length / 1e6 / loadS;
        await d2.close();
        await cleanupNamespace(d2.ctr.withNamespace(ns2));
        await dropBridge('bbl0', '10.253.250.0/24');
      }
      await b.daemon.close();
      await cleanupNamespace(b.daemon.ctr.withNamespace(b.ns));
      await dropBridge(`bbp${i}`, `10.253.${i}.0/24`);
      const c = await viaCtr(i);
      ctrMs.push(c.ms);
      await execFileP('ctr', ['-a', ctd.address, '-n', c.ns, 'images', 'rm', '--sync', ref]).catch(() => undefined);
      await execFileP('ctr', ['-a', ctd.address, 'namespaces', 'rm', c.ns]).catch(() => undefined);
    }
    console.log(
      JSON.stringify(
        {
          runs,
          imageMB: +totalMB.toFixed(1),
          layers: layers.length,
          berthPullMs: { median: +median(berthMs).toFixed(0), all: berthMs.map((x) => +x.toFixed(0)) },
          ctrPullMs: { median: +median(ctrMs).toFixed(0), all: ctrMs.map((x) => +x.toFixed(0)) },
          pullRatio: +(median(berthMs) / median(ctrMs)).toFixed(2),
          saveMBps: +saveMBs.toFixed(0),
          loadMBps: +loadMBs.toFixed(0),
          goals: { pullRatio: '<= 1.2' },
        },
        null,
        2,
      ),
    );
  } finally {
    await reg.close();
    process.kill(ctd.pid, 'SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
