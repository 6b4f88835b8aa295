// The content facade (cookbook §4, §10): blobs by digest — Content.Write's STAT/WRITE/COMMIT protocol
// (ALREADY_EXISTS is success, the duplicate COMMIT reply ignored, Abort on failure), Content.Read into a buffer or a
// stream, a blob's size and labels read and set. Leases are in leases.ts.
import * as crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { Containerd, CallOpts } from './client';
import { fromGrpcError, isGrpcAlreadyExists } from './errors';

const CHUNK = 1 << 20;

export interface WriteOptions extends CallOpts {
  ref: string;
  expected: string; // sha256:...
  total: number;
  labels?: Record<string, string>;
}

/** A byte source that can start at an offset (a registry blob fetched with a Range header). */
export type ResumableSource = (offset: number) => Promise<Readable>;

/**
 * Writes a blob from a buffer, a byte stream or a resumable source; resolves when committed (or already present). A
 * buffer or a resumable source continues an interrupted ingest with the same ref from the offset the server holds;
 * a plain stream restarts it from 0.
 */
export function writeBlob(ctr: Containerd, data: Buffer | Readable | ResumableSource, o: WriteOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = ctr.raw.content.Write(ctr.metadata(o), ctr.callOptions(o));
    let done = false;
    let phase: 'stat' | 'write' | 'commit' = 'stat';
    let offset = 0;
    let unacked = 0;
    let sourceEnded = false;
    /** the stream being sent: destroyed when the write fails, so its file is closed at once (not at GC) */
    let source: Readable | undefined;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      if (err) {
        source?.destroy();
        call.cancel();
        if (isGrpcAlreadyExists(err)) return resolve();
        void ctr.content.Abort({ ref: o.ref }, { namespace: o.namespace }).catch(() => undefined);
        return reject(err);
      }
      call.end();
      resolve();
    };
    const commitIfDone = () => {
      if (!sourceEnded || unacked > 0 || phase !== 'write') return;
      phase = 'commit';
      call.write({ action: 'COMMIT', ref: o.ref, offset: String(offset), total: String(o.total), expected: o.expected, labels: o.labels ?? {} });
    };
    const send = (chunk: Buffer): boolean => {
      unacked++;
      const ok = call.write({ action: 'WRITE', ref: o.ref, offset: String(offset), data: chunk });
      offset += chunk.length;
      return ok;
    };
    const pump = (src: Readable) => {
      source = src;
      src.on('data', (chunk: Buffer) => {
        let ok = true;
        for (let i = 0; i < chunk.length; i += CHUNK) ok = send(chunk.subarray(i, i + CHUNK)) && ok;
        if (!ok) src.pause();
      });
      call.on('drain', () => src.resume());
      src.on('end', () => {
        sourceEnded = true;
        commitIfDone();
      });
      src.on('error', (err) => finish(err));
    };
    call.on('error', (err) => finish(fromGrpcError(err)));
    call.on('data', (resp: { offset: string }) => {
      if (phase === 'stat') {
        phase = 'write';
        const have = Number(resp.offset);
        if (Buffer.isBuffer(data)) {
          offset = have > 0 && have <= data.length ? have : 0;
          if (have > data.length) send(Buffer.alloc(0)); // offset 0: truncate a stale ingest
          pump(Readable.from(chunked(data.subarray(offset))));
        } else if (typeof data === 'function') {
          offset = have > 0 && have < o.total ? have : 0;
          if (have > 0 && offset === 0) send(Buffer.alloc(0));
          data(offset).then(pump, (err) => finish(err));
        } else {
          if (have > 0) send(Buffer.alloc(0)); // offset 0 truncates what a previous attempt left
          pump(data);
        }
        return;
      }
      if (phase === 'write') {
        unacked--;
        commitIfDone();
        return;
      }
      finish(); // the first COMMIT reply; the duplicate that follows is ignored
    });
    call.write({ action: 'STAT', ref: o.ref, total: String(o.total), expected: o.expected });
  });
}

function* chunked(b: Buffer): Generator<Buffer> {
  if (b.length === 0) return;
  for (let i = 0; i < b.length; i += CHUNK) yield b.subarray(i, i + CHUNK);
}

/** Reads a whole blob (manifests, configs: small). */
export function readBlob(ctr: Containerd, digest: string, o: CallOpts = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const call = ctr.raw.content.Read({ digest, offset: '0', size: '0' }, ctr.metadata(o));
    call.on('data', (m: { data: Buffer }) => chunks.push(Buffer.from(m.data)));
    call.on('error', (err) => reject(fromGrpcError(err)));
    call.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** A blob as a byte stream (layers for save/export/push). */
export function readBlobStream(ctr: Containerd, digest: string, o: CallOpts = {}): Readable {
  const call = ctr.raw.content.Read({ digest, offset: '0', size: '0' }, ctr.metadata(o));
  const out = new Readable({ read() { call.resume(); } });
  call.on('data', (m: { data: Buffer }) => {
    if (!out.push(Buffer.from(m.data))) call.pause();
  });
  call.on('error', (err) => out.destroy(fromGrpcError(err)));
  call.on('end', () => out.push(null));
  return out;
}

export function sha256Digest(b: Buffer | string): string {
  return 'sha256:' + crypto.createHash('sha256').update(b).digest('hex');
}

/** A blob's size and labels; throws (NotFound) when the store has no such blob. */
export async function info(ctr: Containerd, digest: string): Promise<{ size: number; labels: Record<string, string> }> {
  const i = (await ctr.content.Info({ digest })).info;
  return { size: Number(i?.size ?? 0), labels: i?.labels ?? {} };
}

/** Sets these labels on a blob (others are kept). */
export async function setLabels(ctr: Containerd, digest: string, labels: Record<string, string>, o: CallOpts = {}): Promise<void> {
  await ctr.content.Update({ info: { digest, labels }, update_mask: { paths: Object.keys(labels).map((k) => `labels.${k}`) } }, o);
}
