// The plugin protocol's client: JSON over HTTP/1.1 on a unix socket or TCP, as the engine's plugin client speaks
// it. A failed connection is retried with back-off (1, 2, 4, 8 s ...) while the next wait ends within 30 s of the
// first attempt; an answer other than 200 is an error carrying the body's `Err` (or the body); every call has a
// deadline. Messages are the engine's (Go's net/http wording), since clients see them.
import * as http from 'node:http';
import { systemError } from '../errors';

const CONTENT_TYPE = 'application/vnd.docker.plugins.v1.2+json';

/** The engine's plugin timings; tests shorten them (Config.pluginTimings). */
export interface PluginTimings {
  /** failed connections are retried while the next wait ends within this of the first attempt */
  retryWindowMs: number;
  /** deadline of volume changes (Create/Remove/Mount/Unmount) and of activation */
  longMs: number;
  /** deadline of volume reads (Path/Get/List/Capabilities) */
  shortMs: number;
}

export const ENGINE_TIMINGS: PluginTimings = { retryWindowMs: 30_000, longMs: 2 * 60_000, shortMs: 60_000 };

export interface PluginAddress {
  /** `unix` path or `tcp` host:port */
  network: 'unix' | 'tcp';
  address: string;
}

export interface CallOptions {
  /** the request's deadline: the timings' long or short one */
  timeout: 'long' | 'short';
  /** retry failed connections (the engine retries; a managed plugin's first call after enable does too) */
  retry?: boolean;
}

/** An error answer of a plugin (non-200), `Err` as its message. */
export class PluginCallError extends Error {
  constructor(readonly status: number, readonly method: string, readonly remote: string) {
    super(`${method}: ${remote}`);
  }
}

/** Back-off before retry n (0-based): 1 s doubling, at most 30 s. */
export function backoffMs(retries: number): number {
  let b = 1;
  while (b < 30 && retries > 0) {
    b *= 2;
    retries--;
  }
  return Math.min(b, 30) * 1000;
}

export class PluginClient {
  constructor(
    readonly addr: PluginAddress,
    readonly timings: PluginTimings = ENGINE_TIMINGS,
  ) {}

  /** The URL Go prints for a request (the socket path escaped as the host). */
  url(method: string): string {
    const host = this.addr.network === 'unix' ? encodeURIComponent(this.addr.address) : this.addr.address;
    return `http://${host}/${method}`;
  }

  private dialError(err: NodeJS.ErrnoException): string {
    const what = this.addr.network === 'unix' ? `dial unix ${this.addr.address}` : `dial tcp ${this.addr.address}`;
    const reason = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'ECONNREFUSED' ? 'connection refused' : err.code === 'EACCES' ? 'permission denied' : err.message;
    return `${what}: connect: ${reason}`;
  }

  private once(method: string, body: Buffer, deadline: number): Promise<{ status: number; body: Buffer } | { dialError: string }> {
    return new Promise((resolve, reject) => {
      const base = this.addr.network === 'unix' ? { socketPath: this.addr.address } : { host: this.addr.address.replace(/:\d+$/, ''), port: Number(/:(\d+)$/.exec(this.addr.address)?.[1] ?? 80) };
      let connected = false;
      const req = http.request({ ...base, method: 'POST', path: `/${method}`, agent: false, headers: { Accept: CONTENT_TYPE, 'Content-Type': CONTENT_TYPE, 'Content-Length': body.length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(systemError(`Post "${this.url(method)}": ${err.message}`));
        });
      });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('deadline'), { code: 'BERTH_DEADLINE' })), Math.max(0, deadline - Date.now()));
      req.on('socket', (s) => s.on('connect', () => (connected = true)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (err.code === 'BERTH_DEADLINE') reject(systemError(`Post "${this.url(method)}": context deadline exceeded`));
        else if (!connected) resolve({ dialError: this.dialError(err) });
        else reject(systemError(`Post "${this.url(method)}": ${err.code === 'ECONNRESET' ? 'EOF' : err.message}`));
      });
      req.end(body);
    });
  }

  /** POSTs `args` to /method; the answer's bytes on 200. */
  async callRaw(method: string, args: unknown, o: CallOptions): Promise<Buffer> {
    const body = Buffer.from(JSON.stringify(args ?? {}) + '\n');
    const start = Date.now();
    const deadline = start + (o.timeout === 'long' ? this.timings.longMs : this.timings.shortMs);
    for (let retries = 0; ; retries++) {
      const r = await this.once(method, body, deadline);
      if ('dialError' in r) {
        const wait = Math.min(backoffMs(retries), this.timings.retryWindowMs);
        const msg = `Post "${this.url(method)}": ${r.dialError}`;
        if (!o.retry || Date.now() - start + wait >= this.timings.retryWindowMs || Date.now() + wait >= deadline) throw systemError(msg);
        await new Promise((res) => setTimeout(res, wait));
        continue;
      }
      if (r.status !== 200) {
        let remote = r.body.toString('utf8');
        try {
          const e = JSON.parse(remote) as { Err?: string };
          if (e && typeof e.Err === 'string' && e.Err) remote = e.Err;
        } catch {
          /* the body as it is */
        }
        throw new PluginCallError(r.status, method, remote);
      }
      return r.body;
    }
  }

  /** POSTs and decodes the JSON answer (Go's decoder messages for bytes that are not JSON). */
  async call<T>(method: string, args: unknown, o: CallOptions): Promise<T> {
    const raw = await this.callRaw(method, args, o);
    return decodeJSON<T>(raw);
  }
}

/** JSON.parse with the message Go's encoding/json gives for the commonest garbage (what the reference reports). */
export function decodeJSON<T>(raw: Buffer): T {
  const s = raw.toString('utf8');
  try {
    return JSON.parse(s) as T;
  } catch {
    throw systemError(goJSONError(s));
  }
}

/** Go's json.Decoder error for text that is not JSON: the first offending character, quoted as Go quotes it. */
export function goJSONError(s: string): string {
  const q = (c: string) => (c === "'" ? "'\\''" : `'${c}'`);
  let i = 0;
  while (i < s.length && ' \t\r\n'.includes(s[i])) i++;
  if (i >= s.length) return 'EOF';
  const lits: Record<string, string> = { t: 'true', f: 'false', n: 'null' };
  const lit = lits[s[i]];
  if (lit) {
    for (let k = 1; k < lit.length; k++) {
      if (i + k >= s.length) return 'unexpected EOF';
      if (s[i + k] !== lit[k]) return `invalid character ${q(s[i + k])} in literal ${lit} (expecting ${q(lit[k])})`;
    }
    return `invalid character ${q(s[i + lit.length] ?? '')} after top-level value`;
  }
  if (!'{["-0123456789'.includes(s[i])) return `invalid character ${q(s[i])} looking for beginning of value`;
  return 'unexpected EOF';
}
