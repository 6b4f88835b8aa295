// Writers that answer exactly like the reference engine: JSON with no charset and a trailing newline, errors
// shaped per API version (JSON from 1.24, plain text before).
import type { Response } from 'express';
import type { ServerResponse } from 'node:http';
import { asBerthError, STATUS_OF_KIND } from '../errors';
import { supports, ApiVersion } from '../translate/version/features';

export function writeJSON(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  // (the text itself: node writes the head and a string body in one write, with no Buffer made for it)
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function writeText(res: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  const data = Buffer.from(text);
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': data.length });
  res.end(data);
}

export function writeNoContent(res: ServerResponse, status = 204): void {
  res.writeHead(status);
  res.end();
}

/** The error body the reference writes: {"message"} JSON from 1.24, text/plain before. 304 has no body. */
export function writeError(res: ServerResponse, err: unknown, version: ApiVersion): void {
  const e = asBerthError(err);
  const status = STATUS_OF_KIND[e.kind];
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status === 304) return writeNoContent(res, 304);
  if (supports(version, 'JsonErrors')) return writeJSON(res, status, { message: e.message });
  res.setHeader('X-Content-Type-Options', 'nosniff');
  writeText(res, status, e.message + '\n');
}

/** Streaming JSON (progress, events): chunked application/json, one object per write. */
export function startJSONStream(res: Response | ServerResponse, status = 200): (obj: unknown) => boolean {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  return (obj: unknown) => res.write(JSON.stringify(obj) + '\n');
}
