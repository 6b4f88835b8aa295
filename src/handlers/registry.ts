// Registry-facing image endpoints: pull and import (POST /images/create), push, POST /auth, GET /images/search.
// A failure before any progress was written is an HTTP error with the engine's status; after that it arrives
// inside the stream as {errorDetail, error}, as the engine does. Closing the connection cancels.
import type { Response } from 'express';
import type { Readable } from 'node:stream';
import type { Route } from '../http/app';
import { param, queryString, queryStrings, readBody, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { asBerthError, invalidParameter } from '../errors';
import { parseReference } from '../translate/reference';
import { decodeAuthHeader } from '../translate/request/auth';
import { decodeAuthConfig } from '../translate/request/bodies';
import { supports } from '../translate/version/features';
import type { Credentials } from '../types/registry';

type Progress = (msg: Record<string, unknown>) => void;

/** What the registry-facing routes need (services/registry, and services/images for import). */
export interface RegistryBackend {
  pull(fromImage: string, tag: string | undefined, creds: Credentials, progress: Progress, signal?: AbortSignal): Promise<void>;
  /** fromSrc: the request body, or a URL to fetch the tarball from; returns the image id. */
  importImage(source: Readable | string, o: { repo?: string; tag?: string; message?: string; changes?: string[]; source: string }): Promise<string>;
  push(name: string, tag: string | undefined, creds: Credentials, progress: Progress, signal?: AbortSignal): Promise<void>;
  login(server: string, creds: Credentials): Promise<{ identityToken: string }>;
  search(term: string, creds: Credentials): Promise<unknown[]>;
}

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

async function streamOperation(res: Response, op: (progress: (m: Record<string, unknown>) => void, signal: AbortSignal) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  const s = lazyStream(res);
  try {
    await op(s.write, ac.signal);
  } catch (err) {
    if (!s.started) throw err;
    const message = asBerthError(err).message;
    s.write({ errorDetail: { message }, error: message });
  }
  res.end();
}

export function registryRoutes(registry: RegistryBackend): Route[] {
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
          await streamOperation(res, (progress, signal) => registry.pull(fromImage, tag, creds, progress, signal));
          return;
        }
        if (fromSrc) {
          const repo = queryString(req, 'repo');
          if (repo) parseReference(repo);
          await streamOperation(res, async (progress) => {
            const id = await registry.importImage(fromSrc === '-' ? req : fromSrc, { repo, tag, message: queryString(req, 'message'), changes: queryStrings(req, 'changes'), source: fromSrc === '-' ? '-' : fromSrc });
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
        const header = req.header('x-registry-auth');
        let creds = decodeAuthHeader(header);
        if (!header) {
          // As the engine: without the header the credentials are read from the body (the old form); no body is 400.
          const body = await readBody(req);
          if (body.length === 0) throw invalidParameter('Bad parameters and missing X-Registry-Auth: EOF');
          creds = decodeAuthHeader(body.toString('base64'));
        }
        await streamOperation(res, (progress, signal) => registry.push(name, queryString(req, 'tag'), creds, progress, signal));
      },
    },
    {
      method: 'post',
      path: '/auth',
      handler: async (req, res) => {
        const body = decodeAuthConfig(await readJSON(req)) ?? {};
        const r = await registry.login(body.serveraddress ?? '', { username: body.username, password: body.password, identitytoken: body.identitytoken, registrytoken: body.registrytoken });
        writeJSON(res, 200, supports(req.apiVersion, 'AuthIdentityToken') ? { IdentityToken: r.identityToken, Status: 'Login Succeeded' } : { Status: 'Login Succeeded' });
      },
    },
    {
      method: 'get',
      path: '/images/search',
      handler: async (req, res) => {
        writeJSON(res, 200, await registry.search(queryString(req, 'term') ?? '', decodeAuthHeader(req.header('x-registry-auth'))));
      },
    },
  ];
}
