// berth's own containerd, for machines where none is given: a private instance under berth's data root, started
// detached so that it (and the containers it runs) outlives a berth restart, and restarted if it dies.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Logger } from '../log';

export interface OwnContainerdPaths {
  root: string;
  state: string;
  address: string;
  config: string;
  log: string;
  pidFile: string;
}

export function ownContainerdPaths(dataRoot: string, execRoot: string): OwnContainerdPaths {
  const d = path.join(dataRoot, 'containerd');
  const s = path.join(execRoot, 'containerd');
  return {
    root: path.join(d, 'root'),
    state: path.join(s, 'state'),
    address: path.join(s, 'containerd.sock'),
    config: path.join(d, 'config.toml'),
    log: path.join(d, 'containerd.log'),
    pidFile: path.join(s, 'containerd.pid'),
  };
}

export function containerdConfig(p: OwnContainerdPaths): string {
  return [
    'version = 2',
    `root = ${JSON.stringify(p.root)}`,
    `state = ${JSON.stringify(p.state)}`,
    // CRI is not berth's business; a kubelet that shares containerd brings its own configuration.
    'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
    '[grpc]',
    `  address = ${JSON.stringify(p.address)}`,
    '[ttrpc]',
    `  address = ${JSON.stringify(p.address + '.ttrpc')}`,
    '[debug]',
    '  address = ""',
    '[metrics]',
    '  address = ""',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${JSON.stringify(path.join(path.dirname(p.root), 'opt'))}`,
    '',
  ].join('\n');
}

/** Whether something accepts connections on the unix socket. */
export function socketAlive(address: string, timeoutMs = 500): Promise<boolean> {
  const p = address.replace(/^unix:\/\//, '');
  return new Promise((resolve) => {
    const s = net.connect(p);
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(t);
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

export class ContainerdSupervisor {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    readonly paths: OwnContainerdPaths,
    private readonly logger: Logger,
    private readonly binary = 'containerd',
  ) {}

  /** Starts containerd unless ours is already running (a previous berth started it); resolves when it listens. */
  async ensure(): Promise<string> {
    if (!(await socketAlive(this.paths.address))) this.spawn();
    await this.waitListening(15_000);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), 2000);
      this.timer.unref();
    }
    return this.paths.address;
  }

  private spawn(): void {
    const p = this.paths;
    for (const d of [p.root, p.state, path.dirname(p.config), path.dirname(p.address)]) fs.mkdirSync(d, { recursive: true, mode: 0o711 });
    fs.writeFileSync(p.config, containerdConfig(p));
    try {
      fs.unlinkSync(p.address);
    } catch {
      /* none */
    }
    const out = fs.openSync(p.log, 'a');
    const child = spawn(this.binary, ['--config', p.config], { detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    child.on('error', (err) => this.logger.error('cannot start containerd', { err: String(err) }));
    if (child.pid) fs.writeFileSync(p.pidFile, String(child.pid));
    child.unref();
    this.logger.info('started containerd', { pid: child.pid, address: p.address });
  }

  private async waitListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await socketAlive(this.paths.address)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`containerd did not start listening on ${this.paths.address} (see ${this.paths.log})`);
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    if (await socketAlive(this.paths.address, 1000)) return;
    this.logger.warn('containerd is gone; restarting it');
    try {
      this.spawn();
      await this.waitListening(15_000);
    } catch (err) {
      this.logger.error('containerd restart failed', { err: String(err) });
    }
  }

  /** Stops supervising (containerd itself keeps running, with the containers). */
  close(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }
}
