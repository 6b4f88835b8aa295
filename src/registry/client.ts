// berth's registry client over the OCI distribution protocol (Node's fetch): the /v2/ ping, anonymous, basic and
// bearer-token authentication (WWW-Authenticate realm/service/scope, tokens cached per scope), manifests with
// their digests, blobs (ranged, for resumed downloads), blob existence, cross-repository mounts, monolithic
// uploads, manifest puts and tag lists. A secure registry is spoken to over HTTPS with the host's CAs; an insecure one
// (daemon.json insecure-registries: its name, or a CIDR holding its address; 127.0.0.0/8 always) as the engine does:
// HTTPS without certificate verification first, then plain HTTP when that fails.
import * as dns from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { BerthError } from '../errors';
import type { Credentials } from '../types/registry';

export const MT = {
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerSchema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
};

const ACCEPT = [MT.dockerManifest, MT.dockerList, MT.ociManifest, MT.ociIndex, MT.dockerSchema1Signed, MT.dockerSchema1].join(', ');

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses a WWW-Authenticate header: `Bearer realm="…",service="…",scope="…"` or `Basic realm="…"`. */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (!header) return undefined;
  const m = /^\s*(\w+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  let p: RegExpExecArray | null;
  while ((p = re.exec(m[2]))) params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return { scheme: m[1].toLowerCase(), params };
}

/** An insecure-registries entry as the engine keeps it: without an http:// or https:// prefix. */
function stripScheme(r: string): string {
  return r.replace(/^https?:\/\//i, '');
}

/** A CIDR entry (`10.0.0.0/8`, `fd00::/8`) as address and prefix, else undefined (a host[:port] entry). */
function cidrOf(r: string): { addr: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const m = /^(.+)\/(\d{1,3})$/.exec(r);
  if (!m) return undefined;
  const fam = isIP(m[1]);
  const prefix = Number(m[2]);
  if (fam === 0 || prefix > (fam === 4 ? 32 : 128)) return undefined;
  return { addr: m[1], prefix, family: fam === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether the engine would treat the registry `host` (`name[:port]`, the index name) as secure: an insecure-registries
 * entry naming it exactly makes it insecure; else its addresses (an IP literal, or what the name resolves to) are
 * checked against the insecure CIDRs, 127.0.0.0/8 always among them. docker.io's index is always secure.
 */
export async function isSecureRegistry(host: string, insecure: string[] = [], lookup: (h: string) => Promise<string[]> = lookupAll): Promise<boolean> {
  if (host === 'docker.io' || host === 'index.docker.io' || host === 'registry-1.docker.io') return true;
  const entries = insecure.map(stripScheme);
  if (entries.includes(host)) return false;
  const cidrs = new BlockList();
  cidrs.addSubnet('127.0.0.0', 8, 'ipv4');
  for (const e of entries) {
    const c = cidrOf(e);
    if (c) cidrs.addSubnet(c.addr, c.prefix, c.family);
  }
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const addrs = isIP(name) ? [name] : await lookup(name).catch(() => [] as string[]);
  return !addrs.some((a) => cidrs.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4'));
}

async function lookupAll(name: string): Promise<string[]> {
  return (await dns.lookup(name, { all: true })).map((a) => a.address);
}

/** One way to reach a registry: a base URL, and the dispatcher that skips certificate checks for an insecure HTTPS one. */
interface Endpoint {
  base: string;
  dispatcher?: Dispatcher;
}

let skipVerify: Dispatcher | undefined;
/** One shared agent for HTTPS without certificate verification (insecure registries). */
function insecureAgent(): Dispatcher {
  // undici is loaded on the first use: required at start-up it cost ~5 MB of idle RSS (4 MB of heap)
  return (skipVerify ??= new (require('undici') as typeof import('undici')).Agent({ connect: { rejectUnauthorized: false } }));
}

export class RegistryError extends BerthError {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    // The engine answers registry failures with 500, except a manifest or repository that is not there (404).
    super(status === 404 ? 'NotFound' : 'System', message);
  }
}

export interface Manifest {
  bytes: Buffer;
  mediaType: string;
  digest: string;
}

export class RegistryClient {
  /** The endpoints to try, in order (decided at the first request); the first one that answers is kept. */
  private endpoints?: Promise<Endpoint[]>;
  private chosen?: Endpoint;
  private readonly tokens = new Map<string, string>();
  private challenge?: Challenge;
  /** The identity token a bearer realm handed out on login (refresh_token). */
  identityToken = '';

  constructor(
    readonly host: string,
    private readonly creds: Credentials = {},
    private readonly insecure: string[] = [],
    /** The scheme and host to speak to, when given (a mirror's URL); else from host. */
    base?: string,
  ) {
    if (base) this.chosen = { base };
  }

  /** The base URL in use: the endpoint that answered, else the first to try. */
  get base(): string {
    return this.chosen?.base ?? `https://${this.host}`;
  }

  /** The engine's endpoints: HTTPS for a secure registry; HTTPS without verification, then HTTP, for an insecure one. */
  private async resolveEndpoints(): Promise<Endpoint[]> {
    if (this.chosen) return [this.chosen];
    if (await isSecureRegistry(this.host, this.insecure)) return [{ base: `https://${this.host}` }];
    return [{ base: `https://${this.host}`, dispatcher: insecureAgent() }, { base: `http://${this.host}` }];
  }

  /**
   * A request to a path (on the registry's endpoint) or an absolute URL. Until an endpoint has answered, each is tried
   * in turn when the connection fails (TLS refused, a plain HTTP server, nothing listening), as the engine's pull and
   * push fall back from one endpoint to the next.
   */
  private async send(method: string, path: string, init: RequestInit = {}): Promise<Response> {
    if (path.startsWith('http')) {
      const u = new URL(path);
      const d = this.chosen?.dispatcher && u.host === this.host && u.protocol === 'https:' ? this.chosen.dispatcher : undefined;
      return this.raw(method, path, init, d);
    }
    if (this.chosen) return this.raw(method, this.chosen.base + path, init, this.chosen.dispatcher);
    const eps = await (this.endpoints ??= this.resolveEndpoints());
    // a streamed body cannot be sent twice: only the last endpoint gets it
    const replayable = init.body === undefined || init.body === null || typeof init.body === 'string' || Buffer.isBuffer(init.body);
    let lastErr: unknown;
    for (const [i, ep] of eps.entries()) {
      if (!replayable && i < eps.length - 1) continue;
      try {
        const res = await this.raw(method, ep.base + path, init, ep.dispatcher);
        this.chosen = ep;
        return res;
      } catch (err) {
        lastErr = err;
      }
    }
    throw lastErr;
  }

  private async raw(method: string, url: string, init: RequestInit = {}, dispatcher?: Dispatcher): Promise<Response> {
    try {
      return await fetch(url, { method, redirect: 'follow', ...init, ...(dispatcher ? { dispatcher } : {}) } as RequestInit);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const verb = method[0] + method.slice(1).toLowerCase();
      if (cause?.code === 'ECONNREFUSED') throw new RegistryError(`${verb} "${url}": dial tcp ${this.host}: connect: connection refused`, 500);
      throw new RegistryError(`${verb} "${url}": ${cause?.message ?? (err as Error).message}`, 500);
    }
  }

  /** A bearer token for a scope from the challenge's realm (with basic credentials when there are some). */
  private async token(scope: string): Promise<string> {
    if (this.creds.registrytoken) return this.creds.registrytoken;
    const hit = this.tokens.get(scope);
    if (hit) return hit;
    const c = this.challenge!.params;
    const u = new URL(c.realm);
    if (c.service) u.searchParams.set('service', c.service);
    if (scope) u.searchParams.set('scope', scope);
    const headers: Record<string, string> = {};
    let res: Response;
    if (this.creds.identitytoken) {
      const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: this.creds.identitytoken, service: c.service ?? '', scope, client_id: 'berth' });
      res = await this.send('POST', c.realm, { body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    } else {
      if (this.creds.username) headers.Authorization = 'Basic ' + Buffer.from(`${this.creds.username}:${this.creds.password ?? ''}`).toString('base64');
      if (this.creds.username) u.searchParams.set('account', this.creds.username);
      res = await this.send('GET', u.toString(), { headers });
    }
    if (!res.ok) throw new RegistryError(`Get "${u.origin}${u.pathname}": ${res.status === 401 ? 'unauthorized: incorrect username or password' : `token server answered ${res.status}`}`, res.status === 401 ? 401 : 500);
    const j = (await res.json()) as { token?: string; access_token?: string; refresh_token?: string };
    const t = j.token || j.access_token || '';
    if (j.refresh_token) this.identityToken = j.refresh_token;
    this.tokens.set(scope, t);
    return t;
  }

  private async authHeader(scope: string): Promise<string | undefined> {
    if (!this.challenge) return undefined;
    if (this.challenge.scheme === 'basic') {
      if (!this.creds.username) return undefined;
      return 'Basic ' + Buffer.from(`${this.creds.username}:${this.creds.password ?? ''}`).toString('base64');
    }
    if (this.challenge.scheme === 'bearer') return `Bearer ${await this.token(scope)}`;
    return undefined;
  }

  /** A request with authentication: on a 401 the challenge is read, and the request is sent once more. */
  async request(method: string, path: string, scope: string, init: RequestInit & { headers?: Record<string, string> } = {}, retry = true): Promise<Response> {
    const headers = { ...(init.headers ?? {}) };
    const auth = await this.authHeader(scope);
    if (auth) headers.Authorization = auth;
    const res = await this.send(method, path, { ...init, headers });
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    if (res.status === 401 && retry) {
      const ch = parseChallenge(res.headers.get('www-authenticate'));
      if (ch?.scheme === 'basic' && !this.creds.username) {
        await res.body?.cancel();
        throw new RegistryError(`${method[0] + method.slice(1).toLowerCase()} "${url}": no basic auth credentials`, 401);
      }
      if (ch && (ch.scheme === 'basic' || ch.scheme === 'bearer')) {
        const first = !this.challenge;
        this.challenge = ch;
        this.tokens.delete(scope);
        if (first || ch.scheme === 'bearer') {
          await res.body?.cancel();
          return this.request(method, path, scope, init, false);
        }
      }
    }
    return res;
  }

  /** The registry's error as the engine words it: "<code words>: <message>". */
  static async errorOf(res: Response, what: string): Promise<RegistryError> {
    let detail = '';
    let code = '';
    try {
      const j = (await res.json()) as { errors?: { code?: string; message?: string }[] };
      const e = j.errors?.[0];
      if (e) {
        code = e.code ?? '';
        detail = `${(e.code ?? '').toLowerCase().replace(/_/g, ' ')}: ${e.message ?? ''}`;
      }
    } catch {
      /* not JSON */
    }
    if (res.status === 401) return new RegistryError(`${what}: unauthorized: ${detail ? detail.replace(/^unauthorized: /, '') : 'authentication required'}`, 401, code);
    return new RegistryError(detail ? `${what}: ${detail}` : `${what}: ${res.status} ${res.statusText}`, res.status, code);
  }

  /** GET /v2/: reachability and credentials (POST /auth). */
  async ping(): Promise<void> {
    const res = await this.request('GET', '/v2/', '');
    await res.body?.cancel();
    if (res.status === 401) throw new RegistryError(`login attempt to ${this.base}/v2/ failed with status: 401 Unauthorized`, 401);
    if (!res.ok) throw new RegistryError(`login attempt to ${this.base}/v2/ failed with status: ${res.status} ${res.statusText}`, 500);
  }

  async getManifest(repo: string, ref: string, notFoundName: string): Promise<Manifest> {
    const res = await this.request('GET', `/v2/${repo}/manifests/${ref}`, `repository:${repo}:pull`, { headers: { Accept: ACCEPT } });
    if (res.status === 404) {
      const e = await RegistryClient.errorOf(res, `manifest for ${notFoundName} not found`);
      throw new RegistryError(e.message, 404);
    }
    if (!res.ok) throw await RegistryClient.errorOf(res, `error fetching manifest for ${notFoundName}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const ct = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    let mediaType = ct;
    try {
      const j = JSON.parse(bytes.toString('utf8'));
      if (j.mediaType) mediaType = j.mediaType;
      else if (!ct || ct === 'application/json') mediaType = j.manifests ? MT.ociIndex : j.schemaVersion === 1 ? MT.dockerSchema1 : MT.ociManifest;
    } catch {
      throw new RegistryError(`invalid manifest for ${notFoundName}`, 500);
    }
    const digest = 'sha256:' + (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    return { bytes, mediaType, digest };
  }

  /** A blob's bytes from an offset (Range), for Content.Write's resumable source. */
  async blob(repo: string, digest: string, offset = 0): Promise<Readable> {
    const headers: Record<string, string> = offset > 0 ? { Range: `bytes=${offset}-` } : {};
    const res = await this.request('GET', `/v2/${repo}/blobs/${digest}`, `repository:${repo}:pull`, { headers });
    if (!res.ok || !res.body) throw await RegistryClient.errorOf(res, `error pulling blob ${digest}`);
    if (offset > 0 && res.status !== 206) throw new RegistryError(`registry ignored the range request for ${digest}`, 500);
    return Readable.fromWeb(res.body as never);
  }

  async blobBytes(repo: string, digest: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of await this.blob(repo, digest)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async blobExists(repo: string, digest: string): Promise<boolean> {
    const res = await this.request('HEAD', `/v2/${repo}/blobs/${digest}`, `repository:${repo}:push,pull`);
    await res.body?.cancel();
    if (res.ok) return true;
    if (res.status === 404) return false;
    throw await RegistryClient.errorOf(res, `error checking blob ${digest}`);
  }

  /** Cross-repository mount; true when the registry mounted it. */
  async mountBlob(repo: string, digest: string, from: string): Promise<boolean> {
    const res = await this.request('POST', `/v2/${repo}/blobs/uploads/?mount=${encodeURIComponent(digest)}&from=${encodeURIComponent(from)}`, `repository:${repo}:push,pull repository:${from}:pull`);
    await res.body?.cancel();
    if (res.status === 201) return true;
    if (res.status === 202) {
      const loc = res.headers.get('location');
      if (loc) await this.request('DELETE', new URL(loc, this.base).toString(), `repository:${repo}:push,pull`).then((r) => r.body?.cancel()).catch(() => undefined);
    }
    return false;
  }

  /** A monolithic upload: POST for a session, PUT the bytes with the digest. */
  async uploadBlob(repo: string, digest: string, size: number, body: () => Readable, signal?: AbortSignal): Promise<void> {
    const scope = `repository:${repo}:push,pull`;
    const start = await this.request('POST', `/v2/${repo}/blobs/uploads/`, scope, { signal });
    await start.body?.cancel();
    if (start.status !== 202) throw await RegistryClient.errorOf(start, `error starting an upload of ${digest}`);
    const loc = new URL(start.headers.get('location') ?? '', this.base);
    loc.searchParams.set('digest', digest);
    const put = await this.request('PUT', loc.toString(), scope, {
      body: body() as never,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) },
      duplex: 'half',
      signal,
    } as RequestInit & { headers: Record<string, string> });
    await put.body?.cancel();
    if (put.status !== 201) throw await RegistryClient.errorOf(put, `error uploading ${digest}`);
  }

  async putManifest(repo: string, ref: string, m: { bytes: Buffer; mediaType: string }): Promise<string> {
    const res = await this.request('PUT', `/v2/${repo}/manifests/${ref}`, `repository:${repo}:push,pull`, { body: m.bytes, headers: { 'Content-Type': m.mediaType } });
    await res.body?.cancel();
    if (res.status !== 201) throw await RegistryClient.errorOf(res, `error putting the manifest for ${repo}:${ref}`);
    return res.headers.get('docker-content-digest') ?? '';
  }

  async tags(repo: string, notFoundName: string): Promise<string[]> {
    const res = await this.request('GET', `/v2/${repo}/tags/list`, `repository:${repo}:pull`);
    if (res.status === 404) throw new RegistryError(`repository ${notFoundName} not found: does not exist or no pull access`, 404);
    if (!res.ok) throw await RegistryClient.errorOf(res, `error listing tags of ${notFoundName}`);
    return ((await res.json()) as { tags?: string[] | null }).tags ?? [];
  }
}
