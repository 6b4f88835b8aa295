// The express app: version prefix handling, the reference's common headers, route registration, one error writer,
// and the reference's 404 for unknown routes. Connections that ask for `Upgrade:` (attach, exec start, websocket)
// are fed through the same app with their raw socket available for hijacking (see server.ts and hijack.ts).
import express = require('express');
import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidParameter } from '../errors';
import { compareVersions, DEFAULT_API_VERSION, MAX_API_VERSION, MIN_API_VERSION } from '../translate/version/features';
import { writeError, writeJSON } from './respond';
import type { Logger } from '../log';
import { ConcurrencyGate, ConcurrencyLimits, DEFAULT_CONCURRENCY } from './limit';
import type { Authorizer } from '../types/authz';
import { runAuthorized } from './authz';
import { withAnswerHold } from './answer';
import { parsesForm, readFormBody, wantsFormBody } from './form';
import { goQuery } from '../translate/request/query';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'head';

export interface ApiRequest extends Request {
  apiVersion: string;
  /** Set for requests that arrived as an HTTP upgrade: the raw socket and any bytes read past the headers. */
  hijackable?: { socket: Socket; head: Buffer };
  /** Set by hijack(): the app must not touch the response any more. */
  hijacked?: boolean;
  /** Go's ParseForm error for the query (translate/request/query.ts), answered on the routes that parse it (form.ts). */
  formError?: string;
}

export type Handler = (req: ApiRequest, res: Response) => Promise<void> | void;

export interface Route {
  method: Method;
  /** express path ("/containers/:id/json") or a RegExp with named groups for names containing "/". */
  path: string | RegExp;
  handler: Handler;
  /** The same route's lean path (see LeanRoute): taken before express for the plain form of the request. */
  lean?: LeanRoute;
  /**
   * The handling publishes no event, so it takes no answer hold (src/http/answer.ts): a request that stays open
   * until something happens (POST /containers/{id}/wait, for a whole `docker run`) would otherwise keep node's
   * promise hooks on for every promise in the process while it waits.
   */
  publishesNothing?: true;
}

/**
 * A route answered without express, its middleware or an answer hold, for the requests a client sends by the
 * thousand at once (`docker stats` of 1,000 containers opens a connection for each, an inspect of many containers
 * one each) or over and over (`/_ping`, a health probe): its route's method (GET or HEAD), a version prefix in range
 * or none (the default version, as express's path takes it), a clean path matching `path` (after the prefix), no
 * query but `name=value` pairs of the listed names (no escapes, each at most once), no CORS header, no authorization
 * plugin, no upgrade. Everything else goes through express and the route's handler as before; the answer must be
 * the same either way. A lean route publishes no events (nothing is held behind its answer).
 */
export interface LeanRoute {
  /** The path after the version prefix; its groups are the parameters (URI-decoded). */
  path: RegExp;
  /** The query parameters it takes. */
  query: readonly string[];
  handler: (req: ApiRequest, res: ServerResponse, params: string[], query: Record<string, string | undefined>) => Promise<void> | void;
}

export interface AppOptions {
  routes: Route[];
  serverVersion: string;
  corsHeader?: string;
  logger?: Logger;
  /** Bounded concurrency of the expensive routes (limit.ts). */
  concurrency?: ConcurrencyLimits;
  /** Authorization plugins (docs/authz.md): asked around every route's handler while enabled. */
  authorizer?: Authorizer;
  /** Told of each route's handling as it starts (the daemon's close() waits for what is under way). */
  track?: (handling: Promise<void>) => void;
}

const COMMON_HEADER_NAMES = ['Api-Version', 'Docker-Experimental', 'Ostype', 'Server'];

/**
 * The reference's answer for an unknown route: 404 {"message":"page not found"} with none of the common headers.
 * Also what a route answers at an API version that does not have it yet.
 */
export function writePageNotFound(res: Response): void {
  for (const k of COMMON_HEADER_NAMES) res.removeHeader(k);
  writeJSON(res, 404, { message: 'page not found' });
}

/** Go's path.Clean for a request path (a trailing slash kept, as ServeMux keeps it). */
export function cleanPath(p: string): string {
  if (!/\/\/|\/\.\.?(\/|$)/.test(p)) return p;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  let clean = '/' + out.join('/');
  if (p.endsWith('/') && clean !== '/') clean += '/';
  return clean;
}

const VERSION_PREFIX = /^\/v([0-9.]+)(\/.*)?$/;
/** A % not followed by two hex digits (Go's url.Parse refuses the request). */
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

export function createApp(opts: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'extended');

  const commonHeaders: Record<string, string> = {
    'Api-Version': MAX_API_VERSION,
    'Docker-Experimental': 'false',
    Ostype: 'linux',
    Server: `berth/${opts.serverVersion} (linux)`,
  };

  // Like Go's server in front of the engine: a path with an invalid %-escape is not a request it hands on; it answers
  // a bare 400 and closes the connection (the query is kept raw: its escapes are the handler's business).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    if (!BAD_ESCAPE.test(q < 0 ? req.url : req.url.slice(0, q))) return next();
    // (no length and no chunks: the body ends where the connection does, as Go writes it)
    res.useChunkedEncodingByDefault = false;
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
    res.end('400 Bad Request');
  });

  if (opts.corsHeader) {
    const origin = opts.corsHeader;
    app.use((req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Headers', 'Origin, X-Requested-With, Content-Type, Accept, X-Registry-Auth');
      res.setHeader('Access-Control-Allow-Methods', 'HEAD, GET, POST, DELETE, PUT, OPTIONS');
      if (req.method === 'OPTIONS') {
        res.writeHead(200);
        res.end();
        return;
      }
      next();
    });
  }

  // Like Go's ServeMux in front of the engine: a path that is not clean (`//`, `.` or `..` segments) is answered
  // with a 301 to its clean form (docker-py asks to remove the link `/parent/alias` as `/containers//parent/alias`).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const pathname = q < 0 ? req.url : req.url.slice(0, q);
    const clean = cleanPath(pathname);
    if (clean === pathname) return next();
    res.writeHead(301, { Location: clean + (q < 0 ? '' : req.url.slice(q)), 'Content-Length': '0' });
    res.end();
  });

  // Version prefix: /v1.24/containers/json → apiVersion 1.24, url /containers/json.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const r = req as ApiRequest;
    const q = req.url.indexOf('?');
    const pathname = q < 0 ? req.url : req.url.slice(0, q);
    const m = VERSION_PREFIX.exec(pathname);
    if (!m) {
      r.apiVersion = DEFAULT_API_VERSION;
      return next();
    }
    const v = m[1];
    r.apiVersion = v;
    req.url = (m[2] ?? '/') + (q < 0 ? '' : req.url.slice(q));
    for (const [k, val] of Object.entries(commonHeaders)) res.setHeader(k, val);
    if (!/^[0-9]+\.[0-9]+$/.test(v)) return writeError(res, invalidParameter(`invalid API version ${v}`), DEFAULT_API_VERSION);
    if (compareVersions(v, MIN_API_VERSION) < 0)
      return writeError(
        res,
        invalidParameter(`client version ${v} is too old. Minimum supported API version is ${MIN_API_VERSION}, please upgrade your client to a newer version`),
        v,
      );
    if (compareVersions(v, MAX_API_VERSION) > 0)
      return writeError(res, invalidParameter(`client version ${v} is too new. Maximum supported API version is ${MAX_API_VERSION}`), v);
    next();
  });

  // The query as the engine's Go reads it: the pairs Go drops (an invalid %-escape, a ';') are left out of req.query,
  // and ParseForm's error is kept for the routes whose handler answers it (form.ts).
  const parseQuery = app.get('query parser fn') as (s: string) => unknown;
  // On those routes a urlencoded POST body is part of the form as well, its values ahead of the query's.
  const setQuery = (req: Request, kept: string) =>
    Object.defineProperty(req, 'query', { value: parseQuery(kept), writable: true, configurable: true, enumerable: true });
  app.use((req: Request, res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const raw = q < 0 ? '' : req.url.slice(q + 1);
    const r = req as ApiRequest;
    if (!r.hijackable && wantsFormBody(req.method, req.headers) && parsesForm(req.method, req.path)) {
      readFormBody(req).then(({ bytes, tooLarge }) => {
        // (the bytes are still the handler's to read, once, as after the authorization plugins' look)
        (req as Request & { bufferedBody?: Buffer }).bufferedBody = bytes;
        // (Go stops reading such a body, answers, and closes the connection)
        if (tooLarge) res.setHeader('Connection', 'close');
        const post = tooLarge ? { kept: '', error: 'http: POST too large' } : goQuery(bytes.toString('utf8'));
        const g = goQuery(raw);
        const error = post.error ?? g.error;
        if (error) r.formError = error;
        setQuery(req, [post.kept, g.kept].filter((s) => s !== '').join('&'));
        next();
      }, next);
      return;
    }
    if (q < 0) return next();
    const g = goQuery(raw);
    if (g.error) {
      r.formError = g.error;
      setQuery(req, g.kept);
    }
    next();
  });

  const gate = new ConcurrencyGate(opts.concurrency ?? DEFAULT_CONCURRENCY);
  app.use(gate.middleware((res, err, req) => writeError(res, err, (req as ApiRequest).apiVersion)));

  for (const route of opts.routes) {
    const handle = async (req: Request, res: Response): Promise<void> => {
      const r = req as ApiRequest;
      for (const [k, val] of Object.entries(commonHeaders)) res.setHeader(k, val);
      try {
        // (as the engine's handler: its ParseForm comes after the authorization plugin's say)
        const run = () => (r.formError && parsesForm(req.method, req.path) ? Promise.reject(invalidParameter(r.formError)) : route.handler(r, res));
        if (opts.authorizer?.enabled()) await runAuthorized(opts.authorizer, r, res, run, opts.logger);
        else await run();
      } catch (err) {
        if (r.hijacked) {
          opts.logger?.debug('error after hijack', { err: String(err), path: req.path });
          (r.hijackable?.socket ?? req.socket).destroy();
          return;
        }
        failRequest(res, err, r.apiVersion, opts.logger, req.method, req.path);
      }
    };
    app[route.method](route.path as string, (req: Request, res: Response) => {
      // What the handling publishes reaches /events subscribers after this answer (answer.ts).
      const handling = route.publishesNothing ? handle(req, res) : withAnswerHold(res, () => handle(req, res));
      opts.track?.(handling);
      return handling;
    });
  }

  app.use((_req: Request, res: Response) => writePageNotFound(res));
  // What express itself fails on (none is known: this is the last guard) answers in the engine's shape, never
  // express's HTML page with a stack.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // (a 4xx of express's is the client's mistake: answered as one, not logged as berth's failure)
    const status = (err as { status?: unknown })?.status;
    const e = typeof status === 'number' && status >= 400 && status < 500 ? invalidParameter(String((err as Error)?.message ?? err)) : err;
    failRequest(res, e, (req as ApiRequest).apiVersion ?? DEFAULT_API_VERSION, opts.logger, req.method, req.path);
  });

  // The lean routes (LeanRoute) are tried before express's own handling of each request.
  const leanRoutes = opts.routes.filter((r) => r.lean && (r.method === 'get' || r.method === 'head')).map((r) => ({ method: r.method.toUpperCase(), lean: r.lean! }));
  if (leanRoutes.length && !opts.corsHeader) {
    const commonHeaderList = Object.entries(commonHeaders);
    // (express's app(req, res) calls app.handle: a lean route is tried first)
    type Handle = (req: IncomingMessage, res: ServerResponse, next?: unknown) => void;
    const expressApp = app as unknown as { handle: Handle };
    const handleExpress = expressApp.handle.bind(app);
    const lean = (req: IncomingMessage, res: ServerResponse): boolean => {
      const found = matchLean(leanRoutes, req);
      if (!found || opts.authorizer?.enabled()) return false;
      const r = req as ApiRequest;
      r.apiVersion = found.version;
      for (const [k, val] of commonHeaderList) res.setHeader(k, val);
      const fail = (err: unknown) => failRequest(res, err, found.version, opts.logger, req.method, req.url);
      let handling: Promise<void>;
      try {
        handling = Promise.resolve(found.route.handler(r, res, found.params, found.query)).catch(fail);
      } catch (err) {
        fail(err);
        handling = Promise.resolve();
      }
      opts.track?.(handling);
      return true;
    };
    expressApp.handle = (req, res, next) => {
      if ((req as ApiRequest).hijackable || !lean(req, res)) handleExpress(req, res, next);
    };
  }
  return app;
}

/**
 * Answers an error a handler threw (or express met) in the engine's shape. It is logged when it is not one of
 * berth's own error kinds (a bug, not the client's mistake) or when the answer's head was already out.
 */
function failRequest(res: ServerResponse, err: unknown, version: string, logger: Logger | undefined, method: string | undefined, path: string | undefined): void {
  if (res.headersSent || !(err as { kind?: string })?.kind) logger?.error('handler failed', { method, path, err: String((err as Error)?.stack ?? err) });
  writeError(res, err, version);
}

const LEAN_URL = /^(?:\/v([0-9]+\.[0-9]+))?(\/[^?]*)(?:\?(.*))?$/;
const LEAN_QUERY_PAIR = /^([A-Za-z0-9_.-]+)=([^%+[\];]*)$/;

/** The lean route a request takes, with its version, parameters and query; undefined: express answers it. */
function matchLean(routes: { method: string; lean: LeanRoute }[], req: IncomingMessage): { route: LeanRoute; version: string; params: string[]; query: Record<string, string | undefined> } | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const u = LEAN_URL.exec(req.url ?? '');
  if (!u) return undefined;
  const [, prefixed, pathname, search] = u;
  // (unversioned: express's path takes the default version, and a path that only looks like a bad prefix to it, say
  // /v1.x/…, is no lean route's)
  const version = prefixed ?? DEFAULT_API_VERSION;
  if (prefixed === undefined ? pathname.startsWith('/v') : compareVersions(version, MIN_API_VERSION) < 0 || compareVersions(version, MAX_API_VERSION) > 0) return undefined;
  if (cleanPath(pathname) !== pathname) return undefined;
  for (const { method, lean: route } of routes) {
    if (method !== req.method) continue;
    const m = route.path.exec(pathname);
    if (!m) continue;
    const query: Record<string, string | undefined> = {};
    if (search) {
      for (const pair of search.split('&')) {
        const q = LEAN_QUERY_PAIR.exec(pair);
        if (!q || !route.query.includes(q[1]) || query[q[1]] !== undefined) return undefined;
        query[q[1]] = q[2];
      }
    }
    const params: string[] = [];
    try {
      for (let i = 1; i < m.length; i++) params.push(decodeURIComponent(m[i]));
    } catch {
      return undefined;
    }
    return { route, version, params, query };
  }
  return undefined;
}
