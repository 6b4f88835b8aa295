// A container's filesystem: changes, export, archive (HEAD stat / GET / PUT, since 1.20) and the old copy
// (answered 404 from 1.24, as the engine does).
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { ApiRequest, Route, writePageNotFound } from '../http/app';
import { param, queryBool, queryString, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { invalidParameter } from '../errors';
import { ContainerPathStat, pathStatHeader } from '../translate/response/archive';
import type { Change } from '../types/archive';
import { supports } from '../translate/version/features';

export const PATH_STAT_HEADER = 'X-Docker-Container-Path-Stat';

/** The engine's ArchiveFormValues: the path is required (checked before the container is looked up). */
function archivePath(req: ApiRequest): string {
  const p = queryString(req, 'path') ?? '';
  if (p === '') throw invalidParameter('bad parameter: pathcannot be empty');
  return p;
}

/** gddo's NegotiateContentEncoding over the offers gzip, deflate (the engine compresses archives on request). */
export function negotiateEncoding(acceptEncoding: string | undefined): 'gzip' | 'deflate' | 'identity' | '' {
  const specs = (acceptEncoding ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [value, ...params] = s.split(';').map((x) => x.trim());
      let q = 1;
      for (const p of params) {
        const m = /^q=([0-9.]+)$/i.exec(p);
        if (m) q = Number(m[1]);
      }
      return { value: value.toLowerCase(), q };
    });
  let best: 'gzip' | 'deflate' | 'identity' = 'identity';
  let bestQ = -1;
  for (const offer of ['gzip', 'deflate'] as const)
    for (const s of specs)
      if (s.q > bestQ && (s.value === '*' || s.value === offer)) {
        bestQ = s.q;
        best = offer;
      }
  return bestQ === 0 ? '' : best;
}

/** Streams a body already started with headers; a failure midway can only cut the connection. */
async function streamBody(res: Response, body: Readable, encoder?: zlib.Gzip | zlib.DeflateRaw): Promise<void> {
  try {
    if (encoder) await pipeline(body, encoder, res);
    else await pipeline(body, res);
  } catch {
    body.destroy();
    res.destroy();
  }
}

/** What the container filesystem routes need (services/filesystem). */
export interface FilesystemBackend {
  containerChanges(ref: string): Promise<Change[]>;
  containerExport(ref: string): Promise<Readable>;
  containerStatPath(ref: string, userPath: string): Promise<ContainerPathStat>;
  containerArchivePath(ref: string, userPath: string): Promise<{ stat: ContainerPathStat; stream: Readable }>;
  containerExtractToDir(ref: string, userPath: string, noOverwriteDirNonDir: boolean, content: Readable): Promise<void>;
  containerCopy(ref: string, resource: string): Promise<Readable>;
}

export function filesystemRoutes(fsvc: FilesystemBackend): Route[] {
  return [
    {
      method: 'get',
      path: '/containers/:id/changes',
      handler: async (req, res) => {
        const changes = await fsvc.containerChanges(param(req, 'id'));
        writeJSON(res, 200, changes.length ? changes : null);
      },
    },
    {
      method: 'get',
      path: '/containers/:id/export',
      handler: async (req, res) => {
        const stream = await fsvc.containerExport(param(req, 'id'));
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        await streamBody(res, stream);
      },
    },
    {
      method: 'head',
      path: '/containers/:id/archive',
      handler: async (req, res) => {
        if (!supports(req.apiVersion, 'Archive')) return writePageNotFound(res);
        const stat = await fsvc.containerStatPath(param(req, 'id'), archivePath(req));
        res.writeHead(200, { [PATH_STAT_HEADER]: pathStatHeader(stat) });
        res.end();
      },
    },
    {
      method: 'get',
      path: '/containers/:id/archive',
      handler: async (req, res) => {
        if (!supports(req.apiVersion, 'Archive')) return writePageNotFound(res);
        const { stat, stream } = await fsvc.containerArchivePath(param(req, 'id'), archivePath(req));
        const enc = negotiateEncoding(req.headers['accept-encoding']);
        const headers: Record<string, string> = { [PATH_STAT_HEADER]: pathStatHeader(stat), 'Content-Type': 'application/x-tar' };
        if (enc === 'gzip' || enc === 'deflate') headers['Content-Encoding'] = enc;
        res.writeHead(200, headers);
        await streamBody(res, stream, enc === 'gzip' ? zlib.createGzip() : enc === 'deflate' ? zlib.createDeflateRaw() : undefined);
      },
    },
    {
      method: 'put',
      path: '/containers/:id/archive',
      handler: async (req, res) => {
        if (!supports(req.apiVersion, 'Archive')) return writePageNotFound(res);
        const p = archivePath(req);
        await fsvc.containerExtractToDir(param(req, 'id'), p, queryBool(req, 'noOverwriteDirNonDir'), req);
        res.writeHead(200, { 'Content-Length': '0' });
        res.end();
      },
    },
    {
      method: 'post',
      path: '/containers/:id/copy',
      handler: async (req, res) => {
        if (supports(req.apiVersion, 'CopyRemoved')) {
          // The engine answers a bare 404 here, with no body.
          res.writeHead(404, { 'Content-Length': '0' });
          res.end();
          return;
        }
        const body = await readJSON<{ Resource?: unknown }>(req);
        if (body === undefined) throw invalidParameter('got EOF while reading request body');
        const resource = typeof body?.Resource === 'string' ? body.Resource : '';
        if (resource === '') throw invalidParameter('Path cannot be empty');
        const stream = await fsvc.containerCopy(param(req, 'id'), resource);
        res.writeHead(200, { 'Content-Type': 'application/x-tar' });
        await streamBody(res, stream);
      },
    },
  ];
}
