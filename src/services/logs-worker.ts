// The log reader thread: decodes json-file logs into the endpoint's byte stream off the main thread, so that a
// big or followed `logs` request and the capture of the container's output (on the main thread) run on two cores.
// Messages from the main thread: open (a LogSource: files the main thread opened, and closes at the run's end), ack (a chunk was written out), stop (the container stopped: read what is
// left, then end), abort (the client went away). To the main thread: data (a transferred buffer), end, error.
import { parentPort } from 'node:worker_threads';
import { streamLogs } from './logs';
import { nameThread } from '../runtime/thread-name';
import type { LogSource } from '../runtime/logfiles';
import { READ_CHUNK_MAX } from '../runtime/logread';
import type { LogReadOptions, LogStreamFormat } from '../types/logs';

export type ToWorker =
  | { type: 'open'; rid: number; src: LogSource; o: LogReadOptions; fmt: LogStreamFormat; follow: boolean }
  | { type: 'ack' | 'recycle'; rid: number; buf?: ArrayBuffer }
  | { type: 'stop' | 'abort'; rid: number };
export type FromWorker = { type: 'data'; rid: number; buf: ArrayBuffer; length: number } | { type: 'end'; rid: number } | { type: 'error'; rid: number; message: string };

/** Chunks handed over but not yet written out by the main thread: decoding runs one chunk ahead of the socket. */
const MAX_IN_FLIGHT = 2;
/** Output buffers (of OUT bytes) given back by the main thread once written out, reused for the next chunks. */
const OUT = READ_CHUNK_MAX;
const spare: ArrayBuffer[] = [];
const SPARE_MAX = MAX_IN_FLIGHT + 2;
/** A chunk's output buffer: a spare when one fits (a fresh megabyte each time cost its page faults and unmapping). */
function alloc(n: number): Buffer {
  if (n > OUT) return Buffer.allocUnsafeSlow(n);
  return Buffer.from(spare.pop() ?? Buffer.allocUnsafeSlow(OUT).buffer, 0, n);
}

interface Run {
  stop: () => void;
  ac: AbortController;
  inFlight: number;
  wake?: () => void;
}

const port = parentPort;
if (port) {
  nameThread('berth-logread');
  const runs = new Map<number, Run>();
  const post = (m: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
  port.on('message', (m: ToWorker) => {
    if (m.type === 'open') {
      let stop!: () => void;
      const stopped = new Promise<void>((r) => (stop = r));
      const run: Run = { stop, ac: new AbortController(), inFlight: 0 };
      runs.set(m.rid, run);
      // The source's files were opened by the main thread (fds are the process's): read here, closed there.
      streamLogs(
        { ...m.src, borrowed: true },
        m.o,
        m.fmt,
        async (b) => {
          if (run.ac.signal.aborted) return;
          // The chunk's own buffer is transferred, not copied (small ones may be views of a shared pool: copied).
          const ab = b.buffer as ArrayBuffer;
          const own = b.byteOffset === 0 && b.length > Buffer.poolSize; // larger than the pool: its own memory
          const buf = own ? ab : ab.slice(b.byteOffset, b.byteOffset + b.length);
          run.inFlight++;
          post({ type: 'data', rid: m.rid, buf, length: b.length }, [buf]);
          if (run.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => (run.wake = r));
        },
        m.follow ? { stopped, signal: run.ac.signal } : undefined,
        alloc,
      ).then(
        () => post({ type: 'end', rid: m.rid }),
        (err: Error) => post({ type: 'error', rid: m.rid, message: err.message }),
      ).finally(() => runs.delete(m.rid));
      return;
    }
    if ((m.type === 'ack' || m.type === 'recycle') && m.buf?.byteLength === OUT && spare.length < SPARE_MAX) spare.push(m.buf);
    if (m.type === 'recycle') return;
    const run = runs.get(m.rid);
    if (!run) return;
    if (m.type === 'ack') run.inFlight--;
    else if (m.type === 'stop') run.stop();
    else run.ac.abort();
    if (m.type !== 'stop' && run.inFlight < MAX_IN_FLIGHT) {
      run.wake?.();
      run.wake = undefined;
    }
  });
}
