// Healthchecks (API 1.24): the probe a container's Healthcheck describes, run as an exec every Interval while
// the container runs, with the engine's state machine — starting until the first success, healthy after a
// success, unhealthy after Retries consecutive failures (failures inside StartPeriod do not count), the last 5
// results kept, `health_status: …` events on changes. The state machine is pure; the monitor is driven by the
// container lifecycle events.
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import type { ContainerStore } from '../store/containers';
import type { ContainerRecord, HealthResult, HealthState } from '../types/container';
import type { HealthConfig } from '../types/config';

export interface Probe {
  cmd: string[];
  intervalMs: number;
  timeoutMs: number;
  retries: number;
  startPeriodMs: number;
}

const MAX_LOG = 5;
export const MAX_OUTPUT = 4096;
const NS = 1_000_000;

/** The probe of a (merged) Healthcheck; undefined when there is none or it is NONE. */
export function probeOf(hc: HealthConfig | null | undefined): Probe | undefined {
  const t = hc?.Test ?? [];
  if (t.length === 0 || t[0] === 'NONE') return undefined;
  let cmd: string[];
  if (t[0] === 'CMD') cmd = t.slice(1);
  else if (t[0] === 'CMD-SHELL') cmd = ['/bin/sh', '-c', t.slice(1).join(' ')];
  else cmd = ['/bin/sh', '-c', t.join(' ')]; // a bare string list is the shell form, as the engine reads it
  if (cmd.length === 0) return undefined;
  return {
    cmd,
    intervalMs: hc?.Interval ? hc.Interval / NS : 30_000,
    timeoutMs: hc?.Timeout ? hc.Timeout / NS : 30_000,
    retries: hc?.Retries || 3,
    startPeriodMs: (hc as { StartPeriod?: number } | undefined)?.StartPeriod ? (hc as { StartPeriod: number }).StartPeriod / NS : 0,
  };
}

export function initialHealth(prev?: HealthState): HealthState {
  return { Status: 'starting', FailingStreak: 0, Log: prev?.Log ?? [] };
}

/** The engine's handling of one probe result. */
export function applyResult(h: HealthState, r: HealthResult, retries: number, inStartPeriod: boolean): HealthState {
  const Log = [...h.Log, r].slice(-MAX_LOG);
  if (r.ExitCode === 0) return { Status: 'healthy', FailingStreak: 0, Log };
  if (inStartPeriod && h.Status !== 'healthy') return { ...h, Log };
  const FailingStreak = h.FailingStreak + 1;
  return { Status: FailingStreak >= retries ? 'unhealthy' : h.Status, FailingStreak, Log };
}

export interface HealthDeps {
  store: ContainerStore;
  events: EventBus;
  logger: Logger;
  /** Runs the probe command in the container: exit code and (combined, truncated) output; -1 on timeout. */
  run: (containerId: string, cmd: string[], timeoutMs: number) => Promise<{ exitCode: number; output: string }>;
  publish: (rec: ContainerRecord, action: string) => void;
  /** The merged Healthcheck of a container (its own over its image's). */
  healthcheckOf: (rec: ContainerRecord) => HealthConfig | null | undefined;
}

const nano = () => new Date().toISOString().replace(/\.(\d{3})Z$/, (_m, ms) => `.${ms}000000Z`);

export class HealthMonitor {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;

  constructor(private readonly d: HealthDeps) {
    const sub = d.events.subscribe((e) => e.Type === 'container' && (e.Action === 'start' || e.Action === 'die' || e.Action === 'destroy'));
    sub.onEvent((e) => {
      if (e.Action === 'start') this.start(e.Actor.ID, true);
      else this.stop(e.Actor.ID);
    });
    this.unsubscribe = () => sub.close();
  }

  /** Monitors the running containers that have a probe (berth start). */
  resume(): void {
    for (const rec of this.d.store.all()) if (rec.State.Running) this.start(rec.Id, false);
  }

  private start(id: string, fresh: boolean): void {
    const rec = this.d.store.get(id);
    if (!rec) return;
    const probe = probeOf(this.d.healthcheckOf(rec));
    if (!probe) return;
    this.stop(id);
    if (fresh || !rec.State.Health) {
      rec.State.Health = initialHealth(rec.State.Health);
      void this.d.store.save(rec).catch(() => undefined);
    }
    const startedAt = Date.parse(rec.State.StartedAt) || Date.now();
    const tick = () => {
      this.timers.set(
        id,
        setTimeout(async () => {
          await this.check(id, probe, startedAt);
          if (this.timers.has(id)) tick();
        }, probe.intervalMs),
      );
    };
    tick();
  }

  stop(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  private async check(id: string, probe: Probe, startedAt: number): Promise<void> {
    const rec = this.d.store.get(id);
    if (!rec || !rec.State.Running || rec.State.Paused) return;
    const Start = nano();
    let exitCode: number;
    let output: string;
    try {
      ({ exitCode, output } = await this.d.run(id, probe.cmd, probe.timeoutMs));
    } catch (err) {
      exitCode = -1;
      output = (err as Error).message;
    }
    if (!this.timers.has(id)) return; // stopped meanwhile: the result belongs to a finished run
    const prev = rec.State.Health ?? initialHealth();
    const next = applyResult(prev, { Start, End: nano(), ExitCode: exitCode, Output: output.slice(0, MAX_OUTPUT) }, probe.retries, Date.now() - startedAt < probe.startPeriodMs);
    rec.State.Health = next;
    await this.d.store.save(rec).catch((err) => this.d.logger.warn('cannot save health state', { id, err: String(err) }));
    if (next.Status !== prev.Status) this.d.publish(rec, `health_status: ${next.Status}`);
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.unsubscribe();
  }
}
