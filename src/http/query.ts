// Query and body parsing the way the engine parses them.
import type { Request } from 'express';
import { invalidParameter } from '../errors';

type Query = Record<string, unknown>;

function first(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return v === undefined ? undefined : String(v);
}

export function queryString(req: Request, name: string): string | undefined {
  return first(req.query as Query, name);
}

/** All values of a repeated query parameter (`names=a&names=b`). */
export function queryStrings(req: Request, name: string): string[] {
  const v = (req.query as Query)[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** Engine boolean rule (httputils.BoolValue): "", "0", "no", "false", "none" are false; anything else is true. */
export function queryBool(req: Request, name: string, dflt = false): boolean {
  const v = first(req.query as Query, name);
  return v === undefined ? dflt : boolValue(v);
}

/** A query value by the engine's boolean rule (queryBool). */
export function boolValue(v: string): boolean {
  const s = v.trim().toLowerCase();
  return !(s === '' || s === '0' || s === 'no' || s === 'false' || s === 'none');
}

/** Whether the parameter is present with a non-empty value (httputils.BoolValueOrDefault). */
export function queryHas(req: Request, name: string): boolean {
  const v = first(req.query as Query, name);
  return v !== undefined && v !== '';
}

export function queryInt(req: Request, name: string, dflt: number): number {
  const v = first(req.query as Query, name);
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n)) throw invalidParameter(`strconv.ParseInt: parsing "${v}": invalid syntax`);
  return n;
}

/** `filters` JSON (map of name → list, or the old name → {value: true} form). */
export function queryFilters(req: Request): Map<string, string[]> {
  const raw = first(req.query as Query, 'filters');
  const out = new Map<string, string[]>();
  if (!raw) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw invalidParameter(`invalid filter '${raw}'`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidParameter(`invalid filter '${raw}'`);
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    // the engine decodes map[string][]string: an object or a list as an element is an invalid filter
    if (Array.isArray(v)) {
      if (v.some((x) => x !== null && typeof x === 'object')) throw invalidParameter(`invalid filter '${raw}'`);
      out.set(k, v.map(String));
    }
    else if (v && typeof v === 'object') out.set(k, Object.keys(v as object).filter((x) => (v as Record<string, unknown>)[x]));
    else throw invalidParameter(`invalid filter '${raw}'`);
  }
  return out;
}

const MAX_JSON_BODY = 64 << 20;

export async function readBody(req: Request, limit = MAX_JSON_BODY): Promise<Buffer> {
  // a body already read (by the authorization middleware, to show it to the plugins) is handed over once
  const held = req as Request & { bufferedBody?: Buffer };
  if (held.bufferedBody) {
    const b = held.bufferedBody;
    held.bufferedBody = undefined;
    return b;
  }
  const hj = (req as Request & { hijackable?: { socket: import('node:net').Socket; head: Buffer } }).hijackable;
  if (hj) return readUpgradeBody(req, hj, limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw invalidParameter('request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * An upgrade request's body is not parsed by node: it sits at the start of the bytes read past the headers
 * (Content-Length of them, or chunks up to the last one); what follows is the client's stream (stdin), left in
 * `head`. dockerode sends its attach options as such a body.
 */
async function readUpgradeBody(req: Request, hj: { socket: import('node:net').Socket; head: Buffer }, limit: number): Promise<Buffer> {
  /**
   * Reads more of the socket into head; false at its end. Read through 'readable' (not 'data' and pause()): once the
   * listener is gone the socket is back in its initial mode, so the handler's later 'data' listener starts the flow.
   * An explicit pause() left it paused for good: a body that came in a read of its own (docker-py sends the head and
   * the body in two writes) left stdin unread, so detach keys and a TTY's input went unseen.
   */
  const more = () =>
    new Promise<boolean>((resolve) => {
      const onReadable = () => {
        const c = hj.socket.read() as Buffer | null;
        if (c === null) return;
        cleanup();
        hj.head = Buffer.concat([hj.head, c]);
        resolve(true);
      };
      const onEnd = () => {
        cleanup();
        resolve(false);
      };
      const cleanup = () => {
        hj.socket.off('readable', onReadable);
        hj.socket.off('end', onEnd);
      };
      hj.socket.on('readable', onReadable);
      hj.socket.on('end', onEnd);
    });
  if (/\bchunked\b/i.test(String(req.headers['transfer-encoding'] ?? ''))) return readChunkedHead(hj, more, limit);
  const len = Number(req.headers['content-length'] ?? 0);
  if (!len) return Buffer.alloc(0);
  if (len > limit) throw invalidParameter('request body too large');
  while (hj.head.length < len && (await more()));
  const body = hj.head.subarray(0, len);
  hj.head = hj.head.subarray(len);
  return body;
}

/** A chunked body at the start of `hj.head` (reading more as needed), removed from it; trailers are skipped. */
async function readChunkedHead(hj: { head: Buffer }, more: () => Promise<boolean>, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  const line = async (): Promise<string | undefined> => {
    for (;;) {
      const nl = hj.head.indexOf('\r\n');
      if (nl >= 0) {
        const text = hj.head.subarray(0, nl).toString('latin1');
        hj.head = hj.head.subarray(nl + 2);
        return text;
      }
      if (hj.head.length > 4096 || !(await more())) return undefined;
    }
  };
  for (;;) {
    const sizeLine = await line();
    if (sizeLine === undefined) throw invalidParameter('malformed chunked encoding');
    const n = parseInt(sizeLine.split(';')[0].trim(), 16);
    if (!Number.isFinite(n) || n < 0) throw invalidParameter('malformed chunked encoding');
    if (n === 0) {
      // trailers, up to an empty line
      for (let t = await line(); t !== undefined && t !== ''; t = await line());
      return Buffer.concat(parts);
    }
    size += n;
    if (size > limit) throw invalidParameter('request body too large');
    while (hj.head.length < n + 2) if (!(await more())) throw invalidParameter('malformed chunked encoding');
    parts.push(hj.head.subarray(0, n));
    hj.head = hj.head.subarray(n + 2);
  }
}

/**
 * Reads a JSON request body. Like the engine: a body with a non-JSON Content-Type is refused; an empty body is
 * `undefined` (the caller decides whether that is allowed); malformed JSON is a 400.
 */
export async function readJSON<T = unknown>(req: Request): Promise<T | undefined> {
  const body = await readBody(req);
  if (body.length === 0 || body.toString('utf8').trim() === '') return undefined;
  const ct = req.headers['content-type'];
  if (ct !== undefined && ct !== '') {
    const mt = ct.split(';')[0].trim().toLowerCase();
    if (mt !== 'application/json') throw invalidParameter(`Content-Type specified (${ct}) must be 'application/json'`);
  }
  const text = body.toString('utf8');
  const deep = tooDeep(text);
  if (deep) throw invalidParameter(deep);
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw invalidParameter(jsonErrorMessage(text, e));
  }
}

/** Go's decoder nests at most 10000 levels; deeper bodies get its message (a recursive walk of them would overflow). */
const MAX_JSON_DEPTH = 10000;

/** An iterative scan of the text's nesting (strings skipped): the message for a body nested too deep, else undefined. */
export function tooDeep(text: string, max = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return `invalid character '${text[i]}' exceeded max depth`;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

function jsonErrorMessage(text: string, e: unknown): string {
  const m = /position (\d+)/.exec(String((e as Error)?.message ?? ''));
  if (m) {
    const ch = text[Number(m[1])];
    if (ch !== undefined) return `invalid character '${ch}' looking for beginning of value`;
  }
  return 'unexpected end of JSON input';
}

/** A path parameter as one string (express types allow arrays for wildcard params). */
export function param(req: Request, name: string): string {
  const v = (req.params as Record<string, string | string[]>)[name];
  return Array.isArray(v) ? v.join('/') : (v ?? '');
}
