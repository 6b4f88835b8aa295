// A container's standard streams, owned by berth: the output FIFOs are drained continuously (a stalled client never
// blocks the container) into the json-file log (jsonfile.ts) and broadcast to attached clients; stdin is a FIFO written on behalf
// of attached clients. After a berth restart the same FIFOs are reopened and nothing written meanwhile is lost.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import { FifoMaker, mkfifos, openReader, openWriter } from './fifo';
import { JsonFileLog, JsonFileLogOptions, LogAppendListener } from './jsonfile';
import type { LogSource } from './logfiles';
import type { IOPaths } from '../types/io';
import type { StreamName } from '../types/io';

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

/** Every container's output is read into this one buffer (see attachReader). */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export class ContainerIO {
  private readonly listeners = new Set<OutputListener>();
  private readers: Socket[] = [];
  private stdinWriter?: Socket;
  private log?: JsonFileLog;
  private open = 0;
  private doneResolve!: () => void;
  /** Resolves when every output stream reached EOF (the process exited and the shim flushed everything). */
  readonly done: Promise<void>;

  private readonly logListeners = new Set<LogAppendListener>();
  private readonly logAttrs?: string;

  constructor(readonly paths: IOPaths, logFile: string | null, logOptions?: JsonFileLogOptions) {
    if (logFile) {
      this.log = new JsonFileLog(logFile, logOptions);
      this.logAttrs = logOptions?.attrs;
      this.log.onAppend = (stream, content, time, end, valid) => {
        for (const l of this.logListeners) l(stream, content, time, end, valid);
      };
    }
    this.done = new Promise((r) => (this.doneResolve = r));
  }

  /** Creates the FIFOs (if needed: with `make`, e.g. a FifoPool's) and opens the read sides; call before Tasks.Create. */
  async openOutputs(make: FifoMaker = mkfifos): Promise<void> {
    const p = this.paths;
    await make([p.stdin, p.stdout, p.stderr].filter(Boolean));
    this.attachReader('stdout', p.stdout);
    if (p.stderr) this.attachReader('stderr', p.stderr);
  }

  private attachReader(stream: StreamName, file: string): void {
    // Read into one buffer shared by every container's outputs (no buffer per read, no stream machinery): what is
    // read is logged at once, and listeners that keep it get their own copy.
    const r = openReader(file, (n) => {
      const view = READ_BUFFER.subarray(0, n);
      this.log?.write(stream, view);
      if (this.listeners.size) {
        const chunk = Buffer.from(view);
        for (const l of this.listeners) l(stream, chunk);
      }
    }, READ_BUFFER);
    this.open++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (--this.open === 0) {
        this.log?.close();
        this.doneResolve();
      }
    };
    r.on('end', end);
    r.on('error', end);
    this.readers.push(r);
  }

  /** The json-file log's logical size (at an entry boundary), undefined without a log or once it is closed. */
  logSize(): number | undefined {
    return this.log && this.log.isOpen ? this.log.end : undefined;
  }

  /**
   * Follows what the json-file log receives, as it is written: returns the log's logical size now (everything
   * before it is in the files; everything after reaches `fn`) and the entries' attributes, or undefined without a log.
   */
  subscribeLog(fn: LogAppendListener): { offset: number; attrs?: string; unsubscribe: () => void } | undefined {
    if (!this.log) return undefined;
    this.logListeners.add(fn);
    return { offset: this.log.end, attrs: this.logAttrs, unsubscribe: () => this.logListeners.delete(fn) };
  }

  /** The log's files as of now (the caller reads, then closes them: closeLogSource); undefined without a log. */
  openLog(): LogSource | undefined {
    return this.log?.open();
  }

  subscribe(fn: OutputListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
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
    this.log?.close();
  }

  removeFifos(): void {
    for (const p of [this.paths.stdin, this.paths.stdout, this.paths.stderr]) if (p) fs.rmSync(p, { force: true });
  }
}
