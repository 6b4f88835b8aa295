// A private containerd for the integration tests, in a scratch folder, with CRI disabled. It must start: a
// missing containerd fails the run (CI never skips integration tests).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdConfig, socketAlive } from '../../src/containerd/supervisor';
import { listShims } from '../../src/containerd/orphan-shims';
import { childrenOf, pidsWithArg } from '../../src/containerd/procfs';
import { unmountAllUnder } from '../../src/fs/mounts';

export interface PrivateContainerd {
  dir: string;
  address: string;
  pid: number;
}

// One per jest run (globalSetup and globalTeardown run in jest's parent process): two runs on one machine must not
// stop each other's containerd.
export const STATE_FILE = path.join(os.tmpdir(), `berth-test-containerd-${process.pid}.json`);

const OWNER = 'owner';
const PREFIX = 'berth-test-ctd-';

/** Whether process `pid` lives. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * What a jest run that was killed (no globalTeardown) left: its private containerd, the shims and containers under
 * it, their mounts and the folder. A folder is another run's while the jest process named in it lives; one from
 * before owners were written is taken when it is a day old.
 */
export async function reapOrphans(): Promise<string[]> {
  const reaped: string[] = [];
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp).filter((n) => n.startsWith(PREFIX))) {
    const dir = path.join(tmp, name);
    try {
      const owner = Number(fs.readFileSync(path.join(dir, OWNER), 'utf8'));
      if (alive(owner)) continue;
    } catch {
      if (Date.now() - fs.statSync(dir).mtimeMs < 24 * 3600_000) continue;
    }
    const address = path.join(dir, 'containerd.sock');
    for (const pid of await pidsWithArg(path.join(dir, 'config.toml'))) process.kill(pid, 'SIGKILL');
    for (const shim of await listShims()) {
      if (shim.address !== address) continue;
      // its containers first (each one's init is the shim's child: killing it ends its pid namespace), then the shim
      for (const child of await childrenOf(shim.pid)) process.kill(child, 'SIGKILL');
      process.kill(shim.pid, 'SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 200)); // (their mounts are let go as they die)
    await unmountAllUnder(dir).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    reaped.push(dir);
  }
  for (const f of fs.readdirSync(tmp).filter((n) => /^berth-test-containerd-\d+\.json$/.test(n))) {
    if (!alive(Number(f.slice('berth-test-containerd-'.length, -'.json'.length)))) fs.rmSync(path.join(tmp, f), { force: true });
  }
  return reaped;
}

export async function startPrivateContainerd(): Promise<PrivateContainerd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), PREFIX));
  const paths = {
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    address: path.join(dir, 'containerd.sock'),
    config: path.join(dir, 'config.toml'),
    log: path.join(dir, 'containerd.log'),
    pidFile: path.join(dir, 'containerd.pid'),
  };
  fs.writeFileSync(paths.config, containerdConfig(paths));
  fs.writeFileSync(path.join(dir, OWNER), String(process.pid)); // (reapOrphans: whose it is)
  const out = fs.openSync(paths.log, 'a');
  const child = spawn('containerd', ['--config', paths.config], { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const spawnError = new Promise<never>((_, reject) => child.on('error', (e) => reject(new Error(`cannot start containerd: ${e.message} (is the Debian package installed?)`))));
  child.unref();
  const deadline = Date.now() + 20_000;
  const ready = (async () => {
    while (Date.now() < deadline) {
      if (await socketAlive(paths.address)) return;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const log = fs.existsSync(paths.log) ? fs.readFileSync(paths.log, 'utf8').slice(-2000) : '';
    throw new Error(`private containerd did not start (exit ${child.exitCode}):\n${log}`);
  })();
  await Promise.race([ready, spawnError]);
  return { dir, address: paths.address, pid: child.pid! };
}
