// remote= contexts: a git repository (cloned with git, `#ref:subdir`), a URL to a tarball (any of the four
// compressions) or to a plain Dockerfile (the context is that file alone, named as `dockerfile=` says).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { invalidParameter } from '../errors';
import { BuildContext, ContextStore, saveTo } from './context';

const execFileP = promisify(execFile);

/** The engine's test of a git remote: git://, git@, github.com/, or a URL ending in .git (before any #fragment). */
export function isGitURL(remote: string): boolean {
  return /^git:\/\//.test(remote) || /^git@/.test(remote) || /^github\.com\//.test(remote) || (/^https?:\/\//.test(remote) && /\.git(#.*)?$/.test(remote));
}

export async function fetchRemote(store: ContextStore, remote: string, dockerfile: string, signal: AbortSignal): Promise<BuildContext> {
  if (isGitURL(remote)) return cloneGit(store, remote, signal);
  if (!/^https?:\/\//.test(remote)) throw invalidParameter(`unable to prepare context: unable to parse URL "${remote}"`);
  let res: Response;
  try {
    res = await fetch(remote, { signal, redirect: 'follow' });
  } catch (err) {
    throw invalidParameter(`unable to prepare context: Get "${remote}": ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
  }
  if (!res.ok || !res.body) throw invalidParameter(`unable to prepare context: failed to GET ${remote} with status ${res.status} ${res.statusText}: `);
  const { dir, remove } = store.makeDir('remote');
  try {
    const file = path.join(dir, 'download');
    await saveTo(Readable.fromWeb(res.body as never), file);
    const head = Buffer.alloc(512);
    const fd = fs.openSync(file, 'r');
    const n = fs.readSync(fd, head, 0, 512, 0);
    fs.closeSync(fd);
    const compressed = (head[0] === 0x1f && head[1] === 0x8b) || head.subarray(0, 3).toString() === 'BZh' || head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]));
    const isTar = compressed || (n >= 262 && head.subarray(257, 262).toString() === 'ustar');
    if (isTar) {
      const ctx = await store.fromTar(fs.createReadStream(file));
      await remove();
      return ctx;
    }
    // A plain Dockerfile: the context is that one file.
    const root = path.join(dir, 'root');
    fs.mkdirSync(root, { mode: 0o755 });
    fs.renameSync(file, path.join(root, path.basename(dockerfile || 'Dockerfile')));
    return store.open(root, remove);
  } catch (err) {
    await remove();
    throw err;
  }
}

async function cloneGit(store: ContextStore, remote: string, signal: AbortSignal): Promise<BuildContext> {
  const hash = remote.indexOf('#');
  const url = hash < 0 ? remote : remote.slice(0, hash);
  const [ref, subdir] = (hash < 0 ? '' : remote.slice(hash + 1)).split(':');
  const { dir, remove } = store.makeDir('git');
  const root = path.join(dir, 'root');
  try {
    const git = (args: string[], cwd?: string) => execFileP('git', args, { cwd, signal, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    try {
      await git(['init', '-q', root]);
      await git(['remote', 'add', 'origin', url.replace(/^github\.com\//, 'https://github.com/')], root);
      // A shallow fetch where the server allows it (the dumb HTTP protocol does not).
      await git(['fetch', '-q', '--depth', '1', 'origin', ref || 'HEAD'], root).catch(() => git(['fetch', '-q', 'origin', ref || 'HEAD'], root));
      await git(['checkout', '-q', 'FETCH_HEAD'], root);
      await git(['submodule', 'update', '--init', '--recursive', '--depth=1', '-q'], root).catch(() => undefined);
    } catch (err) {
      const msg = ((err as { stderr?: string }).stderr || (err as Error).message).trim();
      throw invalidParameter(`unable to prepare context: unable to 'git clone' to temporary context directory: error fetching: ${msg}`);
    }
    fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
    const ctxRoot = subdir ? path.join(root, subdir) : root;
    if (!path.resolve(ctxRoot).startsWith(path.resolve(root)) || !fs.existsSync(ctxRoot)) throw invalidParameter(`unable to prepare context: error setting git context, not a directory: ${subdir}`);
    return store.open(ctxRoot, remove);
  } catch (err) {
    await remove();
    throw err;
  }
}
