// Builds a small busybox image from Debian's busybox-static, in TypeScript, with no registry and no engine:
// a docker-save archive (manifest.json, repositories, <config>.json, <layer>/layer.tar) or an OCI-layout archive.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import * as tar from 'tar-stream';
import type { TestBerth } from './berth';

export const APPLETS = [
  'sh', 'ls', 'cat', 'echo', 'sleep', 'true', 'false', 'id', 'env', 'ps', 'top', 'wc', 'head', 'tail', 'grep', 'sed',
  'mkdir', 'rm', 'cp', 'mv', 'chmod', 'touch', 'stat', 'date', 'hostname', 'httpd', 'wget', 'ping', 'nc', 'printf',
  'test', 'kill', 'seq', 'yes', 'dd', 'sha256sum', 'stty', 'uname', 'tee', 'nslookup', 'mount', 'find', 'whoami',
  'ln', 'dmesg', 'free', 'du', 'df', 'tr', 'cut', 'sort', 'uniq', 'xargs', 'basename', 'dirname', 'pwd', 'readlink',
];

export interface BuildOptions {
  format?: 'docker' | 'oci';
  /** repo:tag names recorded in the archive (docker: RepoTags; oci: org.opencontainers.image.ref.name). */
  tags?: string[];
  /** Extra files in the layer: path → content. */
  extraFiles?: Record<string, string | Buffer>;
  /** Merged into the image config's `config`. */
  config?: Record<string, unknown>;
  /** gzip the layer (oci format only). */
  gzip?: boolean;
}

const sha256 = (b: Buffer | string): string => crypto.createHash('sha256').update(b).digest('hex');
const MTIME = new Date('2024-01-01T00:00:00Z');

function packTar(entries: { name: string; type?: 'file' | 'directory' | 'symlink'; data?: Buffer; linkname?: string; mode?: number }[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: unknown) => chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
    for (const e of entries) {
      const type = e.type ?? 'file';
      const header = { name: e.name, type, mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644), mtime: MTIME, uid: 0, gid: 0, linkname: e.linkname };
      if (type === 'file') pack.entry(header, e.data ?? Buffer.alloc(0));
      else pack.entry(header);
    }
    pack.finalize();
  });
}

async function busyboxLayer(extra: Record<string, string | Buffer> = {}): Promise<Buffer> {
  const busybox = fs.readFileSync('/bin/busybox');
  const passwd = 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\napp:x:1000:1000:app:/home/app:/bin/sh\n';
  const group = 'root:x:0:\nnobody:x:65534:\napp:x:1000:\nstaff:x:50:app\n';
  const entries: Parameters<typeof packTar>[0] = [
    { name: 'bin/', type: 'directory' },
    { name: 'bin/busybox', data: busybox, mode: 0o755 },
    ...APPLETS.map((a) => ({ name: `bin/${a}`, type: 'symlink' as const, linkname: 'busybox', mode: 0o777 })),
    { name: 'etc/', type: 'directory' },
    { name: 'etc/passwd', data: Buffer.from(passwd) },
    { name: 'etc/group', data: Buffer.from(group) },
    { name: 'home/', type: 'directory' },
    { name: 'home/app/', type: 'directory' },
    { name: 'root/', type: 'directory', mode: 0o700 },
    { name: 'tmp/', type: 'directory', mode: 0o1777 },
    { name: 'var/', type: 'directory' },
    { name: 'www/', type: 'directory' },
  ];
  for (const [p, data] of Object.entries(extra)) entries.push({ name: p.replace(/^\//, ''), data: Buffer.isBuffer(data) ? data : Buffer.from(data) });
  return packTar(entries);
}

function imageConfig(diffId: string, opts: BuildOptions): Buffer {
  return Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      created: '2024-01-01T00:00:00Z',
      config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['sh'], ...(opts.config ?? {}) },
      rootfs: { type: 'layers', diff_ids: [`sha256:${diffId}`] },
      history: [{ created: '2024-01-01T00:00:00Z', created_by: 'berth test helper: busybox-static' }],
    }),
  );
}

const cache = new Map<string, Buffer>();

export async function buildBusyboxImage(opts: BuildOptions = {}): Promise<Buffer> {
  const key = JSON.stringify(opts);
  const hit = cache.get(key);
  if (hit) return hit;
  const tags = opts.tags ?? ['busybox:latest'];
  const layer = await busyboxLayer(opts.extraFiles);
  const diffId = sha256(layer);
  const config = imageConfig(diffId, opts);
  const configId = sha256(config);
  let out: Buffer;
  if ((opts.format ?? 'docker') === 'docker') {
    const layerId = sha256(diffId + configId);
    const repositories: Record<string, Record<string, string>> = {};
    for (const t of tags) {
      const i = t.lastIndexOf(':');
      (repositories[t.slice(0, i)] ??= {})[t.slice(i + 1)] = layerId;
    }
    out = await packTar([
      { name: `${layerId}/`, type: 'directory' },
      { name: `${layerId}/VERSION`, data: Buffer.from('1.0') },
      { name: `${layerId}/json`, data: Buffer.from(JSON.stringify({ id: layerId, created: '2024-01-01T00:00:00Z', os: 'linux' })) },
      { name: `${layerId}/layer.tar`, data: layer },
      { name: `${configId}.json`, data: config },
      { name: 'manifest.json', data: Buffer.from(JSON.stringify([{ Config: `${configId}.json`, RepoTags: tags, Layers: [`${layerId}/layer.tar`] }])) },
      ...(tags.length ? [{ name: 'repositories', data: Buffer.from(JSON.stringify(repositories)) }] : []),
    ]);
  } else {
    const blob = opts.gzip ? zlib.gzipSync(layer) : layer;
    const layerDesc = { mediaType: `application/vnd.oci.image.layer.v1.tar${opts.gzip ? '+gzip' : ''}`, digest: `sha256:${sha256(blob)}`, size: blob.length };
    const manifest = Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${configId}`, size: config.length }, layers: [layerDesc] }),
    );
    const index = {
      schemaVersion: 2,
      manifests: (tags.length ? tags : [undefined]).map((t) => ({
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: `sha256:${sha256(manifest)}`,
        size: manifest.length,
        ...(t ? { annotations: { 'io.containerd.image.name': t.includes('/') ? t : `docker.io/library/${t}`, 'org.opencontainers.image.ref.name': t.slice(t.lastIndexOf(':') + 1) } } : {}),
      })),
    };
    out = await packTar([
      { name: 'oci-layout', data: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
      { name: 'index.json', data: Buffer.from(JSON.stringify(index)) },
      { name: 'blobs/', type: 'directory' },
      { name: 'blobs/sha256/', type: 'directory' },
      { name: `blobs/sha256/${sha256(blob)}`, data: blob },
      { name: `blobs/sha256/${configId}`, data: config },
      { name: `blobs/sha256/${sha256(manifest)}`, data: manifest },
    ]);
  }
  cache.set(key, out);
  return out;
}

/** Loads busybox into a test berth under `tag`; returns the image id (sha256:...). */
export async function loadBusybox(b: Pick<TestBerth, 'request'>, tag = 'busybox:latest', opts: Omit<BuildOptions, 'tags'> = {}): Promise<string> {
  const archive = await buildBusyboxImage({ ...opts, tags: [tag] });
  const r = await b.request('POST', '/v1.24/images/load?quiet=1', { body: archive, headers: { 'Content-Type': 'application/x-tar' } });
  if (r.status !== 200 || /"error"/.test(r.text)) throw new Error(`load failed: ${r.status} ${r.text}`);
  const inspect = await b.request('GET', `/v1.24/images/${encodeURIComponent(tag)}/json`);
  if (inspect.status !== 200) throw new Error(`inspect after load failed: ${inspect.status} ${inspect.text}`);
  return inspect.json().Id as string;
}
