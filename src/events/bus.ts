// One event bus: a ring buffer for since/until replay and bounded per-subscriber queues, so a slow reader never
// stalls berth or the other readers (a subscriber whose queue overflows is dropped).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nowNanos } from '../runtime/clock';
import type { EngineEvent, EventPublisher, EventType } from '../types/event';

export interface Subscription {
  /** Events that were in the ring at subscription time and match the filter (for `since`). */
  backlog: EngineEvent[];
  /** Register the live listener; returns nothing. Called at most once. */
  onEvent(fn: (e: EngineEvent) => void): void;
  /** Called when the subscriber is dropped for being too slow. */
  onOverflow(fn: () => void): void;
  close(): void;
}

export interface BusOptions {
  ringSize?: number;
  queueLimit?: number;
}

interface Sub {
  filter: (e: EngineEvent) => boolean;
  fn?: (e: EngineEvent) => void;
  overflow?: () => void;
  pending: number;
}

export class EventBus implements EventPublisher {
  private readonly ring: EngineEvent[] = [];
  private readonly ringSize: number;
  readonly queueLimit: number;
  private readonly subs = new Set<Sub>();

  constructor(opts: BusOptions = {}) {
    this.ringSize = opts.ringSize ?? 1024;
    this.queueLimit = opts.queueLimit ?? 4096;
  }

  get listeners(): number {
    return this.subs.size;
  }

  publish(type: EventType, action: string, id: string, attributes: Record<string, string> = {}, at?: { seconds: number; nanos: number }): void {
    let time: number;
    let timeNano: number;
    if (at) {
      time = at.seconds;
      timeNano = at.seconds * 1e9 + at.nanos;
    } else {
      const ns = nowNanos();
      time = Number(ns / 1_000_000_000n);
      timeNano = Number(ns);
    }
    this.emit({ Type: type, Action: action, Actor: { ID: id, Attributes: { ...attributes } }, time, timeNano });
  }

  emit(e: EngineEvent): void {
    this.ring.push(e);
    if (this.ring.length > this.ringSize) this.ring.shift();
    if (this.journal) this.journal.pending.push(JSON.stringify(e));
    for (const s of this.subs) {
      if (!s.fn || !s.filter(e)) continue;
      s.fn(e);
    }
  }

  /** Events currently held (oldest first). */
  history(): EngineEvent[] {
    return [...this.ring];
  }

  subscribe(filter: (e: EngineEvent) => boolean = () => true): Subscription {
    const sub: Sub = { filter, pending: 0 };
    this.subs.add(sub);
    const backlog = this.ring.filter(filter);
    return {
      backlog,
      onEvent: (fn) => {
        sub.fn = fn;
      },
      onOverflow: (fn) => {
        sub.overflow = fn;
      },
      close: () => {
        this.subs.delete(sub);
      },
    };
  }

  // ---- persistence: the ring survives a restart for `since` replay ----------------------------------------

  private journal?: { file: string; pending: string[]; lines: number; timer?: NodeJS.Timeout };

  /**
   * Keeps the ring in a JSON-lines journal: loads it now, appends new events in batches (off the publish path,
   * every 100 ms), and rewrites it from the ring when it has grown to twice the ring's size.
   */
  persistTo(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    let lines: string[] = [];
    try {
      lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      /* first start */
    }
    const loaded: EngineEvent[] = [];
    for (const l of lines.slice(-this.ringSize)) {
      try {
        loaded.push(JSON.parse(l) as EngineEvent);
      } catch {
        /* a line cut by a crash */
      }
    }
    this.ring.unshift(...loaded);
    while (this.ring.length > this.ringSize) this.ring.shift();
    this.journal = { file, pending: [], lines: lines.length };
    this.journal.timer = setInterval(() => this.flush(), 100);
    this.journal.timer.unref();
  }

  /** Writes what is pending (synchronously: also called at shutdown). */
  flush(): void {
    const j = this.journal;
    if (!j || j.pending.length === 0) return;
    const batch = j.pending.splice(0);
    try {
      if (j.lines + batch.length > this.ringSize * 2) {
        const tmp = `${j.file}.tmp`;
        fs.writeFileSync(tmp, this.ring.map((e) => JSON.stringify(e)).join('\n') + '\n');
        fs.renameSync(tmp, j.file);
        j.lines = this.ring.length;
      } else {
        fs.appendFileSync(j.file, batch.join('\n') + '\n');
        j.lines += batch.length;
      }
    } catch {
      /* the journal is best effort: events still stream live */
    }
  }

  close(): void {
    this.flush();
    if (this.journal?.timer) clearInterval(this.journal.timer);
  }
}
