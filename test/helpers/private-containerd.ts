// A private containerd for the integration tests, in a scratch folder, with CRI disabled. It must start: a
// missing containerd fails the run (CI never skips integration tests).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { containerdConfig, socketAlive } from '../../src/containerd/supervisor';

export interface PrivateContainerd {
  dir: string;
  address: string;
  pid: number;
}

// One per jest run (globalSetup and globalTeardown run in jest's parent process): two runs on one machine must not
// stop each other's containerd.
export const STATE_FILE = path.join(os.tmpdir(), `berth-test-containerd-${process.pid}.json`);

export async function startPrivateContainerd(): Promise<PrivateContainerd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-test-ctd-'));
  const paths = {
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    address: path.join(dir, 'containerd.sock'),
    config: path.join(dir, 'config.toml'),
    log: path.join(dir, 'containerd.log'),
    pidFile: path.join(dir, 'containerd.pid'),
  };
  fs.writeFileSync(paths.config, containerdConfig(paths));
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
