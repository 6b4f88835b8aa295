// Exec: extra processes in a running container (cookbook §8). Records are kept (like the engine) until the
// container is removed; finished processes are deleted from containerd.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import * as containerApi from '../containerd/containers';
import * as taskApi from '../containerd/tasks';
import { conflict, invalidParameter, notFound, restartingConflict, systemError } from '../errors';
import { ContainerIO, fifoPaths, OutputListener } from '../runtime/io';
import type { FifoMaker } from '../runtime/fifo';
import { ALL_CAPS } from '../translate/spec';
import { containerAttributes } from '../translate/response/events';
import type { ContainerService } from './containers';
import { SNAPSHOTTER } from './images';
import { layerDirs, readLayered, resolveUser } from './rootfs';
import type { EventPublisher } from '../types/event';
import type { ContainerRecord } from '../types/container';
import type { OciSpec } from '../types/config';
import type { ExecConfig, ExecState } from '../types/exec';

export interface ExecRecord extends ExecState {
  /** the container's State.StartedAt when the exec was made: an exec not started by the end of that run is forgotten */
  run?: string;
  io?: ContainerIO;
  done?: Promise<number>;
}

export class ExecService {
  private readonly execs = new Map<string, ExecRecord>();
  private readonly specs = new Map<string, { run: string; spec: OciSpec }>();

  constructor(
    private readonly ctr: Containerd,
    private readonly containers: ContainerService,
    private readonly events: EventPublisher,
    private readonly execRoot: string,
    private readonly fifos?: FifoMaker,
  ) {
    containers.onRemove((id) => {
      this.specs.delete(id);
      for (const [k, e] of this.execs) if (e.containerId === id) this.execs.delete(k);
    });
  }

  /** The container's exec instances that are created or running (the engine forgets finished ones there). */
  idsFor(containerId: string): string[] {
    return [...this.execs.values()].filter((e) => e.containerId === containerId && !(e.started && !e.running)).map((e) => e.id);
  }

  private publish(rec: ContainerRecord, action: string, extra: Record<string, string> = {}): void {
    this.events.publish('container', action, rec.Id, containerAttributes(rec, extra));
  }

  /** The container an exec runs in (exec inspect shows it before 1.21). */
  findContainer(ref: string): ContainerRecord {
    return this.containers.find(ref);
  }

  get(id: string): ExecRecord {
    const e = this.execs.get(id);
    // as the engine: an exec not started when its container stops is dropped with the run (inspect and start: 404)
    if (e && !e.started && e.run !== undefined) {
      let rec: ContainerRecord | undefined;
      try {
        rec = this.containers.find(e.containerId);
      } catch {
        rec = undefined;
      }
      if (!rec || !rec.State.Running || rec.State.StartedAt !== e.run) this.execs.delete(id);
    }
    if (!this.execs.has(id)) throw notFound(`No such exec instance: ${id}`);
    return e!;
  }

  create(containerRef: string, cfg: ExecConfig): string {
    const rec = this.containers.find(containerRef);
    // the reference's words: the id, but the paused container as the client named it (its getActiveContainer); a
    // restarting container (running to the engine, not to berth's record) is told apart
    if (rec.State.Restarting) throw restartingConflict(rec.Id);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    if (rec.State.Paused) throw conflict(`Container ${containerRef} is paused, unpause the container before exec`);
    if (!cfg.Cmd || cfg.Cmd.length === 0) throw invalidParameter('No exec command specified');
    const id = crypto.randomBytes(32).toString('hex');
    this.execs.set(id, { id, containerId: rec.Id, config: cfg, running: false, exitCode: null, pid: 0, started: false, run: rec.State.StartedAt });
    this.publish(rec, `exec_create: ${cfg.Cmd[0]} ${cfg.Cmd.slice(1).join(' ')}`, { execID: id });
    return id;
  }

  /**
   * The container's OCI spec, read once per run: what an exec takes from it (user, env, capabilities, cwd, security
   * settings) is fixed when the run starts (links' env is written just before); `update` changes resources only.
   */
  private async processSpecOf(rec: ContainerRecord): Promise<OciSpec> {
    const run = `${rec.Id}@${rec.State.StartedAt}`;
    const cached = this.specs.get(rec.Id);
    if (cached?.run === run) return cached.spec;
    const spec = await containerApi.spec(this.ctr, rec.Id);
    if (!spec) throw systemError('container has no spec');
    this.specs.set(rec.Id, { run, spec });
    return spec;
  }

  /** Starts the process; output goes to `listener` until it exits (then `done` resolves with the exit code). */
  async start(id: string, listener: OutputListener | undefined): Promise<ExecRecord> {
    const e = this.get(id);
    if (e.started) throw conflict(`Error: Exec command ${id} has already run`);
    const rec = this.containers.find(e.containerId);
    if (!rec.State.Running) throw conflict(`Container ${rec.Id} is not running`);
    if (rec.State.Paused) throw conflict(`Container ${rec.Id} is paused, unpause the container before exec`);
    e.started = true;
    const spec = await this.processSpecOf(rec);
    const cfg = e.config;
    let user = spec.process.user;
    if (cfg.User) {
      const mounts = await snapshotApi.mounts(this.ctr, SNAPSHOTTER, rec.Id);
      const dirs = layerDirs(mounts);
      const all = [dirs.upper, ...dirs.lower].filter(Boolean) as string[];
      try {
        user = resolveUser(cfg.User, readLayered(all, '/etc/passwd'), readLayered(all, '/etc/group'), rec.HostConfig.GroupAdd ?? []);
      } catch (err) {
        e.started = false;
        throw invalidParameter((err as Error).message);
      }
    }
    const caps = cfg.Privileged ? ALL_CAPS : spec.process.capabilities.bounding;
    const env = [...spec.process.env];
    // TERM=xterm is a default of a process with a TTY: the exec's own (the engine makes an exec's environment with its
    // TTY, not the container's), unless the container's Env sets TERM
    if (!(rec.Config.Env ?? []).some((e) => e.split('=')[0] === 'TERM')) {
      const at = env.indexOf('TERM=xterm');
      if (at >= 0 && !cfg.Tty) env.splice(at, 1);
      if (at < 0 && cfg.Tty) {
        const host = env.findIndex((e) => e.startsWith('HOSTNAME='));
        env.splice(host >= 0 ? host + 1 : Math.min(1, env.length), 0, 'TERM=xterm');
      }
    }
    const proc = {
      terminal: !!cfg.Tty,
      user,
      args: cfg.Cmd,
      env,
      cwd: spec.process.cwd || '/',
      capabilities: { bounding: caps, effective: caps, permitted: caps },
      noNewPrivileges: spec.process.noNewPrivileges,
      apparmorProfile: spec.process.apparmorProfile,
      oomScoreAdj: spec.process.oomScoreAdj,
    };
    // A detached exec without a TTY has no reader of its output (the engine discards it): the shim gets no FIFOs
    // (its stdio is /dev/null), which spares making and opening them.
    let io: ContainerIO | undefined;
    let paths = { stdin: '', stdout: '', stderr: '', terminal: false };
    if (listener || cfg.Tty) {
      const dir = path.join(this.execRoot, 'fifo', rec.Id);
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      paths = fifoPaths(dir, `exec-${id.slice(0, 16)}`, { tty: !!cfg.Tty, stdin: !!cfg.AttachStdin });
      io = new ContainerIO(paths, null);
      await io.openOutputs(this.fifos);
      if (listener) io.subscribe(listener);
      e.io = io;
    }
    try {
      await taskApi.exec(this.ctr, rec.Id, id, proc, paths);
      const waited = taskApi.wait(this.ctr, rec.Id, id);
      waited.catch(() => undefined); // if Start fails below, nobody awaits this one
      const pid = await taskApi.start(this.ctr, rec.Id, id);
      if (io) io.stdinReady = true;
      e.pid = pid;
      e.running = true;
      this.publish(rec, `exec_start: ${cfg.Cmd[0]} ${cfg.Cmd.slice(1).join(' ')}`, { execID: id });
      e.done = (async () => {
        const w = await waited.catch(() => ({ exitStatus: 126 }));
        if (io) await Promise.race([io.done, new Promise((r) => setTimeout(r, 2000))]);
        e.running = false;
        e.exitCode = w.exitStatus;
        io?.close();
        io?.removeFifos();
        await taskApi.removeProcess(this.ctr, rec.Id, id).catch(() => undefined);
        this.publish(rec, 'exec_die', { execID: id, exitCode: String(w.exitStatus) });
        return w.exitStatus;
      })();
    } catch (err) {
      io?.close();
      io?.removeFifos();
      e.running = false;
      e.exitCode = 126;
      await taskApi.removeProcess(this.ctr, rec.Id, id).catch(() => undefined);
      // runc's refusal (a missing or non-executable binary, a bad cwd) is the request's fault: 400, as the reference
      // answers a detached start; containerd's message already starts with "OCI runtime exec failed".
      const msg = (err as Error).message;
      throw invalidParameter(/^OCI runtime exec failed/.test(msg) ? msg : `OCI runtime exec failed: ${msg}`);
    }
    return e;
  }

  /**
   * A healthcheck probe: an exec with its own events (as the engine sends them), output captured and truncated,
   * killed at the timeout (exit -1). Its record is dropped afterwards, so it never shows in ExecIDs.
   */
  async runProbe(containerId: string, cmd: string[], timeoutMs: number): Promise<{ exitCode: number; output: string }> {
    const id = this.create(containerId, { Cmd: cmd, AttachStdout: true, AttachStderr: true });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      const e = await this.start(id, (_s, chunk) => {
        if (size < 8192) chunks.push(chunk);
        size += chunk.length;
      });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const code = await Promise.race([e.done!, timedOut]);
      clearTimeout(timer);
      if (code === 'timeout') {
        await taskApi.kill(this.ctr, e.containerId, 9, { execId: id }).catch(() => undefined);
        return { exitCode: -1, output: `Health check exceeded timeout (${timeoutMs / 1000}s)` };
      }
      return { exitCode: code, output: Buffer.concat(chunks).toString('utf8') };
    } finally {
      this.execs.delete(id);
    }
  }

  async closeStdin(e: ExecRecord): Promise<void> {
    await e.io?.closeStdinWriter();
    await taskApi.closeStdin(this.ctr, e.containerId, e.id).catch(() => undefined);
  }

  async resize(id: string, h: number, w: number): Promise<void> {
    const e = this.get(id);
    if (!e.running) throw conflict(`Exec ${id} is not running`);
    await taskApi.resizePty(this.ctr, e.containerId, w, h, id);
  }

  detached(e: ExecRecord): void {
    const rec = this.containers.find(e.containerId);
    this.publish(rec, 'exec_detach', { execID: e.id });
  }
}

