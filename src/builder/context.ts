// The build context on disk: the request body (a tar, plain or gzip/bzip2/xz, sniffed by its first bytes) is
// streamed into a temporary directory under <data-root>/builder/tmp by fs/extract (the engine's unpack rules: no
// entry lands outside the directory), never held in memory; or a remote context (a tarball or a plain Dockerfile
// by URL, a git repository cloned with git). Sources are looked up inside the context only: paths are cleaned
// and every symlink resolved in the context's scope (fs/resolve), so `../x` and a link pointing out are refused.
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import dockerignore from '@balena/dockerignore';
import { BerthError, invalidParameter } from '../errors';
import { extractTar } from '../fs/extract';
import { unmountAllUnder } from '../fs/mounts';
import { cleanPath, resolveInScope, Scope } from '../fs/resolve';
import { hostProbe } from '../services/filesystem';

export interface BuildContext {
  /** Host directory holding the context. */
  dir: string;
  scope: Scope;
  remove: () => Promise<void>;
}

const MAGIC = {
  gzip: Buffer.from([0x1f, 0x8b]),
  bzip2: Buffer.from('BZh'),
  xz: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]),
};

/** Reads the first bytes of a stream and gives them back with the rest. */
async function peek(input: Readable, n: number): Promise<{ head: Buffer; stream: Readable }> {
  const chunks: Buffer[] = [];
  let len = 0;
  for (;;) {
    if (len >= n) break;
    const chunk: Buffer | null = input.read();
    if (chunk) {
      chunks.push(chunk);
      len += chunk.length;
      continue;
    }
    if (input.readableEnded) break;
    const ended = await new Promise<boolean>((resolve, reject) => {
      const done = () => { cleanup(); resolve(false); };
      const end = () => { cleanup(); resolve(true); };
      const fail = (e: Error) => { cleanup(); reject(e); };
      const cleanup = () => { input.off('readable', done); input.off('end', end); input.off('error', fail); };
      input.once('readable', done);
      input.once('end', end);
      input.once('error', fail);
    });
    if (ended) break;
  }
  const head = Buffer.concat(chunks);
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  out.write(head);
  input.pipe(out);
  input.on('error', (e) => out.destroy(e));
  return { head, stream: out };
}

/** Opens (decompressing when needed) a tar stream. */
export async function openTar(input: Readable): Promise<Readable> {
  const { head, stream } = await peek(input, 6);
  const tool = head.subarray(0, 2).equals(MAGIC.gzip) ? 'gzip' : head.subarray(0, 3).equals(MAGIC.bzip2) ? 'bzip2' : head.subarray(0, 6).equals(MAGIC.xz) ? 'xz' : undefined;
  if (!tool) return stream;
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const failed = (e: Error) => out.destroy(e);
  if (tool === 'gzip') {
    const gunzip = zlib.createGunzip();
    gunzip.on('error', failed);
    stream.pipe(gunzip).pipe(out);
  } else {
    // Node has neither bzip2 nor xz: Debian's tools decompress in a child process.
    const proc = spawn(tool, ['-dc'], { stdio: ['pipe', 'pipe', 'ignore'] });
    proc.on('error', failed);
    proc.stdin.on('error', () => undefined);
    proc.on('exit', (code) => { if (code) failed(new Error(`${tool}: exit status ${code}`)); });
    stream.pipe(proc.stdin);
    proc.stdout.pipe(out);
  }
  stream.on('error', failed);
  return out;
}

export class ContextStore {
  readonly tmpRoot: string;

  constructor(dataRoot: string) {
    this.tmpRoot = path.join(dataRoot, 'builder', 'tmp');
  }

  /** Removes what a berth that died mid-build left behind (snapshots still mounted there are unmounted first). */
  async init(): Promise<void> {
    if (fs.existsSync(this.tmpRoot)) await unmountAllUnder(this.tmpRoot);
    fs.rmSync(this.tmpRoot, { recursive: true, force: true });
    fs.mkdirSync(this.tmpRoot, { recursive: true, mode: 0o700 });
  }

  /** A fresh temporary directory for one build (context, downloads). */
  makeDir(kind: string): { dir: string; remove: () => Promise<void> } {
    const dir = path.join(this.tmpRoot, `${kind}-${crypto.randomBytes(8).toString('hex')}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return { dir, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) };
  }

  /** Extracts a tar (any of the four compressions) into a new context directory. */
  async fromTar(body: Readable): Promise<BuildContext> {
    const { dir, remove } = this.makeDir('ctx');
    try {
      const root = path.join(dir, 'root');
      fs.mkdirSync(root, { mode: 0o755 });
      const scope: Scope = { root, mounts: [], probe: hostProbe };
      const tarStream = await openTar(body);
      await extractTar(scope, '/', tarStream, { noOverwriteDirNonDir: false, readonlyRootfs: false }).catch((err: unknown) => {
        const msg = (err as Error).message.replace(/^Error processing tar file\(exit status 1\): /, '');
        throw invalidParameter(/Unexpected end of data|unexpected end/i.test(msg) ? 'unexpected EOF' : msg);
      });
      return this.open(root, remove);
    } catch (err) {
      await remove();
      throw err;
    }
  }

  /** A context from a directory already on disk (a git checkout, a downloaded Dockerfile). */
  open(root: string, remove: () => Promise<void>): BuildContext {
    return { dir: root, scope: { root, mounts: [], probe: hostProbe }, remove };
  }
}

/**
 * What the engine's daemon does with .dockerignore (its removeDockerfile): the Dockerfile and .dockerignore itself
 * are taken out of the context when the file's patterns match them, nothing else. Clients apply .dockerignore when
 * they make the context (the docker CLI, compose, docker-py, testcontainers); a tar that still holds excluded files
 * has them copied by the reference, and by berth.
 */
export function removeIgnoredDockerfile(ctx: BuildContext, dockerfile: string): void {
  const igFile = path.join(ctx.dir, '.dockerignore');
  if (!fs.existsSync(igFile) || !fs.lstatSync(igFile).isFile()) return;
  const lines = fs.readFileSync(igFile, 'utf8').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const ig = dockerignore({ ignorecase: false }).add(lines);
  for (const name of ['.dockerignore', cleanPath(dockerfile).replace(/^\/+/, '')]) {
    if (!name || name === '.' || !ig.ignores(name)) continue;
    const r = resolveInScope(ctx.scope, `/${name}`, { followFinal: false });
    fs.rmSync(r.hostPath, { force: true });
  }
}

/** Writes a readable into a file (downloads). */
export async function saveTo(input: Readable, file: string): Promise<void> {
  await pipeline(input, fs.createWriteStream(file, { mode: 0o600 }));
}

/** A context path as the engine resolves it: cleaned, symlinks followed inside the context, never outside. */
export function contextPath(ctx: BuildContext, userPath: string, followFinal = true): { hostPath: string; rel: string } {
  const clean = cleanPath(`/${userPath}`);
  const lexical = cleanPath(userPath);
  if (lexical === '..' || lexical.startsWith('../')) throw new BerthError('InvalidParameter', `forbidden path outside the build context: ${userPath} ()`);
  const r = resolveInScope(ctx.scope, clean, { followFinal });
  return { hostPath: r.hostPath, rel: r.containerPath.replace(/^\//, '') };
}
