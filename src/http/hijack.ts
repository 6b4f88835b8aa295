// Hijacking the connection for attach and exec start: answer 101 (when the client asked for `Upgrade: tcp`) or
// 200 with the raw-stream content type, then hand back the duplex socket.
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { Duplex } from 'node:stream';
import { asBerthError, STATUS_OF_KIND } from '../errors';
import type { ApiRequest } from './app';

export const RAW_STREAM = 'application/vnd.docker.raw-stream';

export interface Hijacked {
  /** Bytes the client sends (stdin) and bytes to send it. */
  stream: Duplex;
  /** Whether the connection was upgraded (101) and so carries stdin. */
  upgraded: boolean;
  /** Bytes the client sent after the request headers (already read from the socket). */
  head: Buffer;
}

/**
 * Takes over the connection. For an upgrade request the 101 is written straight on the socket (as the engine does,
 * with `Connection: Upgrade` and `Upgrade: tcp`); otherwise a 200 with no length is written through the response
 * and the stream is output-only.
 */
export function hijack(req: ApiRequest, res: Response, contentType = RAW_STREAM): Hijacked {
  req.hijacked = true;
  if (req.hijackable) {
    const { socket, head } = req.hijackable;
    const headers = [
      'HTTP/1.1 101 UPGRADED',
      `Content-Type: ${contentType}`,
      'Connection: Upgrade',
      'Upgrade: tcp',
      `Api-Version: ${res.getHeader('Api-Version') ?? ''}`,
      'Docker-Experimental: false',
      'Ostype: linux',
      `Server: ${res.getHeader('Server') ?? ''}`,
    ];
    socket.write(headers.join('\r\n') + '\r\n\r\n');
    socket.setNoDelay(true);
    socket.setTimeout(0);
    return { stream: socket, upgraded: true, head };
  }
  res.writeHead(200, { 'Content-Type': contentType });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  req.socket.setTimeout(0);
  // Output-only: without an upgrade the connection still belongs to the HTTP parser, so it carries no stdin.
  const out = new Duplex({
    write(chunk, _enc, cb) {
      res.write(chunk, cb);
    },
    final(cb) {
      res.end(cb);
    },
    read() {},
  });
  out.push(null);
  res.on('close', () => out.destroy());
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
}
