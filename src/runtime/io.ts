// A container's standard streams, owned by berth: the output FIFOs are drained continuously (a stalled client never
// blocks the container) into the json-file log (jsonfile.ts) and broadcast to attached clients; stdin is a FIFO written on behalf
// of attached clients. After a berth restart the same FIFOs are reopened and nothing written meanwhile is lost.
// A container with a json-file log is captured on the capture thread (an OutputCapture: services/log-capture, see
// docs/logging.md); output without a log (an exec's) is read here, for its client.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import { FifoMaker, mkfifos, openReader, openReadFd, openWriter } from './fifo';
import type { JsonFileLogOptions } from './jsonfile';
import type { LogSource } from './logfiles';
import type { IOPaths } from '../types/io';
import type { StreamName } from '../types/io';
import type { LogReadOptions, LogStreamFormat } from '../types/logs';

export type { StreamName };
export type OutputListener = (stream: StreamName, chunk: Buffer) => void;

export function fifoPaths(dir: string, id: string, opts: { tty: boolean; stdin: boolean }): IOPaths {
  return {
    stdin: opts.stdin ? path.join(dir, `${id}-stdin`) : '',
    stdout: path.join(dir, `${id}-stdout`),
    stderr: opts.tty ? '' : path.join(dir, `${id}-stderr`),
    terminal: opts.tty,
  };
}

/** A formatted batch of a follower's entries, with the log's logical offset after them; `release` once the
 *  destination is done with `b`. */
export type FollowBatch = (b: Buffer, end: number, release?: () => void) => void;

/** What captures a logged container's output (the FIFOs read, the json-file log written, followers fed). */
export interface OutputCapture {
  /** Starts capturing the FIFO read sides open as `fds`; `output` gets the raw bytes while `raw(true)`. */
  start(fds: { stdout: number; stderr?: number }, logFile: string, options: JsonFileLogOptions | undefined, on: { output: OutputListener; done: () => void }): CapturedOutput;
}

export interface CapturedOutput {
  /** The log's logical size (at an entry boundary); undefined once it is closed. */
  size(): number | undefined;
  /** A count that grows while the capture writes (also within one long append). */
  progress(): number;
  /** Whether the raw output is wanted (someone is attached). */
  raw(on: boolean): void;
  /** The log's files as of now, opened by the thread that rotates them. */
  openLog(): LogSource | Promise<LogSource>;
  /** A follower: what the log receives from the offset it resolves with, formatted, in batches; undefined when the
   *  log is closed. */
  subscribe(o: LogReadOptions, fmt: LogStreamFormat, onBatch: FollowBatch): Promise<{ offset: number; unsubscribe: () => void } | undefined>;
  /** Stops reading (berth shutting down). */
  close(): void;
}

/** Every exec's output is read into this one buffer (see attachReader), made at the first exec's. */
let readBuffer: Buffer | undefined;

export class ContainerIO {
  private readonly listeners = new Set<OutputListener>();
  private readers: Socket[] = [];
  private stdinWriter?: Socket;
  private captured?: CapturedOutput;
  private open = 0;
  private doneResolve!: () => void;
  private ended = false;
  /** Resolves when every output stream reached EOF (the process exited and the shim flushed everything) and the
   *  log has everything. */
  readonly done: Promise<void>;

  /** With `logFile`, the output goes through `capture` (required then). */
  constructor(readonly paths: IOPaths, private readonly logFile: string | null, private readonly logOptions?: JsonFileLogOptions, private readonly capture?: OutputCapture) {
    if (logFile && !capture) throw new Error('a logged container needs a capture');
    this.done = new Promise(
      (r) =>
        (this.doneResolve = () => {
          this.ended = true;
          r();
        }),
    );
  }

  /** Creates the FIFOs (if needed: with `make`, e.g. a FifoPool's) and opens the read sides; call before Tasks.Create. */
  async openOutputs(make: FifoMaker = mkfifos): Promise<void> {
    const p = this.paths;
    await make([p.stdin, p.stdout, p.stderr].filter(Boolean));
    if (this.logFile && this.capture) {
      // Opened here, at once (the shim finds a reader), read on the capture thread.
      const stdout = openReadFd(p.stdout);
      let stderr: number | undefined;
      try {
        if (p.stderr) stderr = openReadFd(p.stderr);
      } catch (err) {
        fs.closeSync(stdout);
        throw err;
      }
      this.captured = this.capture.start({ stdout, stderr }, this.logFile, this.logOptions, {
        output: (stream, chunk) => {
          for (const l of this.listeners) l(stream, chunk);
        },
        done: () => this.doneResolve(),
      });
      if (this.listeners.size) this.captured.raw(true);
      return;
    }
    this.attachReader('stdout', p.stdout);
    if (p.stderr) this.attachReader('stderr', p.stderr);
  }

  private attachReader(stream: StreamName, file: string): void {
    // Read into one buffer shared by every container's outputs (no buffer per read, no stream machinery): what is
    // read is logged at once, and listeners that keep it get their own copy.
    const buf = (readBuffer ??= Buffer.allocUnsafe(64 * 1024));
    const r = openReader(file, (n) => {
      if (this.listeners.size) {
        const chunk = Buffer.from(buf.subarray(0, n));
        for (const l of this.listeners) l(stream, chunk);
      }
    }, buf);
    this.open++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (--this.open === 0) this.doneResolve();
    };
    r.on('end', end);
    r.on('error', end);
    this.readers.push(r);
  }

  /**
   * Resolves when the output is complete (done), or once nothing more reached the log for `quietMs` (a process that
   * keeps a FIFO's write side open, a daemonised child, would otherwise hold the exit forever). While the capture
   * thread is still writing what the container printed, it waits.
   */
  outputDone(quietMs: number): Promise<void> {
    return new Promise((resolve) => {
      let last = this.captured?.progress();
      const check = () => {
        const now = this.captured?.progress();
        if (now === undefined || now === last) return resolve();
        last = now;
        timer = setTimeout(check, quietMs);
      };
      let timer = setTimeout(check, quietMs);
      void this.done.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Whether `done` has resolved already (every output stream at EOF and the log complete). */
  get outputEnded(): boolean {
    return this.ended;
  }

  /** Whether the capture has written anything of this run to the log yet. */
  wroteAny(): boolean {
    return (this.captured?.progress() ?? 0) > 0;
  }

  /** The json-file log's logical size (at an entry boundary), undefined without a log or once it is closed. */
  logSize(): number | undefined {
    return this.captured?.size();
  }

  /**
   * Follows what the json-file log receives, as it is written, formatted as `o` and `fmt` say, in batches:
   * resolves with the log's logical size at which they start (everything before it is in the files), or
   * undefined without a log or once it is closed.
   */
  subscribeLog(o: LogReadOptions, fmt: LogStreamFormat, onBatch: FollowBatch): Promise<{ offset: number; unsubscribe: () => void } | undefined> {
    return this.captured ? this.captured.subscribe(o, fmt, onBatch) : Promise.resolve(undefined);
  }

  /** The log's files as of now (the caller reads, then closes them: closeLogSource); undefined without a log. */
  openLog(): LogSource | Promise<LogSource> | undefined {
    return this.captured?.openLog();
  }

  subscribe(fn: OutputListener): () => void {
    this.listeners.add(fn);
    if (this.listeners.size === 1) this.captured?.raw(true);
    return () => {
      if (this.listeners.delete(fn) && !this.listeners.size) this.captured?.raw(false);
    };
  }

  get hasStdin(): boolean {
    return !!this.paths.stdin;
  }

  /** Set once the shim holds the stdin FIFO's read side (after Tasks.Create). */
  stdinReady = false;

  /** The stdin writer, opened on first use once the task is started; undefined before that. */
  stdin(): Socket | undefined {
    if (!this.paths.stdin || !this.stdinReady) return undefined;
    if (!this.stdinWriter || this.stdinWriter.destroyed) {
      try {
        this.stdinWriter = openWriter(this.paths.stdin);
      } catch {
        return undefined; // the FIFO is gone (the process ended and its FIFOs were removed)
      }
      this.stdinWriter.on('error', () => undefined);
    }
    return this.stdinWriter;
  }

  /** Ends the stdin writer; resolves once everything written so far has reached the FIFO (or it failed). */
  closeStdinWriter(): Promise<void> {
    const w = this.stdinWriter;
    this.stdinWriter = undefined;
    if (!w || w.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve();
      };
      w.once('finish', finish);
      w.once('close', finish);
      w.once('error', finish);
      w.end();
    });
  }

  /** Stops reading (berth shutting down: the shim keeps the FIFOs and a new berth reopens them). */
  close(): void {
    for (const r of this.readers) r.destroy();
    this.stdinWriter?.destroy();
    this.captured?.close();
  }

  removeFifos(): void {
    for (const p of [this.paths.stdin, this.paths.stdout, this.paths.stderr]) if (p) fs.rmSync(p, { force: true });
  }
}
