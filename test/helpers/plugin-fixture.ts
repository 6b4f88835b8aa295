// The test volume plugin (test/fixtures/volume-plugin/fixture.c): built static with Debian's gcc, run on the host
// as a legacy socket plugin, and packaged as a managed plugin (manifest, plugin config, one rootfs layer) pushed
// to a test registry with berth's own registry client.
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { pack } from 'tar-stream';
import { RegistryClient } from '../../src/registry/client';

const SRC = path.join(__dirname, '..', 'fixtures', 'volume-plugin', 'fixture.c');

/** The fixture binary, compiled once per source version into the temp dir. */
export function fixtureBinary(): string {
  const src = fs.readFileSync(SRC);
  const out = path.join(os.tmpdir(), `berth-volume-plugin-${crypto.createHash('sha256').update(src).digest('hex').slice(0, 12)}`);
  if (!fs.existsSync(out)) {
    execFileSync('gcc', ['-static', '-O2', '-o', `${out}.tmp`, SRC], { stdio: ['ignore', 'ignore', 'pipe'] });
    fs.renameSync(`${out}.tmp`, out);
  }
  return out;
}

export interface LegacyPlugin {
  socket: string;
  root: string;
  calls(): string[];
  stop(): Promise<void>;
}

/** Runs the fixture on the host, listening on `socket`, its volumes under `root`. */
export async function startLegacyPlugin(socket: string, root: string, mode = 'ok'): Promise<LegacyPlugin> {
  fs.mkdirSync(path.dirname(socket), { recursive: true });
  const child: ChildProcess = spawn(fixtureBinary(), [socket, root, mode], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !fs.existsSync(socket); i++) await new Promise((r) => setTimeout(r, 20));
  return {
    socket,
    root,
    calls: () => (fs.existsSync(path.join(root, '.calls')) ? fs.readFileSync(path.join(root, '.calls'), 'utf8').split('\n').filter(Boolean) : []),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await gone;
      }
      fs.rmSync(socket, { force: true });
    },
  };
}

const sha = (b: Buffer) => 'sha256:' + crypto.createHash('sha256').update(b).digest('hex');

async function rootfsLayer(): Promise<{ gz: Buffer; diffId: string }> {
  const p = pack();
  const bin = fs.readFileSync(fixtureBinary());
  for (const d of ['run/', 'run/docker/', 'run/docker/plugins/', 'data/', 'tmp/']) p.entry({ name: d, type: 'directory', mode: 0o755 });
  p.entry({ name: 'fixture', mode: 0o755, size: bin.length }, bin);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p as unknown as Readable) chunks.push(c as Buffer);
  const tar = Buffer.concat(chunks);
  return { gz: zlib.gzipSync(tar), diffId: sha(tar) };
}

/** The fixture's plugin config; `mode` picks its behaviour (see fixture.c). */
export function pluginConfig(diffId: string, mode = 'ok', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Description: 'berth test volume plugin',
    Documentation: 'https://example.invalid/berth',
    Interface: { Types: ['docker.volumedriver/1.0'], Socket: 'fixture.sock' },
    Entrypoint: ['/fixture', '/run/docker/plugins/fixture.sock', '/data', mode],
    WorkDir: '',
    User: {},
    Network: { Type: 'host' },
    Linux: { Capabilities: null, AllowAllDevices: false, Devices: null },
    Mounts: null,
    PropagatedMount: '',
    Env: [{ Name: 'DEBUG', Description: 'unused', Settable: null, Value: '0' }],
    Args: { Name: '', Description: '', Settable: null, Value: null },
    rootfs: { type: 'layers', diff_ids: [diffId] },
    ...extra,
  };
}

/** Pushes the fixture as `repo:tag` (config media type application/vnd.docker.plugin.v1+json). */
export async function pushPluginFixture(host: string, repo: string, tag: string, mode = 'ok', opts: { configMediaType?: string; extra?: Record<string, unknown> } = {}): Promise<void> {
  const client = new RegistryClient(host);
  const layer = await rootfsLayer();
  const config = Buffer.from(JSON.stringify(pluginConfig(layer.diffId, mode, opts.extra)));
  for (const b of [layer.gz, config]) await client.uploadBlob(repo, sha(b), b.length, () => Readable.from([b]));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    config: { mediaType: opts.configMediaType ?? 'application/vnd.docker.plugin.v1+json', size: config.length, digest: sha(config) },
    layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: layer.gz.length, digest: sha(layer.gz) }],
  };
  await client.putManifest(repo, tag, { bytes: Buffer.from(JSON.stringify(manifest)), mediaType: manifest.mediaType });
}
