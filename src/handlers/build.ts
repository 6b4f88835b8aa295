// POST /build: the query parsed per version, the context handed to the builder, and the engine's JSON stream
// written back (Go's escaping). Errors before the first step answer with a status; after it they are an
// errorDetail message in the stream.
import type { Response } from 'express';
import type { ApiRequest as Request, Route } from '../http/app';
import { queryBool, queryString, queryStrings } from '../http/query';
import { asBerthError, invalidParameter } from '../errors';
import { goJSON } from '../translate/gojson';
import { decodeRegistryConfig } from '../translate/request/auth';
import { supports } from '../translate/version/features';
import type { BuildRequest } from '../types/build';

export interface PreparedBuildHandle {
  dispose(): Promise<void>;
}

export interface BuildBackend {
  /** Context on disk, Dockerfile parsed; throws (answered with a status) before any output. */
  prepare(o: BuildRequest, signal: AbortSignal): Promise<PreparedBuildHandle>;
  /** Runs the build, writing the engine's messages; throws a message for the stream (code: a RUN's status). */
  run(b: PreparedBuildHandle, out: (msg: Record<string, unknown>) => void, signal: AbortSignal): Promise<string>;
}

function jsonQuery<T>(req: Request, name: string, what: string): T | undefined {
  const raw = queryString(req, name);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch (err) {
    throw invalidParameter(`error reading ${what}: ${(err as Error).message}`);
  }
}

function intQuery(req: Request, name: string): number | undefined {
  const raw = queryString(req, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw invalidParameter(`strconv.ParseInt: parsing "${raw}": invalid syntax`);
  return n;
}

export function parseBuildQuery(req: Request): Omit<BuildRequest, 'body'> {
  const v = req.apiVersion;
  const buildArgs = supports(v, 'BuildArgs') ? (jsonQuery<Record<string, string | null>>(req, 'buildargs', 'build args') ?? {}) : {};
  const labels = supports(v, 'BuildLabels') ? (jsonQuery<Record<string, string>>(req, 'labels', 'labels') ?? {}) : {};
  const resources = {
    Memory: intQuery(req, 'memory'),
    MemorySwap: intQuery(req, 'memswap'),
    CpuShares: intQuery(req, 'cpushares'),
    CpusetCpus: queryString(req, 'cpusetcpus') || undefined,
    CpusetMems: queryString(req, 'cpusetmems') || undefined,
    CpuPeriod: intQuery(req, 'cpuperiod'),
    CpuQuota: intQuery(req, 'cpuquota'),
    ShmSize: supports(v, 'BuildShmSize') ? intQuery(req, 'shmsize') : undefined,
  };
  for (const k of Object.keys(resources) as (keyof typeof resources)[]) if (resources[k] === undefined || resources[k] === 0) delete resources[k];
  const forcerm = queryBool(req, 'forcerm');
  return {
    remote: queryString(req, 'remote') || undefined,
    dockerfile: queryString(req, 'dockerfile') ?? '',
    tags: queryStrings(req, 't').filter(Boolean),
    quiet: queryBool(req, 'q'),
    nocache: queryBool(req, 'nocache'),
    pull: queryBool(req, 'pull'),
    rm: queryBool(req, 'rm', true) || forcerm,
    forcerm,
    buildArgs,
    labels,
    resources,
    registryConfig: decodeRegistryConfig(req.header('x-registry-config')),
  };
}

async function postBuild(backend: BuildBackend, req: Request, res: Response): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  const prepared = await backend.prepare({ ...parseBuildQuery(req), body: req }, ac.signal);
  let started = false;
  try {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    started = true;
    const write = (msg: Record<string, unknown>) => {
      if (!res.destroyed && !res.writableEnded) res.write(goJSON(msg) + '\n');
    };
    try {
      await backend.run(prepared, write, ac.signal);
    } catch (err) {
      const message = asBerthError(err).message;
      const code = (err as { code?: unknown }).code;
      write({ errorDetail: { ...(typeof code === 'number' ? { code } : {}), message }, error: message });
    }
  } finally {
    // The context is gone before the client sees the end of the stream.
    await prepared.dispose();
    if (started) res.end();
  }
}

export function buildRoutes(backend: BuildBackend): Route[] {
  return [{ method: 'post', path: '/build', handler: (req, res) => postBuild(backend, req, res) }];
}
