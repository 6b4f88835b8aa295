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

/** Whether something accepts connections at `where` (a unix socket's path, or host and port) within `timeoutMs`. */
export function connectable(where: net.NetConnectOpts, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(where);
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

/** Whether something accepts connections on the unix socket. */
export function socketAlive(address: string, timeoutMs = 500): Promise<boolean> {
  return connectable({ path: address.replace(/^unix:\/\//, '') }, timeoutMs);
}

/**
 * Starts `binary` detached (it outlives berth), its output appended to `log`, its pid written to `pidFile`.
 */
export function spawnDetached(binary: string, args: string[], files: { log: string; pidFile: string }, logger: Logger, what: string, facts: Record<string, unknown>): void {
  const out = fs.openSync(files.log, 'a');
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.on('error', (err) => logger.error(`cannot start ${what}`, { err: String(err) }));
  if (child.pid) fs.writeFileSync(files.pidFile, String(child.pid));
  child.unref();
  logger.info(`started ${what}`, { pid: child.pid, ...facts });
}

/** A daemon that a DetachedKeeper keeps running. */
export interface KeptDaemon {
  /** For messages: "containerd", "etcd". */
  name: string;
  /** Where it listens, and its log (for messages). */
  address: string;
  log: string;
  /** Whether it runs (when not, the keeper starts it). */
  running(): Promise<boolean>;
  /** Whether it serves. */
  listening(): Promise<boolean>;
  /** Whether it is known to have exited (waiting for it to listen stops at once then). */
  exited?(): boolean;
  spawn(): void;
}

/**
 * Keeps a detached daemon running (berth's containerd, a manager's etcd member): ensure() starts it unless it runs
 * and resolves when it listens; then it is checked every 2 s and started again if it died, until close().
 */
export class DetachedKeeper {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly d: KeptDaemon,
    private readonly logger: Logger,
  ) {}

  async ensure(timeoutMs = 15_000): Promise<void> {
    if (!(await this.d.running())) this.d.spawn();
    await this.waitListening(timeoutMs);
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.check(), 2000);
      this.timer.unref();
    }
  }

  private async waitListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.d.listening()) return;
      if (this.d.exited?.()) throw new Error(`${this.d.name} exited (see ${this.d.log})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${this.d.name} did not start listening on ${this.d.address} (see ${this.d.log})`);
  }

  private async check(): Promise<void> {
    if (this.stopped || (await this.d.running())) return;
    if (this.stopped) return; // closed while it was being checked
    this.logger.warn(`${this.d.name} is gone; restarting it`);
    try {
      this.d.spawn();
      await this.waitListening(15_000);
    } catch (err) {
      this.logger.error(`${this.d.name} restart failed`, { err: String(err) });
    }
  }

  /** Stops keeping it running (the daemon itself goes on). */
  close(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }
}

export class ContainerdSupervisor {
  private readonly keeper: DetachedKeeper;

  constructor(
    readonly paths: OwnContainerdPaths,
    private readonly logger: Logger,
    private readonly binary = 'containerd',
  ) {
    this.keeper = new DetachedKeeper(
      {
        name: 'containerd',
        address: paths.address,
        log: paths.log,
        running: () => socketAlive(paths.address, 1000),
        listening: () => socketAlive(paths.address),
        spawn: () => this.spawn(),
      },
      logger,
    );
  }

  /** Starts containerd unless ours is already running (a previous berth started it); resolves when it listens. */
  async ensure(): Promise<string> {
    await this.keeper.ensure(15_000);
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
    spawnDetached(this.binary, ['--config', p.config], p, this.logger, 'containerd', { address: p.address });
  }

  /** Stops supervising (containerd itself keeps running, with the containers). */
  close(): void {
    this.keeper.close();
  }
}
