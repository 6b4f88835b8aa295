// The build context on disk: the request body (a tar, plain or gzip/bzip2/xz, sniffed by its first bytes) is
// streamed decompressed into one file under <data-root>/builder/tmp and its headers indexed as it goes (no
// extraction: a file per entry costs more than the whole upload), never held in memory; or a remote context (a tarball or a plain Dockerfile
// by URL, a git repository cloned with git). Sources are looked up inside the context only: paths are cleaned
// and every symlink resolved in the context's scope (fs/resolve), so `../x` and a link pointing out are refused.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import dockerignore from '@balena/dockerignore';
import { invalidParameter } from '../errors';
import { openTar } from '../fs/decompress';
import { cleanPath, resolveInScope, Scope } from '../fs/resolve';
import { buildTmpRoot } from './leftovers';
import { hostFs, hostScope, SourceFs, TarContextFs } from './source-fs';
import { TarError, TarScanner } from './tar-scan';

export interface BuildContext {
  /** Where its files are read: the uploaded tar (indexed) or a host directory. */
  fs: SourceFs;
  scope: Scope;
  /** Takes an entry out of the context (a clean, resolved path in its scope). */
  removeEntry: (hostPath: string) => void;
  remove: () => Promise<void>;
}

export class ContextStore {
  readonly tmpRoot: string;

  /** (emptied at start by builder/leftovers.ts) */
  constructor(dataRoot: string) {
    this.tmpRoot = buildTmpRoot(dataRoot);
  }

  /** A fresh temporary directory for one build (context, downloads). */
  makeDir(kind: string): { dir: string; remove: () => Promise<void> } {
    const dir = path.join(this.tmpRoot, `${kind}-${crypto.randomBytes(8).toString('hex')}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return { dir, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) };
  }

  /**
   * Keeps a tar (any of the four compressions, stored decompressed) as the build's context: written to one file
   * as it arrives while its headers are indexed, nothing extracted. The engine's unpack rules apply to the index
   * (no entry lands outside the context).
   */
  async fromTar(body: Readable): Promise<BuildContext> {
    const { dir, remove } = this.makeDir('ctx');
    const index = new TarContextFs(path.join(dir, 'context.tar'));
    const removeAll = async () => {
      index.close();
      await remove();
    };
    try {
      const tarStream = await openTar(body);
      const scanner = new TarScanner();
      const sink = index.sink();
      const out = fs.createWriteStream(index.file, { flags: 'wx', mode: 0o600, highWaterMark: 8 << 20 });
      const failed = new Promise<never>((_, reject) => out.once('error', reject));
      failed.catch(() => undefined);
      try {
        for await (const chunk of tarStream as AsyncIterable<Buffer>) {
          scanner.push(chunk, sink);
          if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
        }
        scanner.end();
        await Promise.race([new Promise<void>((resolve) => out.end(resolve)), failed]);
      } catch (err) {
        out.destroy();
        // The rest of the body is read and dropped, so the answer reaches the client.
        if (!body.destroyed) {
          body.unpipe();
          body.resume();
        }
        throw err instanceof TarError ? invalidParameter(err.message) : err;
      }
      return { fs: index, scope: index.scope, removeEntry: (p) => index.remove(p), remove: removeAll };
    } catch (err) {
      await removeAll();
      throw err;
    }
  }

  /** A context from a directory already on disk (a git checkout, a downloaded Dockerfile). */
  open(root: string, remove: () => Promise<void>): BuildContext {
    return { fs: hostFs, scope: hostScope(root), removeEntry: (p) => fs.rmSync(p, { force: true }), remove };
  }
}

/**
 * What the engine's daemon does with .dockerignore (its removeDockerfile): the Dockerfile and .dockerignore itself
 * are taken out of the context when the file's patterns match them, nothing else. Clients apply .dockerignore when
 * they make the context (the docker CLI, compose, docker-py, testcontainers); a tar that still holds excluded files
 * has them copied by the reference, and by berth.
 */
export function removeIgnoredDockerfile(ctx: BuildContext, dockerfile: string): void {
  const ig0 = ctx.fs.lstat(resolveInScope(ctx.scope, '/.dockerignore', { followFinal: false }).hostPath);
  if (!ig0?.isFile()) return;
  const text = ctx.fs.readFile(resolveInScope(ctx.scope, '/.dockerignore', { followFinal: false }).hostPath);
  if (!text) return;
  const lines = text.toString('utf8').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const ig = dockerignore({ ignorecase: false }).add(lines);
  for (const name of ['.dockerignore', cleanPath(dockerfile).replace(/^\/+/, '')]) {
    if (!name || name === '.' || !ig.ignores(name)) continue;
    ctx.removeEntry(resolveInScope(ctx.scope, `/${name}`, { followFinal: false }).hostPath);
  }
}

/** Writes a readable into a file (downloads). */
export async function saveTo(input: Readable, file: string): Promise<void> {
  await pipeline(input, fs.createWriteStream(file, { mode: 0o600 }));
}
