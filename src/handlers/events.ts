// GET /events: replay from the ring (since), then live events until `until` or the client leaves.
import type { Route } from '../http/app';
import { queryFilters, queryString } from '../http/query';
import { invalidParameter } from '../errors';
import { compileEventFilter, parseEventTime, type Filters } from '../translate/filters';
import { toEventJSON } from '../translate/response/events';
import { supports } from '../translate/version/features';
import type { EngineEvent } from '../types/event';

/**
 * Each event is serialised once, however many subscribers receive it: its JSON line, and that line as one HTTP/1.1
 * chunk ("<hex length>\r\n<line>\r\n") in one buffer.
 */
const lines = new WeakMap<EngineEvent, { line: string; chunk: Buffer }>();
function encoded(e: EngineEvent): { line: string; chunk: Buffer } {
  let l = lines.get(e);
  if (l === undefined) {
    const line = JSON.stringify(toEventJSON(e)) + '\n';
    const body = Buffer.from(line);
    l = { line, chunk: Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]) };
    lines.set(e, l);
  }
  return l;
}

/**
 * Equal filters share one compiled function, so the bus matches an event once for all the subscribers that asked
 * alike (a hundred `docker events --filter event=die` cost one match). Bounded: the oldest forgotten past 64.
 */
const shared = new Map<string, (e: EngineEvent) => boolean>();
function sharedFilter(f: Filters, strict: boolean, daemon: boolean): (e: EngineEvent) => boolean {
  const fn = compileEventFilter(f, strict, daemon); // (validates, and drops what it ignores)
  const key = JSON.stringify([strict, daemon, [...f].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  const known = shared.get(key);
  if (known) return known;
  if (shared.size >= 64) shared.delete(shared.keys().next().value!);
  shared.set(key, fn);
  return fn;
}

/** A subscription to the event bus: the ring's events so far (for `since`), then live ones until closed. */
export interface EventSubscription {
  readonly backlog: readonly EngineEvent[];
  onEvent(fn: (e: EngineEvent) => void): void;
  /** The subscriber fell too far behind: the stream ends. */
  onOverflow(fn: () => void): void;
  close(): void;
}

/** What GET /events needs (events/bus). */
export interface EventsBackend {
  /** `backlog`: the ring's matching events are wanted (a `since` replay). */
  subscribe(match: (e: EngineEvent) => boolean, backlog: boolean): EventSubscription;
}

export function eventRoutes(bus: EventsBackend): Route[] {
  return [
    {
      method: 'get',
      path: '/events',
      handler: async (req, res) => {
        const v = req.apiVersion;
        const match = sharedFilter(queryFilters(req), supports(v, 'EventsBadFilter400'), supports(v, 'EventsDaemon'));
        const since = parseEventTime(queryString(req, 'since'));
        const until = parseEventTime(queryString(req, 'until'));
        // The spec: "400 bad parameter (since v1.24)".
        if (since !== undefined && until !== undefined && since > until && supports(v, 'EventsBadFilter400'))
          throw invalidParameter(`\`since\` time (${queryString(req, 'since')}) cannot be after \`until\` time (${queryString(req, 'until')})`);
        const sub = bus.subscribe(match, since !== undefined);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        let closed = false;
        const close = () => {
          if (closed) return;
          closed = true;
          sub.close();
          res.end();
        };
        // A chunked response gets each event as its prepared chunk straight on the socket: the bytes reach the kernel
        // during the publish itself (res.write corks the socket until the next tick, which runs only after whatever
        // the publisher does next, and frames each chunk again for every subscriber). res.end() still ends the body.
        // (A response queued behind another on a pipelined connection has no socket yet: it writes through res.)
        // (What a request publishes reaches this point after that request's answer: the bus holds it, src/http/answer.ts.)
        const send = (e: EngineEvent) => {
          if (closed) return;
          if (until !== undefined && e.timeNano > until) return close();
          const sock = res.socket;
          if (res.chunkedEncoding && sock && !sock.destroyed) sock.write(encoded(e).chunk);
          else res.write(encoded(e).line);
        };
        if (since !== undefined) for (const e of sub.backlog) if (e.timeNano >= since) send(e);
        sub.onEvent(send);
        sub.onOverflow(close);
        req.on('close', close);
        res.on('close', close);
        if (until !== undefined) {
          const wait = until / 1e6 - Date.now();
          if (wait <= 0) return close();
          setTimeout(close, wait).unref();
        }
      },
    },
  ];
}
