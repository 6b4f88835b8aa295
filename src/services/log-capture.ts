// The capture thread (docs/logging.md): logged containers' FIFOs are read, their json-file logs written and their
// live followers' batches formatted on a thread of its own (log-capture-worker), so the main thread only routes:
// it opens the FIFO read sides (so the shim finds a reader at once), hands the fds over, forwards raw output to
// attached clients while someone is attached, and writes followers' batches to their sockets. A log's logical size
// is in memory both threads share; its files are opened by the thread that rotates them.
//
// CaptureHost is the thread's side; LogCaptureThread (the main thread's) runs it in the worker, or in-process where
// the compiled worker is not there (the unit tests run TypeScript).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { readerOnFd } from '../runtime/fifo';
import { JsonFileLog, JsonFileLogOptions, LogLayout, openClosedLog } from '../runtime/jsonfile';
import type { LogSource } from '../runtime/logfiles';
import type { CapturedOutput, FollowBatch, OutputCapture, OutputListener } from '../runtime/io';
import { BATCH, FollowBatcher } from './logs-follow';
import { ReadCoalescing, type CoalescingOptions } from './read-coalescing';
import { detailsPrefix } from './logs';
import type { LogReadOptions, LogStreamFormat } from '../types/logs';
import type { StreamName } from '../types/io';

export type ToCapture =
  | { t: 'open'; cid: number; fds: { stdout: number; stderr?: number }; file: string; opts?: JsonFileLogOptions; state: SharedArrayBuffer }
  | { t: 'raw'; cid: number; on: boolean }
  | { t: 'openLog'; cid: number; rid: number }
  | { t: 'sub'; cid: number; sid: number; o: LogReadOptions; fmt: LogStreamFormat }
  | { t: 'unsub' | 'close'; cid: number; sid?: number }
  | { t: 'recycle'; buf?: ArrayBuffer; cid?: number; sid?: number }
  | { t: 'shutdown' };

export type FromCapture =
  | { t: 'out'; cid: number; stream: StreamName; buf: ArrayBuffer }
  | { t: 'log'; cid: number; rid: number; src?: LogSource }
  | { t: 'subbed'; cid: number; sid: number; offset?: number }
  | { t: 'batch'; cid: number; sid: number; buf: ArrayBuffer; len: number; end: number }
  | { t: 'done'; cid: number; layout?: LogLayout }
  | { t: 'bye' };

type Post<M> = (m: M, transfer?: ArrayBuffer[]) => void;

interface HostCapture {
  log?: JsonFileLog;
  attrs?: string;
  readers: Socket[];
  open: number;
  raw: boolean;
  subs: Map<number, FollowBatcher>;
  /** Reads what the FIFOs hold now, through the same path as the readers' own reads (drainNow). */
  drains: (() => void)[];
  /** [0]: the log's logical size, -1 once closed; [1]: writes so far (progress). */
  state: BigInt64Array;
}

/** At most this much is read from one FIFO by drainNow (a writer that never pauses does not hold the thread). */
const DRAIN_MAX = 4 << 20;

/**
 * Reads what a FIFO holds now, before its reader's next turn: the fd is non-blocking (its socket's), so a read of an
 * empty pipe fails with EAGAIN and the loop ends; an end (0) is left for the socket to see. Only this thread reads
 * the fd, and its socket reads only in its own callbacks, so the order of the output is kept.
 */
function drainNow(fd: number, buf: Buffer, onRead: (n: number) => void): void {
  for (let total = 0; total < DRAIN_MAX; ) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch {
      return; // (EAGAIN: nothing more now; anything else is the socket's to see)
    }
    if (n <= 0) return;
    onRead(n);
    total += n;
  }
}

/** Spare batch buffers kept for reuse (given back by the main thread once written out). */
const SPARE_MAX = 8;

/** The capture thread's side: every logged container's FIFO readers, json-file log and followers. */
export class CaptureHost {
  private readonly caps = new Map<number, HostCapture>();
  /** Logs whose rotated files may still be being compressed. */
  private readonly logs = new Set<JsonFileLog>();
  private readonly spare: ArrayBuffer[] = [];
  /** Every capture's output is read into this buffer, encoded and written out before the next read. */
  private readonly readBuffer = Buffer.allocUnsafe(64 << 10);

  /** Short reads of a sustained stream made larger by reading later (read-coalescing.ts): on the thread only, where
   *  a sleep holds up nothing but the thread's other captures (in-process, it would hold up the whole process). */
  private readonly coalescing?: ReadCoalescing;

  constructor(private readonly post: Post<FromCapture>, coalescing?: CoalescingOptions) {
    if (coalescing) this.coalescing = new ReadCoalescing(coalescing);
  }

  handle(m: ToCapture): void {
    if (m.t === 'open') return this.open(m);
    if (m.t === 'recycle') {
      // A follower's batch was written out (or dropped): its buffer for reuse, and the follower may send the next.
      if (m.buf?.byteLength === BATCH && this.spare.length < SPARE_MAX) this.spare.push(m.buf);
      if (m.cid !== undefined) this.caps.get(m.cid)?.subs.get(m.sid!)?.released();
      return;
    }
    if (m.t === 'shutdown') {
      for (const cid of [...this.caps.keys()]) this.close(cid);
      void Promise.all([...this.logs].map((l) => l.settled())).finally(() => this.post({ t: 'bye' }));
      return;
    }
    const c = this.caps.get(m.cid);
    switch (m.t) {
      case 'raw':
        if (c) c.raw = m.on;
        return;
      case 'openLog':
        // What the container wrote before the read was asked is in it: the FIFOs are read first (the reference's
        // copier has usually written it by then; here the thread may not have been scheduled yet under load).
        if (c?.log?.isOpen) for (const d of c.drains) d();
        // A closed log (the capture is done) is opened by the main thread from the layout it was sent.
        return this.post({ t: 'log', cid: m.cid, rid: m.rid, src: c?.log?.isOpen ? c.log.open() : undefined });
      case 'sub': {
        if (!c?.log?.isOpen) return this.post({ t: 'subbed', cid: m.cid, sid: m.sid });
        const emit = (b: Buffer, used: number, end: number) => this.post({ t: 'batch', cid: m.cid, sid: m.sid, buf: b.buffer as ArrayBuffer, len: used, end }, [b.buffer as ArrayBuffer]);
        c.subs.set(m.sid, new FollowBatcher(m.o, m.fmt, detailsPrefix(c.attrs), (need) => this.alloc(need), emit, true));
        return this.post({ t: 'subbed', cid: m.cid, sid: m.sid, offset: c.log.end });
      }
      case 'unsub':
        c?.subs.get(m.sid!)?.close();
        c?.subs.delete(m.sid!);
        return;
      case 'close':
        return this.close(m.cid);
    }
  }

  /** A batch buffer of its own memory (transferred whole to the main thread). */
  private alloc(need: number): Buffer {
    const ab = (need <= BATCH && this.spare.pop()) || new ArrayBuffer(Math.max(need, BATCH));
    return Buffer.from(ab);
  }

  private open(m: Extract<ToCapture, { t: 'open' }>): void {
    const c: HostCapture = { attrs: m.opts?.attrs, readers: [], open: 0, raw: false, subs: new Map(), drains: [], state: new BigInt64Array(m.state) };
    try {
      c.log = new JsonFileLog(m.file, m.opts);
      this.logs.add(c.log);
    } catch {
      // The output is still drained (the container must not block on it), unlogged, as if the log were full.
    }
    const log = c.log;
    if (log) {
      log.onAppend = (stream, content, time, end, valid) => {
        Atomics.store(c.state, 0, BigInt(end));
        for (const b of c.subs.values()) b.append(stream, content, time, end, valid);
      };
      Atomics.store(c.state, 0, BigInt(log.end));
      log.onWrite = () => void Atomics.add(c.state, 1, 1n);
    }
    this.caps.set(m.cid, c);
    const read = this.readBuffer;
    const co = this.coalescing;
    const attach = (stream: StreamName, fd: number) => {
      const pace = co?.pace();
      const onRead = (n: number) => {
        const view = read.subarray(0, n);
        log?.write(stream, view);
        if (c.raw) {
          const ab = new ArrayBuffer(n);
          view.copy(Buffer.from(ab));
          this.post({ t: 'out', cid: m.cid, stream, buf: ab }, [ab]);
        }
        if (pace) co!.read(pace, n);
      };
      const r = readerOnFd(fd, onRead, read);
      c.drains.push(() => drainNow(fd, read, onRead));
      c.open++;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        if (--c.open === 0 && this.caps.get(m.cid) === c) this.finish(m.cid, c);
      };
      r.on('end', end);
      r.on('error', end);
      c.readers.push(r);
    };
    attach('stdout', m.fds.stdout);
    if (m.fds.stderr !== undefined) attach('stderr', m.fds.stderr);
  }

  /** Every output reached EOF: the log is closed (a partial character still held goes out), followers get what
   *  they have not yet, and the main thread the log's layout. */
  private finish(cid: number, c: HostCapture): void {
    c.log?.close();
    for (const b of c.subs.values()) b.flush();
    Atomics.store(c.state, 0, -1n);
    this.caps.delete(cid);
    this.post({ t: 'done', cid, layout: c.log?.layout });
    this.forget(c);
  }

  /** Berth is shutting down: stop reading (the shim keeps the FIFOs; the next berth reopens them). */
  private close(cid: number): void {
    const c = this.caps.get(cid);
    if (!c) return;
    this.caps.delete(cid);
    for (const r of c.readers) r.destroy();
    for (const b of c.subs.values()) b.close();
    c.log?.close();
    Atomics.store(c.state, 0, -1n);
    this.forget(c);
  }

  private forget(c: HostCapture): void {
    const log = c.log;
    if (log) void log.settled().finally(() => this.logs.delete(log));
  }
}

interface MainCapture {
  on: { output: OutputListener; done: () => void };
  layout?: LogLayout;
  done: boolean;
  next: number;
  logReqs: Map<number, (src: LogSource) => void>;
  subReqs: Map<number, (offset: number | undefined) => void>;
  subs: Map<number, FollowBatch>;
}

/**
 * The main thread's side: an OutputCapture whose captures run on the capture thread, started with the first one
 * and ended once none has run for a while (an idle berth holds no extra thread).
 */
export class LogCaptureThread implements OutputCapture {
  private worker?: Worker;
  private inline?: CaptureHost;
  private nextCid = 1;
  private readonly caps = new Map<number, MainCapture>();
  private idle?: NodeJS.Timeout;

  /** `inline`: in-process, never on a thread (tests). */
  constructor(private readonly opts: { idleMs?: number; inline?: boolean } = {}) {}

  start(fds: { stdout: number; stderr?: number }, logFile: string, options: JsonFileLogOptions | undefined, on: { output: OutputListener; done: () => void }): CapturedOutput {
    const cid = this.nextCid++;
    const state = new BigInt64Array(new SharedArrayBuffer(16));
    // The log's size until the thread has opened it: the file's (nothing else writes it).
    let size = 0;
    try {
      size = fs.statSync(logFile, { throwIfNoEntry: false })?.size ?? 0; // (not there yet at a first start: no error made)
    } catch {
      /* unreadable */
    }
    Atomics.store(state, 0, BigInt(size));
    const cap: MainCapture = { on, done: false, next: 1, logReqs: new Map(), subReqs: new Map(), subs: new Map() };
    this.caps.set(cid, cap);
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    this.send({ t: 'open', cid, fds, file: logFile, opts: options, state: state.buffer as SharedArrayBuffer });
    return {
      size: () => {
        const v = Atomics.load(state, 0);
        return v < 0n ? undefined : Number(v);
      },
      progress: () => Number(Atomics.load(state, 1)),
      raw: (on) => {
        if (!cap.done) this.send({ t: 'raw', cid, on });
      },
      openLog: () => {
        if (cap.done) return cap.layout ? openClosedLog(cap.layout) : { files: [] };
        const rid = cap.next++;
        return new Promise<LogSource>((resolve) => {
          cap.logReqs.set(rid, resolve);
          this.send({ t: 'openLog', cid, rid });
        });
      },
      subscribe: (o, fmt, onBatch) => {
        if (cap.done) return Promise.resolve(undefined);
        const sid = cap.next++;
        return new Promise((resolve) => {
          cap.subReqs.set(sid, (offset) => {
            if (offset === undefined) return resolve(undefined);
            cap.subs.set(sid, onBatch);
            resolve({
              offset,
              unsubscribe: () => {
                if (cap.subs.delete(sid) && !cap.done) this.send({ t: 'unsub', cid, sid });
              },
            });
          });
          this.send({ t: 'sub', cid, sid, o, fmt });
        });
      },
      close: () => {
        if (cap.done) return;
        this.send({ t: 'close', cid });
        this.ended(cid, cap);
      },
    };
  }

  private onMessage(m: FromCapture): void {
    if (m.t === 'bye') return;
    const cap = this.caps.get(m.cid);
    switch (m.t) {
      case 'out':
        cap?.on.output(m.stream, Buffer.from(m.buf));
        return;
      case 'batch': {
        const onBatch = cap?.subs.get(m.sid);
        if (!onBatch) return this.recycle(m.buf, m.cid, m.sid);
        onBatch(Buffer.from(m.buf, 0, m.len), m.end, () => this.recycle(m.buf, m.cid, m.sid));
        return;
      }
      case 'log': {
        const req = cap?.logReqs.get(m.rid);
        if (!cap || !req) {
          if (m.src) for (const f of m.src.files) fs.closeSync(f.fd);
          return;
        }
        cap.logReqs.delete(m.rid);
        return req(m.src ?? (cap.layout ? openClosedLog(cap.layout) : { files: [] }));
      }
      case 'subbed': {
        const req = cap?.subReqs.get(m.sid);
        cap?.subReqs.delete(m.sid);
        return req?.(m.offset);
      }
      case 'done':
        if (!cap) return;
        cap.layout = m.layout;
        this.ended(m.cid, cap);
        cap.on.done();
        return;
    }
  }

  /** The capture is over (done or closed): requests still waiting are answered here, later messages ignored. */
  private ended(cid: number, cap: MainCapture): void {
    cap.done = true;
    this.caps.delete(cid);
    for (const req of cap.logReqs.values()) req(cap.layout ? openClosedLog(cap.layout) : { files: [] });
    for (const req of cap.subReqs.values()) req(undefined);
    cap.logReqs.clear();
    cap.subReqs.clear();
    cap.subs.clear();
    if (!this.caps.size && this.worker) {
      this.idle = setTimeout(() => this.stopWorker(), this.opts.idleMs ?? 15_000);
      this.idle.unref();
    }
  }

  /** A batch is written out (or dropped): its buffer goes back for reuse (on a thread: in-process, where it is not
   *  transferred, it is not reused) and its follower is told. */
  private recycle(buf: ArrayBuffer, cid: number, sid: number): void {
    const follower = this.caps.has(cid) ? { cid, sid } : {}; // (a capture that is over has no follower to tell)
    if (buf.byteLength === BATCH && this.worker) this.send({ t: 'recycle', buf, ...follower }, [buf]);
    else if (follower.cid !== undefined) this.send({ t: 'recycle', ...follower });
  }

  private send(m: ToCapture, transfer?: ArrayBuffer[]): void {
    if (this.inline) return this.inline.handle(m);
    if (!this.worker) this.startWorker();
    if (this.worker) this.worker.postMessage(m, transfer);
    else this.inline!.handle(m);
  }

  private startWorker(): void {
    const file = workerFile();
    if (this.opts.inline || !fs.existsSync(file)) {
      // In-process (same protocol; messages to the main side are delivered after the current call, in order).
      this.inline = new CaptureHost((m) => queueMicrotask(() => this.onMessage(m)));
      return;
    }
    // Its fds are not the thread's alone: the FIFO read sides come from the main thread, the log files it opens for
    // readers are closed there. Tracked, they would be closed again when the thread ends (by then another file's).
    const w = new Worker(file, { trackUnmanagedFds: false });
    w.unref();
    w.on('message', (m: FromCapture) => {
      if (m.t === 'bye' && this.worker !== w) void w.terminate();
      else if (this.worker === w) this.onMessage(m);
    });
    w.on('error', () => undefined);
    this.worker = w;
  }

  /** Ends the thread once it has finished what it does (compressing rotated files): nothing runs on it now. */
  private stopWorker(): void {
    this.idle = undefined;
    const w = this.worker;
    if (!w || this.caps.size) return;
    this.worker = undefined;
    w.postMessage({ t: 'shutdown' } satisfies ToCapture);
  }

  /** Berth is shutting down (every capture was closed before). */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const w = this.worker;
    this.worker = undefined;
    if (w) {
      w.postMessage({ t: 'shutdown' } satisfies ToCapture);
      // give it a moment to finish a compression; the files are valid either way (see JsonFileLog)
      setTimeout(() => void w.terminate(), 2000).unref();
    }
  }
}

function workerFile(): string {
  // Compiled code runs the compiled worker next to it; the tests (TypeScript through swc) run the build's.
  return __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/src/services/log-capture-worker.js') : path.join(__dirname, 'log-capture-worker.js');
}
