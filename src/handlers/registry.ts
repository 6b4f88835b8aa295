// Registry-facing image endpoints: pull and import (POST /images/create), push, POST /auth, GET /images/search.
// A failure before any progress was written is an HTTP error with the engine's status; after that it arrives
// inside the stream as {errorDetail, error}, as the engine does. Closing the connection cancels.
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import type { Route } from '../http/app';
import { param, queryString, queryStrings, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { invalidParameter } from '../errors';
import type { ImageService } from '../services/images';
import type { RegistryService } from '../services/registry';
import { decodeAuthHeader, RegistryClient } from '../registry/client';
import { parseReference } from '../images/reference';
import { supports } from '../translate/version/features';

/** A progress stream whose status line is written with the first message. */
function lazyStream(res: Response) {
  let started = false;
  const write = (msg: Record<string, unknown>) => {
    if (!started) {
      started = true;
      res.writeHead(200, { 'Content-Type': 'application/json' });
    }
    if (!res.writableEnded) res.write(JSON.stringify(msg) + '\n');
  };
  return {
    write,
    get started() {
      return started;
    },
  };
}

async function streamOperation(req: Request, res: Response, op: (progress: (m: Record<string, unknown>) => void, signal: AbortSignal) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  const s = lazyStream(res);
  try {
    await op(s.write, ac.signal);
  } catch (err) {
    if (!s.started) throw err;
    const message = err instanceof Error ? err.message : String(err);
    s.write({ errorDetail: { message }, error: message });
  }
  res.end();
}

/** The request body as a stream, or the tarball at a URL (fromSrc=URL). */
async function importSource(req: Request, src: string): Promise<Readable> {
  if (src === '-') return req;
  let url: URL;
  try {
    url = new URL(src.includes('://') ? src : `http://${src}`);
  } catch {
    throw invalidParameter(`invalid URL: ${src}`);
  }
  const r = await fetch(url).catch((e: Error) => {
    throw invalidParameter(`Get "${url}": ${(e as { cause?: Error }).cause?.message ?? e.message}`);
  });
  if (!r.ok || !r.body) throw invalidParameter(`Get "${url}": ${r.status} ${r.statusText}`);
  return Readable.fromWeb(r.body as never);
}

export function registryRoutes(images: ImageService, registry: RegistryService): Route[] {
  return [
    {
      method: 'post',
      path: '/images/create',
      handler: async (req, res) => {
        const fromImage = queryString(req, 'fromImage');
        const fromSrc = queryString(req, 'fromSrc');
        const tag = queryString(req, 'tag');
        const creds = decodeAuthHeader(req.header('x-registry-auth'));
        if (fromImage) {
          parseReference(fromImage); // a malformed name is a 400 before anything streams
          await streamOperation(req, res, (progress, signal) => registry.pull(fromImage, tag, creds, progress, signal));
          return;
        }
        if (fromSrc) {
          const repo = queryString(req, 'repo');
          if (repo) parseReference(repo);
          await streamOperation(req, res, async (progress) => {
            const body = await importSource(req, fromSrc);
            const id = await images.importTarball(body, { repo, tag, message: queryString(req, 'message'), changes: queryStrings(req, 'changes'), source: fromSrc === '-' ? '-' : fromSrc });
            progress({ status: id });
          });
          return;
        }
        throw invalidParameter('either fromImage or fromSrc is required');
      },
    },
    {
      method: 'post',
      path: /^\/images\/(?<name>.+)\/push$/,
      handler: async (req, res) => {
        const name = param(req, 'name');
        const creds = decodeAuthHeader(req.header('x-registry-auth'));
        await streamOperation(req, res, (progress, signal) => registry.push(name, queryString(req, 'tag'), creds, progress, signal));
      },
    },
    {
      method: 'post',
      path: '/auth',
      handler: async (req, res) => {
        const body = (await readJSON<{ username?: string; password?: string; serveraddress?: string; identitytoken?: string; registrytoken?: string }>(req)) ?? {};
        const r = await registry.login(body.serveraddress ?? '', { username: body.username, password: body.password, identitytoken: body.identitytoken, registrytoken: body.registrytoken });
        writeJSON(res, 200, supports(req.apiVersion, 'AuthIdentityToken') ? { IdentityToken: r.identityToken, Status: 'Login Succeeded' } : { Status: 'Login Succeeded' });
      },
    },
    {
      method: 'get',
      path: '/images/search',
      handler: async (req, res) => {
        const term = queryString(req, 'term') ?? '';
        // "host/term" searches that registry; anything else the default index, as the engine does.
        const slash = term.indexOf('/');
        const first = slash > 0 ? term.slice(0, slash) : '';
        const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
        const host = isHost ? first : 'index.docker.io';
        const q = isHost ? term.slice(slash + 1) : term;
        const c = new RegistryClient(host, decodeAuthHeader(req.header('x-registry-auth')));
        const url = `${c.base}/v1/search?q=${encodeURIComponent(q)}&n=25`;
        const r = await c.request('GET', url, '');
        if (!r.ok) {
          await r.body?.cancel();
          throw new Error(`Unexpected status code ${r.status}`);
        }
        const j = (await r.json()) as { results?: unknown[] };
        writeJSON(res, 200, j.results ?? []);
      },
    },
  ];
}
