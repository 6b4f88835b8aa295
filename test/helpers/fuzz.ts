// A seeded generator of malformed Docker API requests (issue 19's robustness suite): every route family, version
// prefix, query and body shape — wrong JSON types, huge and negative numbers, deep nesting, object-key names,
// invalid UTF-8, truncated bodies, non-JSON content types — and malformed HTTP (bad chunked encoding, 70 KiB headers,
// garbage request lines, bodies shorter than their Content-Length). Sent raw over the unix socket, so the parser
// sees exactly these bytes. Routes that reach off this machine (search, auth, pull, push) are left out. Used by test/integration/fuzz.test.ts (a CI-sized run) and bench/fuzz.ts (10,000).
import * as net from 'node:net';

/** mulberry32: a small seeded PRNG, so a failing request can be replayed from its seed and index. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzRequest {
  kind: 'http' | 'raw';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** raw bytes sent as they are (malformed HTTP) */
  raw?: Buffer;
}

const VERSIONS = ['', '/v1.18', '/v1.19', '/v1.20', '/v1.21', '/v1.22', '/v1.23', '/v1.24', '/v1.17', '/v9.99', '/vabc', '/v1.24.1'];
const NAMES = ['fz1', 'nope', 'toString', '__proto__', 'constructor', '', 'a'.repeat(300), '../x', 'fz1/../fz1', '%00', 'UPPER', '-x', 'x:y', 'sha256:zz'];
const JUNK = ['', '-1', '-5', '0', '1e400', '99999999999999999999', 'NaN', 'true', 'null', '{', '[]', '{"a":1}', 'a'.repeat(5000), '\u0000', '%ff', '../../etc', '__proto__', 'toString'];

export class Fuzzer {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  /** A JSON value of a random type; `depth` bounds ordinary nesting (deep nesting is its own case). */
  value(depth = 0): unknown {
    const k = this.int(depth > 2 ? 9 : 12);
    switch (k) {
      case 0: return null;
      case 1: return this.r() < 0.5;
      case 2: return this.pick([0, -1, 1, 2 ** 53 + 1, -(2 ** 63), 1e308, 0.5, -0.0001, 4294967296]);
      case 3: return this.pick(JUNK);
      case 4: return this.pick(NAMES);
      case 5: return '';
      case 6: return { __proto__x: 1, constructor: 'x', toString: 2 };
      case 7: return JSON.parse('{"__proto__":{"polluted":1}}');
      case 8: return this.int(4) === 0 ? 'x'.repeat(100_000) : 'ok';
      case 9: return [this.value(depth + 1), this.value(depth + 1)];
      case 10: return { a: this.value(depth + 1), Name: this.value(depth + 1) };
      default: return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
    }
  }

  /** A template body with some fields replaced by random values, some dropped, some added. */
  mutate(template: Record<string, unknown>): unknown {
    const o: Record<string, unknown> = JSON.parse(JSON.stringify(template));
    const keys = Object.keys(o);
    const n = 1 + this.int(3);
    for (let i = 0; i < n; i++) {
      const op = this.int(4);
      if (op === 0 && keys.length) o[this.pick(keys)] = this.value();
      else if (op === 1 && keys.length) delete o[this.pick(keys)];
      else if (op === 2) o[this.pick(['HostConfig', 'Config', 'Labels', 'Env', 'Cmd', 'Volumes', 'NetworkingConfig', 'IPAM', 'Options', 'Memory', 'Binds', 'PortBindings', 'ExposedPorts'])] = this.value();
      else if (keys.length) {
        const k = this.pick(keys);
        const inner = o[k];
        if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
          const ik = Object.keys(inner as object);
          if (ik.length) (inner as Record<string, unknown>)[this.pick(ik)] = this.value();
        }
      }
    }
    return o;
  }

  body(template: Record<string, unknown> | undefined): { body?: Buffer; contentType?: string } {
    const k = this.int(12);
    if (k === 0) return {};
    if (k === 1) return { body: Buffer.from('{"Image":'), contentType: 'application/json' }; // truncated
    if (k === 2) return { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json' }; // invalid UTF-8
    if (k === 3) return { body: Buffer.from('['.repeat(20_000) + ']'.repeat(20_000)), contentType: 'application/json' };
    if (k === 4) return { body: Buffer.from(JSON.stringify(this.value())), contentType: 'application/json' };
    if (k === 5) return { body: Buffer.from(JSON.stringify(template ?? {})), contentType: this.pick(['text/plain', 'application/x-tar', 'application/json; charset=utf-8', '']) };
    if (k === 6) return { body: Buffer.from('{"a":'.repeat(200) + '1' + '}'.repeat(200)), contentType: 'application/json' };
    return { body: Buffer.from(JSON.stringify(template ? this.mutate(template) : this.value())), contentType: 'application/json' };
  }

  query(keys: string[]): string {
    const parts: string[] = [];
    for (const k of keys) if (this.r() < 0.5) parts.push(`${k}=${encodeURIComponent(String(this.pick([...JUNK, ...NAMES])))}`);
    if (this.r() < 0.2) parts.push(`filters=${encodeURIComponent(this.pick(['{', '[]', '{"label":["__proto__"]}', '{"name":{"x":true}}', '{"dangling":["maybe"]}', '{"status":["nope"]}', JSON.stringify({ [String(this.pick(NAMES))]: [this.value()] })]))}`);
    if (this.r() < 0.05) parts.push('a=%zz&&=&b');
    return parts.length ? '?' + parts.join('&') : '';
  }

  request(): FuzzRequest {
    const k = this.int(40);
    if (k === 0) return { kind: 'raw', method: 'GET', path: '/_ping', headers: {}, raw: Buffer.from('POST /v1.24/containers/create HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n') };
    if (k === 1) return { kind: 'raw', method: 'GET', path: '/_ping', headers: {}, raw: Buffer.from(`GET /v1.24/info HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`) };
    if (k === 2) return { kind: 'raw', method: 'GET', path: '/', headers: {}, raw: Buffer.from(this.pick(['GARBAGE\r\n\r\n', 'GET\r\n\r\n', 'GET /v1.24/info HTTP/9.9\r\n\r\n', '\x00\x01\x02\r\n\r\n'])) };
    if (k === 3) return { kind: 'raw', method: 'POST', path: '/', headers: {}, raw: Buffer.from('POST /v1.24/volumes/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"Name":') };
    const v = this.pick(VERSIONS);
    const name = encodeURIComponent(this.pick(NAMES));
    const routes: [string, string, string[], Record<string, unknown> | undefined][] = [
      ['POST', `/containers/create`, ['name'], { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none', Memory: 0, Binds: null }, Labels: { a: 'b' }, Env: ['A=1'] }],
      ['GET', `/containers/json`, ['all', 'limit', 'size', 'since', 'before'], undefined],
      ['GET', `/containers/${name}/json`, ['size'], undefined],
      ['GET', `/containers/${name}/top`, ['ps_args'], undefined],
      ['GET', `/containers/${name}/logs`, ['stdout', 'stderr', 'since', 'tail', 'timestamps'], undefined],
      ['GET', `/containers/${name}/changes`, [], undefined],
      ['POST', `/containers/${name}/update`, [], { Memory: 0, CpuShares: 2, RestartPolicy: { Name: 'no' } }],
      ['POST', `/containers/${name}/rename`, ['name'], undefined],
      ['POST', `/containers/${name}/kill`, ['signal'], undefined],
      ['POST', `/containers/${name}/stop`, ['t'], undefined],
      ['POST', `/containers/${name}/restart`, ['t'], undefined],
      ['POST', `/containers/${name}/pause`, [], undefined],
      ['POST', `/containers/${name}/resize`, ['h', 'w'], undefined],
      ['HEAD', `/containers/${name}/archive`, ['path'], undefined],
      ['GET', `/containers/${name}/archive`, ['path'], undefined],
      ['POST', `/containers/${name}/exec`, [], { Cmd: ['true'], AttachStdout: true }],
      ['DELETE', `/containers/${name}`, ['v', 'force', 'link'], undefined],
      ['GET', `/images/json`, ['all', 'filter', 'digests'], undefined],
      ['GET', `/images/${name}/json`, [], undefined],
      ['GET', `/images/${name}/history`, [], undefined],
      ['POST', `/images/${name}/tag`, ['repo', 'tag', 'force'], undefined],
      ['DELETE', `/images/${name}`, ['force', 'noprune'], undefined],
      ['POST', `/commit`, ['container', 'repo', 'tag', 'comment', 'author', 'pause', 'changes'], { Cmd: ['sh'], Labels: { a: 'b' } }],
      ['GET', `/networks`, [], undefined],
      ['GET', `/networks/${name}`, [], undefined],
      ['POST', `/networks/create`, [], { Name: this.pick(['fzn1', 'fzn2', '', 'bridge']), Driver: 'bridge', IPAM: { Config: [{ Subnet: '10.199.0.0/24', Gateway: '10.199.0.1' }] }, Labels: {} }],
      ['POST', `/networks/${name}/connect`, [], { Container: 'fz1', EndpointConfig: { Aliases: ['a'] } }],
      ['POST', `/networks/${name}/disconnect`, [], { Container: 'fz1', Force: false }],
      ['DELETE', `/networks/${this.pick(['fzn1', 'fzn2', 'nope', 'bridge'])}`, [], undefined],
      ['GET', `/volumes`, [], undefined],
      ['GET', `/volumes/${name}`, [], undefined],
      ['POST', `/volumes/create`, [], { Name: this.pick(['fzv1', 'fzv2', '', 'a/b']), Driver: 'local', DriverOpts: {}, Labels: {} }],
      ['DELETE', `/volumes/${this.pick(['fzv1', 'fzv2', 'nope'])}`, [], undefined],
      ['GET', `/info`, [], undefined],
      ['GET', `/version`, [], undefined],
      ['GET', `/_ping`, [], undefined],
      ['GET', `/events`, ['since', 'until', 'filters'], undefined],
      ['GET', `/exec/${name}/json`, [], undefined],
      ['POST', `/exec/${name}/resize`, ['h', 'w'], undefined],
      ['GET', `/nodes`, ['filters'], undefined],
      ['GET', `/swarm`, [], undefined],
      ['GET', `/no/such/route`, [], undefined],
    ];
    const [method, p, qkeys, template] = this.pick(routes);
    let query = this.query(qkeys);
    // /events without until would stream forever: always bounded
    if (p === '/events') query = (query ? query + '&' : '?') + 'until=1';
    const { body, contentType } = this.body(template);
    const headers: Record<string, string> = { Host: 'x' };
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    if (this.r() < 0.1) headers['X-Registry-Auth'] = this.pick(['!!!', 'e30=', Buffer.from('{"username":1}').toString('base64'), 'a'.repeat(2000)]);
    return { kind: 'http', method, path: v + p + query, headers, body };
  }
}

export interface Sent {
  status: number | 'closed';
  /** the start of the response (status line, headers, body) */
  text: string;
  ms: number;
}

/** Sends one request over a new connection; the status line's code, or 'closed' when the server closed first. */
export function send(socket: string, req: FuzzRequest, timeoutMs = 20_000): Promise<Sent> {
  const t0 = Date.now();
  let bytes: Buffer;
  if (req.raw) bytes = req.raw;
  else {
    const head = [`${req.method} ${req.path} HTTP/1.1`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`)];
    if (req.body) head.push(`Content-Length: ${req.body.length}`);
    head.push('Connection: close', '', '');
    bytes = Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), req.body ?? Buffer.alloc(0)]);
  }
  return new Promise((resolve) => {
    const s = net.connect(socket);
    let got = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      resolve({ status: m ? Number(m[1]) : 'closed', text: got.slice(0, 2000), ms: Date.now() - t0 });
    };
    const timer = setTimeout(finish, timeoutMs);
    s.on('error', finish);
    s.on('data', (d) => {
      if (got.length < 2000) got += d.toString('latin1');
    });
    s.on('close', finish);
    s.write(bytes);
    // a body shorter than its Content-Length: the client gives up after a moment
    if (req.raw && /Content-Length: 100\r\n/.test(req.raw.toString('latin1'))) setTimeout(() => s.end(), 100);
  });
}
