// A container's standard streams, owned by berth: the output FIFOs are drained continuously (a stalled client never
// blocks the container) into the json-file log and broadcast to attached clients; stdin is a FIFO written on behalf
// of attached clients. After a berth restart the same FIFOs are reopened and nothing written meanwhile is lost.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import { mkfifos, openReader, openWriter } from './fifo';
import { nowRfc3339Nano } from './clock';
import { incompleteUtf8Tail, LogEncoder, StreamName } from './jsonlog';

export type { StreamName };
export type OutputListener = (stream: StreamName, chunk: Buffer) => void;

export interface IOPaths {
  stdin: string; // '' when the container has no stdin
  stdout: string;
  stderr: string; // '' for a TTY
  terminal: boolean;
}

export function fifoPaths(dir: string, id: string, opts: { tty: boolean; stdin: boolean }): IOPaths {
  return {
    stdin: opts.stdin ? path.join(dir, `${id}-stdin`) : '',
    stdout: path.join(dir, `${id}-stdout`),
    stderr: opts.tty ? '' : path.join(dir, `${id}-stderr`),
    terminal: opts.tty,
  };
}

/**
 * Appends json-file lines synchronously, so that what was read from a FIFO is on disk before the next read. A final
 * partial line is written at once (as the engine writes a partial entry), except for the bytes of a UTF-8
 * character cut by the read, which wait for the rest of it.
 */
/**
 * What was appended to the log: the entries' bytes, their time, the file's size after them, and whether the bytes
 * are valid UTF-8 (then a reader gets them back as they are; otherwise as asLogged() gives them). The bytes are
 * valid during the call only (the read buffer is reused): a listener that keeps them copies them.
 */
export type LogAppendListener = (stream: StreamName, content: Buffer, time: string, end: number, valid?: boolean) => void;

export class JsonFileLog {
  private fd: number;
  /** The file's size: where the next entries go. */
  size: number;
  onAppend?: LogAppendListener;
  private readonly encoder = new LogEncoder();
  private readonly held: Record<StreamName, Buffer | undefined> = { stdout: undefined, stderr: undefined };
  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'a', 0o640);
    this.size = fs.fstatSync(this.fd).size;
  }
  write(stream: StreamName, chunk: Buffer): void {
    const held = this.held[stream];
    if (held) {
      chunk = Buffer.concat([held, chunk]);
      this.held[stream] = undefined;
    }
    if (chunk[chunk.length - 1] !== 0x0a) {
      const cut = incompleteUtf8Tail(chunk);
      if (cut) {
        this.held[stream] = Buffer.from(chunk.subarray(chunk.length - cut));
        chunk = chunk.subarray(0, chunk.length - cut);
      }
    }
    this.append(stream, chunk);
  }
  private append(stream: StreamName, chunk: Buffer): void {
    if (!chunk.length || this.fd < 0) return;
    const time = nowRfc3339Nano();
    const out = this.encoder.encode(chunk, stream, time);
    let off = 0;
    while (off < out.length) off += fs.writeSync(this.fd, out, off, out.length - off);
    this.size += out.length;
    this.onAppend?.(stream, chunk, time, this.size, this.encoder.lastValid);
  }
  get isOpen(): boolean {
    return this.fd >= 0;
  }
  /** Idempotent: a second close must not hit the number of an fd opened since (EOF and close() both call it). */
  close(): void {
    if (this.fd < 0) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.held[stream];
      this.held[stream] = undefined;
      if (rest) this.append(stream, rest); // the character never completed: U+FFFD, as the engine writes it
    }
    const fd = this.fd;
    this.fd = -1;
    try {
      fs.closeSync(fd);
    } catch {
      /* closed */
    }
  }
}

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

  constructor(readonly paths: IOPaths, logFile: string | null) {
    if (logFile) {
      this.log = new JsonFileLog(logFile);
      this.log.onAppend = (stream, content, time, end, valid) => {
        for (const l of this.logListeners) l(stream, content, time, end, valid);
      };
    }
    this.done = new Promise((r) => (this.doneResolve = r));
  }

  /** Creates the FIFOs (if needed) and opens the read sides; call before Tasks.Create. */
  async openOutputs(): Promise<void> {
    const p = this.paths;
    await mkfifos([p.stdin, p.stdout, p.stderr].filter(Boolean));
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

  /**
   * Follows what the json-file log receives, as it is written: returns the file's size now (everything before it
   * is in the file; everything after reaches `fn`), or undefined without a log.
   */
  /** The json-file log's size (at an entry boundary), undefined without a log or once it is closed. */
  logSize(): number | undefined {
    return this.log && this.log.isOpen ? this.log.size : undefined;
  }

  subscribeLog(fn: LogAppendListener): { offset: number; unsubscribe: () => void } | undefined {
    if (!this.log) return undefined;
    this.logListeners.add(fn);
    return { offset: this.log.size, unsubscribe: () => this.logListeners.delete(fn) };
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

  /** The stdin writer, opened on first use once the shim has its end; undefined before that. */
  stdin(): Socket | undefined {
    if (!this.paths.stdin || !this.stdinReady) return undefined;
    if (!this.stdinWriter || this.stdinWriter.destroyed) {
      try {
        this.stdinWriter = openWriter(this.paths.stdin);
      } catch {
        return undefined; // ENXIO: no reader yet
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
