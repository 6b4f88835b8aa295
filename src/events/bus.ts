// One event bus: a ring buffer for since/until replay and bounded per-subscriber queues, so a slow reader never
// stalls berth or the other readers (a subscriber whose queue overflows is dropped).
//
// An event published while a request is being handled reaches subscribers after that request's answer: `holdOf`
// names the request's hold (src/http/answer.ts), and a subscriber's events wait in its queue, in publish order, behind
// the first one still held. The docker CLI's `run --rm` at API 1.24 removes the container itself and exits on its
// destroy event: a destroy that overtook the DELETE's answer made it cancel its own DELETE ('context canceled'). The
// engine's events reach subscribers through a goroutine, after the answer. Events published outside a request (a
// container's exit, an OOM, a health check) go out during the publish when nothing is held before them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nowNanos } from '../runtime/clock';
import type { EngineEvent, EventHold, EventPublisher, EventType } from '../types/event';

export interface Subscription {
  /** Events that were in the ring at subscription time and match the filter (for `since`; none when not asked). */
  backlog: EngineEvent[];
  /** Register the live listener; returns nothing. Called at most once. */
  onEvent(fn: (e: EngineEvent) => void): void;
  /** Called when the subscriber is dropped for being too slow. */
  onOverflow(fn: () => void): void;
  close(): void;
}

export interface BusOptions {
  ringSize?: number;
  /** Events a subscriber may have waiting behind a hold before it is dropped as overflowed. */
  queueLimit?: number;
  /** The hold of the request being handled where publish is called, if any (src/http/answer.ts). */
  holdOf?: () => EventHold | undefined;
}

interface Sub {
  filter: (e: EngineEvent) => boolean;
  fn?: (e: EngineEvent) => void;
  overflow?: () => void;
  /** Its events behind a hold, in publish order (undefined when none wait: the next one goes out at once). */
  queue?: { e: EngineEvent; hold?: EventHold }[];
}

export class EventBus implements EventPublisher {
  private readonly ring: EngineEvent[] = [];
  private readonly ringSize: number;
  readonly queueLimit: number;
  private readonly subs = new Set<Sub>();
  private readonly holdOf?: () => EventHold | undefined;
  /** Holds whose release drains the queues. */
  private readonly watched = new WeakSet<EventHold>();

  constructor(opts: BusOptions = {}) {
    this.ringSize = opts.ringSize ?? 1024;
    this.queueLimit = opts.queueLimit ?? 4096;
    this.holdOf = opts.holdOf;
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
    const h = this.holdOf?.();
    const hold = h && !h.released ? h : undefined;
    let held = false;
    // Subscribers asking with the same filters share its function (handlers/events.ts): it runs once per event.
    const matched = new Map<(e: EngineEvent) => boolean, boolean>();
    for (const s of this.subs) {
      if (!s.fn) continue;
      let ok = matched.get(s.filter);
      if (ok === undefined) matched.set(s.filter, (ok = s.filter(e)));
      if (!ok) continue;
      // Nothing waiting and nothing holding: during the publish (the die path's latency).
      if (!s.queue && !hold) {
        s.fn(e);
        continue;
      }
      // Behind what waits (an event outside any request published after a held one waits too: publish order).
      (s.queue ??= []).push({ e, hold });
      held ||= hold !== undefined;
      if (s.queue.length > this.queueLimit) {
        this.subs.delete(s);
        s.overflow?.();
      }
    }
    if (held && hold) {
      hold.queued?.();
      if (!this.watched.has(hold)) {
        this.watched.add(hold);
        hold.onRelease(() => this.drainAll());
      }
    }
  }

  /** EventPublisher.sendHeld: what the request being handled has held so far goes out now. */
  sendHeld(): void {
    const h = this.holdOf?.();
    if (h && !h.released) h.sendNow?.();
  }

  private drainAll(): void {
    for (const s of this.subs) if (s.queue) this.drain(s);
  }

  /** Delivers a subscriber's waiting events up to the first one still held. */
  private drain(s: Sub): void {
    const q = s.queue!;
    let i = 0;
    while (i < q.length && this.subs.has(s)) {
      const { e, hold } = q[i];
      if (hold && !hold.released) break;
      i++;
      s.fn!(e);
    }
    q.splice(0, i);
    if (q.length === 0 && s.queue === q) s.queue = undefined;
  }

  /** Events currently held (oldest first). */
  history(): EngineEvent[] {
    return [...this.ring];
  }

  /**
   * `backlog` false: no replay is wanted (GET /events without `since`, every `docker run`'s): the ring (1,024 events)
   * is not walked with the filter.
   */
  subscribe(filter: (e: EngineEvent) => boolean = () => true, backlog = true): Subscription {
    const sub: Sub = { filter };
    this.subs.add(sub);
    return {
      backlog: backlog ? this.ring.filter(filter) : [],
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

  /** `fd`: the journal open for appending, kept open (one write per batch, not an open, a write and a close). */
  private journal?: { file: string; fd?: number; pending: string[]; lines: number; timer?: NodeJS.Timeout };

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
        this.closeJournalFd(); // (the old file's: the next batch opens the new one)
      } else {
        j.fd ??= fs.openSync(j.file, 'a');
        const data = Buffer.from(batch.join('\n') + '\n');
        for (let off = 0; off < data.length; ) off += fs.writeSync(j.fd, data, off);
        j.lines += batch.length;
      }
    } catch {
      /* the journal is best effort: events still stream live (a failed fd is opened again at the next batch) */
      this.closeJournalFd();
    }
  }

  private closeJournalFd(): void {
    const j = this.journal;
    if (j?.fd === undefined) return;
    try {
      fs.closeSync(j.fd);
    } catch {
      /* closed already */
    }
    j.fd = undefined;
  }

  close(): void {
    this.flush();
    this.closeJournalFd();
    if (this.journal?.timer) clearInterval(this.journal.timer);
  }
}
