// Authorization plugins at the edge (docs/authz.md): each route's request is shown to the plugins before its handler
// runs and its answer after, as the engine's authz middleware does. The plugins themselves are an Authorizer passed
// in by the composition root (src/authz).
import type { Response } from 'express';
import type { TLSSocket } from 'node:tls';
import { asBerthError } from '../errors';
import type { Logger } from '../log';
import { firstHeaderValues, responseHeaderValues, sendsBody, sendsRequestBody } from '../translate/request/authz';
import type { Authorizer, AuthzRequest } from '../types/authz';
import type { ApiRequest } from './app';
import { readBody } from './query';
import { writeError } from './respond';

/** An authz refusal or failure, as the engine writes it: the version's error shape, none of the common headers. */
function writeAuthzError(res: Response, err: unknown, version: string): void {
  for (const h of res.getHeaderNames()) res.removeHeader(h);
  writeError(res, err, version);
}

/** The request's side of the plugins' view: who, what, the first header values and a JSON body that qualifies. */
async function requestView(req: ApiRequest): Promise<AuthzRequest> {
  const uri = req.originalUrl;
  const r: AuthzRequest = { RequestMethod: req.method, RequestUri: uri, RequestHeaders: firstHeaderValues(req.rawHeaders) };
  const sock = (req.hijackable?.socket ?? req.socket) as Partial<TLSSocket>;
  const peer = typeof sock.getPeerCertificate === 'function' ? sock.getPeerCertificate() : undefined;
  if (peer && peer.raw) {
    const cn = peer.subject?.CN;
    r.User = Array.isArray(cn) ? cn[0] : (cn ?? '');
    r.UserAuthNMethod = 'TLS';
    r.RequestPeerCertificates = [peer.raw];
  }
  if (sendsRequestBody(uri, req.headers['content-type'], req.headers['content-length'])) {
    const body = await readBody(req);
    (req as ApiRequest & { bufferedBody?: Buffer }).bufferedBody = body;
    r.RequestBody = body;
  }
  return r;
}

type Mode = 'pending' | 'held' | 'passing';

/**
 * Runs `handler` between the two authorization steps. An answer that declares its length (or has none: 204, 304,
 * HEAD, or ends before any write) is held until the plugins allow it, and replaced by their refusal; an answer that
 * starts without a length is a stream (events, logs, progress, archives): it passes at once, as does a hijacked
 * connection, and the plugins are asked when it ends (a refusal is logged: it can change nothing any more).
 * A handler's error is thrown on after the plugins were asked (with no status; their verdict ignored, as the engine's).
 */
export async function runAuthorized(authz: Authorizer, req: ApiRequest, res: Response, handler: () => Promise<void> | void, logger?: Logger): Promise<void> {
  let view: AuthzRequest;
  try {
    view = await requestView(req);
    await authz.authorizeRequest(view);
  } catch (err) {
    if (!(err as { kind?: string })?.kind) throw err;
    return writeAuthzError(res, err, req.apiVersion);
  }

  const chunks: Buffer[] = [];
  let mode = 'pending' as Mode;
  let ended: (() => void) | undefined;
  const endedP = new Promise<void>((resolve) => (ended = resolve));
  const toBuf = (c: unknown, enc?: unknown): Buffer => (Buffer.isBuffer(c) ? c : typeof c === 'string' ? Buffer.from(c, typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8') : Buffer.from(c as Uint8Array));
  const restore = () => {
    const r = res as unknown as Record<string, unknown>;
    delete r.writeHead;
    delete r.write;
    delete r.end;
  };
  const pass = () => {
    mode = 'passing';
    restore();
    res.writeHead(res.statusCode);
  };
  const isStream = (status: number) => res.getHeader('content-length') === undefined && status !== 204 && status !== 304 && req.method !== 'HEAD';
  const held = res as unknown as {
    writeHead: (...a: unknown[]) => Response;
    write: (...a: unknown[]) => boolean;
    end: (...a: unknown[]) => Response;
  };
  held.writeHead = (status: unknown, a?: unknown, b?: unknown) => {
    const headers = typeof a === 'string' ? b : a;
    if (typeof a === 'string') res.statusMessage = a;
    res.statusCode = status as number;
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) for (const [k, v] of Object.entries(headers)) if (v !== undefined) res.setHeader(k, v as string);
    if (isStream(res.statusCode)) pass();
    else mode = 'held';
    return res;
  };
  held.write = (chunk: unknown, enc?: unknown, cb?: unknown) => {
    if (mode === 'pending' && isStream(res.statusCode)) {
      pass();
      return (res.write as (...a: unknown[]) => boolean)(chunk, enc, cb);
    }
    mode = 'held';
    chunks.push(toBuf(chunk, enc));
    const done = typeof enc === 'function' ? enc : cb;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  };
  held.end = (chunk?: unknown, enc?: unknown, cb?: unknown) => {
    const done = [chunk, enc, cb].find((x) => typeof x === 'function');
    if (done) res.once('finish', done as () => void);
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuf(chunk, enc));
    mode = 'held';
    ended?.();
    return res;
  };

  let handlerError: unknown;
  try {
    await handler();
  } catch (err) {
    handlerError = err;
  }

  if (req.hijacked || mode === 'passing') {
    restore();
    if (handlerError !== undefined) throw handlerError;
    // the stream's end: ask, and log a refusal that can no longer change the answer
    const socket = req.hijackable?.socket ?? req.socket;
    const closed = req.hijacked ? new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r()))) : new Promise<void>((r) => (res.writableFinished || res.destroyed ? r() : res.once('close', () => r())));
    void closed
      .then(() => authz.authorizeResponse({ ...view, ResponseHeaders: req.hijacked ? undefined : responseHeaderValues(res.getHeaders()) }))
      .catch((err) => logger?.warn('authorization plugin refused a response already sent', { method: req.method, uri: view.RequestUri, err: String((err as Error)?.message ?? err) }));
    return;
  }

  if (handlerError !== undefined) {
    // the engine asks with no status and no body, and the handler's error is the answer whatever the plugins say
    restore();
    await authz.authorizeResponse({ ...view, ResponseHeaders: responseHeaderValues(res.getHeaders()) }).catch(() => undefined);
    throw handlerError;
  }

  // a handler that returned before its answer ended: wait for the end (or the client's leaving)
  await Promise.race([endedP, new Promise<void>((r) => (res.destroyed ? r() : res.once('close', () => r())))]);
  restore();
  if (res.destroyed) return;
  const body = Buffer.concat(chunks);
  const headers = responseHeaderValues(res.getHeaders());
  try {
    await authz.authorizeResponse({
      ...view,
      ResponseStatusCode: res.statusCode,
      ResponseHeaders: headers,
      ResponseBody: sendsBody(view.RequestUri, String(res.getHeader('content-type') ?? '')) ? body : undefined,
    });
  } catch (err) {
    return writeAuthzError(res, asBerthError(err), req.apiVersion);
  }
  res.writeHead(res.statusCode);
  res.end(body);
}
