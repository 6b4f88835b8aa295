// A worker thread started on first use and ended after a quiet spell, so an idle berth holds no extra thread (the log
// reader and the stats reader). Its owner says what a message means, what a failed thread takes with it, and whether
// work is still out (the thread ends only when none is).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker, type TransferListItem } from 'node:worker_threads';

export interface IdleWorkerOwner<Out> {
  message(m: Out): void;
  /** The thread failed or exited: what was out with it is lost. */
  failed(err: Error): void;
  /** Work is still out (the thread is not ended while there is). */
  busy(): boolean;
}

/**
 * The compiled worker next to the compiled module `moduleFile` (a module of src/services), named `name`; the tests
 * (TypeScript through swc) run the build's.
 */
export function workerFile(moduleFile: string, name: string): string {
  const dir = path.dirname(moduleFile);
  return moduleFile.endsWith('.ts') ? path.resolve(dir, '../../dist/src', path.basename(dir), name) : path.join(dir, name);
}

export class IdleWorker<In, Out> {
  private worker?: Worker;
  private idle?: NodeJS.Timeout;

  constructor(
    /** What the thread is, for the error its exit gives ("log reader thread") */
    private readonly name: string,
    private readonly file: string,
    private readonly idleMs: number,
    private readonly owner: IdleWorkerOwner<Out>,
  ) {}

  /** Whether the worker's file is there (else the owner does the work on the main thread). */
  available(): boolean {
    return fs.existsSync(this.file);
  }

  /** The running thread (started if need be; its idle timer stopped), or undefined when its file is missing. */
  get(): Worker | undefined {
    if (this.idle) {
      clearTimeout(this.idle);
      this.idle = undefined;
    }
    if (this.worker) return this.worker;
    if (!this.available()) return undefined;
    const w = new Worker(this.file);
    w.unref();
    w.on('message', (m: Out) => this.owner.message(m));
    const fail = (err: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.owner.failed(err);
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`${this.name} exited (${code})`)));
    this.worker = w;
    return w;
  }

  /** Posts to the running thread (nothing when there is none). */
  post(m: In, transfer?: readonly TransferListItem[]): void {
    this.worker?.postMessage(m, transfer);
  }

  /** Some work came back: with none out, the thread ends after the quiet spell. */
  settled(): void {
    if (this.owner.busy() || this.idle) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.owner.busy()) return;
      const w = this.worker;
      this.worker = undefined;
      void w?.terminate();
    }, this.idleMs);
    this.idle.unref();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
  }
}
