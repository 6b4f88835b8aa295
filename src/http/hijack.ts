// Hijacking the connection for attach and exec start: answer 101 (when the client asked for `Upgrade: tcp`) or
// 200 with the raw-stream content type, then hand back the duplex socket.
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { Duplex } from 'node:stream';
import { asBerthError, STATUS_OF_KIND } from '../errors';
import type { ApiRequest } from './app';
import { answerWritten } from './answer';

export const RAW_STREAM = 'application/vnd.docker.raw-stream';

export interface Hijacked {
  /** Bytes the client sends (stdin) and bytes to send it. */
  stream: Duplex;
  /** Whether the connection was upgraded (101) and so carries stdin. */
  upgraded: boolean;
  /** Bytes the client sent after the request headers (already read from the socket). */
  head: Buffer;
}

export interface HijackOptions {
  /**
   * Whether the answer carries the daemon's common headers (Api-Version, Docker-Experimental, Ostype, Server). The
   * reference sends them on exec start's answers but not on attach's, whose hijack comes before them.
   */
  commonHeaders?: boolean;
}

const COMMON = ['Api-Version', 'Docker-Experimental', 'Ostype', 'Server'];

/**
 * Takes over the connection, as the reference does: its answer is a bare status line and headers written on the
 * socket (no Date, no length, no chunked encoding), then the raw stream until the connection closes. For an upgrade
 * request it is 101 with `Connection: Upgrade` and `Upgrade: tcp`, and the connection carries stdin; otherwise 200,
 * and the stream is output-only (the connection still belongs to the HTTP parser).
 */
export function hijack(req: ApiRequest, res: Response, contentType = RAW_STREAM, opts: HijackOptions = {}): Hijacked {
  req.hijacked = true;
  const common = opts.commonHeaders ? COMMON.filter((h) => res.getHeader(h) !== undefined).map((h) => `${h}: ${String(res.getHeader(h))}`) : [];
  const status = req.hijackable ? ['HTTP/1.1 101 UPGRADED', `Content-Type: ${contentType}`, 'Connection: Upgrade', 'Upgrade: tcp'] : ['HTTP/1.1 200 OK', `Content-Type: ${contentType}`];
  const socket = req.hijackable?.socket ?? req.socket;
  socket.write([...status, ...common].join('\r\n') + '\r\n\r\n');
  answerWritten();
  socket.setNoDelay(true);
  socket.setTimeout(0);
  if (req.hijackable) return { stream: socket, upgraded: true, head: req.hijackable.head };
  const out = new Duplex({
    write(chunk, _enc, cb) {
      // A client that left: the socket's close destroys this stream; nothing to report to the writer.
      if (socket.destroyed) return cb();
      socket.write(chunk, () => cb());
    },
    final(cb) {
      // The end of the body is the end of the connection.
      socket.end(() => {
        socket.destroy();
        cb();
      });
    },
    read() {},
  });
  out.push(null);
  socket.once('close', () => out.destroy());
  return { stream: out, upgraded: false, head: Buffer.alloc(0) };
}

/**
 * Calls `fn` once the client has ended its side (stdin's EOF): at once when that already happened. A socket emits
 * 'end' when the EOF arrives if nothing is buffered, listener or not, so a half-close that came while the exec or
 * attach was starting would otherwise be missed (and a `cat` would wait for its EOF for ever).
 */
export function onClientEnd(stream: Duplex, fn: () => void): void {
  if (stream.readableEnded) queueMicrotask(fn);
  else stream.once('end', fn);
}

/**
 * An attach refused before its stream starts, as the reference answers it: it hijacks the connection first, so the
 * error is a bare status line with the raw-stream content type and no other header, the message and CRLF, at every
 * version and with or without `Upgrade`; then the connection closes.
 */
export function writeHijackedError(req: ApiRequest, err: unknown): void {
  const e = asBerthError(err);
  const status = STATUS_OF_KIND[e.kind];
  req.hijacked = true;
  const socket = req.hijackable?.socket ?? req.socket;
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${RAW_STREAM}\r\n\r\n${e.message}\r\n`);
  answerWritten();
}
