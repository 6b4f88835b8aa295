// A request's answer as an event hold (types/event.ts EventHold): what a request's handling publishes reaches /events
// subscribers after the answer to that request has been written, as the engine's events (sent by a goroutine) do.
// The handling runs in an AsyncLocalStorage scope carrying its hold, so a publish deep in a service, after any number
// of awaits, knows the request it belongs to without being told; the event bus asks `currentAnswer()`.
//
// The hold is released when the answer is out: the response's 'finish' (its last bytes handed to the socket), its
// 'close' (the client left before the answer: nothing is kept back for ever), or, for an answer that streams (a
// build, a pull, attach and exec's hijacked connections), once its head has been written — the stream's body is not
// an answer a client waits on before it acts, and its events (a build's containers) must flow while it lasts.
//
// A hold also lapses LAPSE_MS after the last event queued behind it when the answer has not come by then: a request
// that lasts (a stop waiting out its timeout, a wait, a restart) would otherwise keep its first events (the stop's
// kill) from subscribers for as long as it runs, where the engine sends them as they happen. A lapse sends what is
// queued and starts a new epoch: what the request publishes afterwards is held again, to its answer or the next lapse
// (a force DELETE whose kill took over LAPSE_MS still sends its destroy after its answer). The events the rule is for
// are published just before their answer (a DELETE's destroy), well within it; the order stays the publish order.
// A handling that goes on to wait says so (EventPublisher.sendHeld, the same as a lapse at once): a kill's or a stop's
// kill event goes out before it waits for the exit, and the die (published by the exit monitor, queued behind the
// kill) with it or as it comes, as the engine's do (asked: docker kill, stop and rm -f beside docker events, the kill
// and the die reach subscribers before the answer).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { EventHold } from '../types/event';

/** How long a hold keeps back its events after the last one queued behind it, if the answer has not come. */
export const LAPSE_MS = 1000;

/** One epoch of a hold: the events queued behind it go out together, at the answer or at a lapse. */
class Epoch implements EventHold {
  private fns: (() => void)[] | undefined = [];

  constructor(private readonly owner: AnswerHold) {}

  get released(): boolean {
    return this.fns === undefined;
  }

  onRelease(fn: () => void): void {
    if (this.fns) this.fns.push(fn);
    else fn();
  }

  release(): void {
    const fns = this.fns;
    if (!fns) return;
    this.fns = undefined;
    for (const f of fns) f();
  }

  queued(): void {
    this.owner.queued();
  }

  sendNow(): void {
    this.owner.sendNow(this);
  }
}

export class AnswerHold {
  private epoch: Epoch | undefined = new Epoch(this);
  private soon = false;
  private lapse: NodeJS.Timeout | undefined;

  constructor(
    private readonly lapseMs = LAPSE_MS,
    /** Called once, when the hold is released for good. */
    private readonly onReleased?: () => void,
  ) {}

  /** The answer is out (or the client left): nothing is held any more. */
  get released(): boolean {
    return this.epoch === undefined;
  }

  /** What an event published now is queued behind (undefined once the answer is out). */
  current(): EventHold | undefined {
    return this.epoch;
  }

  release(): void {
    const e = this.epoch;
    if (!e) return;
    this.epoch = undefined;
    if (this.lapse) clearTimeout(this.lapse);
    this.lapse = undefined;
    e.release();
    this.onReleased?.();
  }

  queued(): void {
    if (!this.epoch) return;
    if (this.lapse) this.lapse.refresh();
    else this.lapse = setTimeout(() => this.lapsed(), this.lapseMs).unref();
  }

  /** No answer LAPSE_MS after the last queued event: those go out, and a new epoch holds what comes next. */
  private lapsed(): void {
    const e = this.epoch;
    if (!e) return;
    this.lapse = undefined;
    this.epoch = new Epoch(this);
    e.release();
  }

  /** The handling goes on to wait (EventPublisher.sendHeld): as a lapse, now. */
  sendNow(e: EventHold): void {
    if (e !== this.epoch) return;
    if (this.lapse) clearTimeout(this.lapse);
    this.lapsed();
  }

  /**
   * The answer's head is being written: released after this turn, once what the handler writes in it (the body of
   * an answer ended at once, a stream's first chunk, which the socket's cork holds to the next tick) is on the socket.
   */
  answering(): void {
    if (this.soon || !this.epoch) return;
    this.soon = true;
    setImmediate(() => this.release());
  }
}

const scope = new AsyncLocalStorage<AnswerHold>();
/**
 * Holds not yet released. While there are none the scope is disabled: an enabled AsyncLocalStorage keeps node's
 * promise hooks on for every promise in the process (a background sweep's included), which costs CPU and, once
 * those hooks are hot, the optimizing compiler's pages in an idle daemon's RSS (docs/performance.md). A handling that
 * outlives its hold finds no store either way: a released hold holds nothing back. So a hold counts until it is
 * released, not until its response ends: a stream open for long (the /events that `docker stats` keeps open while it
 * asks for 1,000 containers' stats, a followed log) does not keep the hooks on once its head is out.
 */
let unreleased = 0;

/** How many holds are not yet released (the scope is on while there are any). */
export function unreleasedHolds(): number {
  return unreleased;
}

/** What an event published now is held behind: the running request's current epoch (undefined outside any request). */
export function currentAnswer(): EventHold | undefined {
  return scope.getStore()?.current();
}

/** A hijacked answer's head went out on the raw socket (attach, exec start, attach/ws, a hijacked error). */
export function answerWritten(): void {
  scope.getStore()?.answering();
}

/** Runs a request's handling with its own hold, released as the file's header says. */
export function withAnswerHold<T>(res: ServerResponse, fn: () => T): T {
  const hold = new AnswerHold(LAPSE_MS, () => {
    if (--unreleased === 0) scope.disable();
  });
  unreleased++;
  const release = () => hold.release();
  res.once('finish', release);
  res.once('close', release);
  // Every head goes through writeHead (res.end, res.write and flushHeaders call it for an implicit one).
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    hold.answering();
    return writeHead.apply(res, args);
  }) as typeof res.writeHead;
  return scope.run(hold, fn);
}
