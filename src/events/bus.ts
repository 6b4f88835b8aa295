// One event bus: a ring buffer for since/until replay and bounded per-subscriber queues, so a slow reader never
// stalls berth or the other readers (a subscriber whose queue overflows is dropped).
import { nowNanos } from '../runtime/clock';
import type { EngineEvent, EventPublisher, EventType } from './types';

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
}
