// Container endpoints: create, list, inspect, lifecycle, update, rename, remove, top, resize, attach, logs.
import type { Response } from 'express';
import type { ServerResponse } from 'node:http';
import type { WebSocketServer } from 'ws';
import type { ApiRequest, Route } from '../http/app';
import { answerWritten } from '../http/answer';
import { hijack, onClientEnd, RAW_STREAM, writeHijackedError } from '../http/hijack';
import { boolValue, param, queryBool, queryFilters, queryHas, queryInt, queryString, readBody, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import { DetachWatcher, frame, parseDetachKeys, streamType } from '../http/stream';
import { conflict, invalidParameter, notFound } from '../errors';
import { decodeUpdateConfig } from '../translate/request/bodies';
import { CreateRequest, normaliseCreateBody, validateCreate } from '../translate/request/create';
import { checkContainerFilterValues, checkFilterKeys, ContainerListQuery, containerFilterKeys } from '../translate/filters';
import { toContainerInspect, toContainerSummary } from '../translate/response/containers';
import { supports } from '../translate/version/features';
import type { ContainerRecord } from '../types/container';
import type { HostConfig } from '../types/config';
import type { StdinFeed } from '../types/io';
import type { LogEntry, LogQuery, LogSink } from '../types/logs';

type Output = (stream: 'stdout' | 'stderr', chunk: Buffer) => void;

/** What the container routes need (services/containers), in domain terms. */
export interface ContainersBackend {
  find(ref: string): ContainerRecord;
  listFiltered(q: ContainerListQuery): Promise<ContainerRecord[]>;
  sizes(rec: ContainerRecord): Promise<{ sizeRw: number; sizeRootFs: number }>;
  /** GraphDriver.Data: the container's snapshot directories (null without a snapshot). */
  graphDriverData(rec: ContainerRecord): Promise<Record<string, string> | null>;
  create(req: CreateRequest, name: string | undefined): Promise<{ id: string; warnings: string[] }>;
  replaceHostConfig(ref: string, given: HostConfig): Promise<void>;
  start(ref: string): Promise<void>;
  stop(ref: string, timeoutSec?: number): Promise<void>;
  restart(ref: string, timeoutSec?: number): Promise<void>;
  kill(ref: string, signal?: string, opts?: { stoppedIsDone?: boolean }): Promise<void>;
  wait(ref: string): Promise<number>;
  pause(ref: string): Promise<void>;
  unpause(ref: string): Promise<void>;
  rename(ref: string, newName: string): Promise<void>;
  remove(ref: string, opts: { force: boolean; volumes: boolean }): Promise<void>;
  /** Removes the legacy link `<parent>/<alias>`. */
  removeLink(ref: string): Promise<void>;
  update(ref: string, u: HostConfig): Promise<string[]>;
  top(ref: string, psArgs?: string): Promise<{ Titles: string[]; Processes: string[][] }>;
  resize(ref: string, h: number, w: number): Promise<void>;
  /** Output of the container's current and future runs, until unsubscribed; `onEnd` after each run's output. */
  subscribeOutput(id: string, fn: Output, onEnd: () => void): () => void;
  /** The log's entries so far (attach's `logs`). */
  logEntries(id: string, streams: { stdout: boolean; stderr: boolean }, emit: (e: LogEntry) => void): Promise<void>;
  /** The logs endpoint's byte stream, followed while the container runs when asked. */
  streamLogs(id: string, q: LogQuery, sink: LogSink): Promise<void>;
  stdinFeed(id: string): StdinFeed;
  /** Writes to the running container's stdin now, or drops the bytes when it has none open. */
  writeStdin(id: string, chunk: Buffer): void;
  /** A client attached to the container's streams (its attach event). */
  attached(rec: ContainerRecord): void;
  /** An attached client left with the detach keys (its detach event). */
  detached(rec: ContainerRecord): void;
}

/** The exec ids of a container (inspect's ExecIDs), from services/exec. */
export interface ExecIdsBackend {
  idsFor(containerId: string): string[];
}

/** The hijacked attach stream (also used by the run flow). */
async function attach(req: ApiRequest, res: Response, containers: ContainersBackend): Promise<void> {
  const rec = containers.find(param(req, 'id'));
  if (rec.State.Paused && supports(req.apiVersion, 'AttachPausedConflict')) throw conflict(`You cannot attach to a paused container, unpause it first`);
  // (the engine counts a restarting container as running, and refuses it at every version; named as the client did)
  if (rec.State.Restarting && !rec.State.Running) throw conflict(`container ${param(req, 'id')} is restarting, wait until the container is running`);
  const keys = parseDetachKeys(supports(req.apiVersion, 'AttachDetachKeys') ? queryString(req, 'detachKeys') : undefined);
  const wantStdin = queryBool(req, 'stdin');
  const wantOut = queryBool(req, 'stdout');
  const wantErr = queryBool(req, 'stderr');
  const logs = queryBool(req, 'logs');
  const stream = queryBool(req, 'stream');
  const tty = !!rec.Config.Tty;
  // A body (dockerode sends its options as JSON) is the request's, not stdin: only what follows it is.
  if (req.hijackable) await readBody(req);
  const h = hijack(req, res, RAW_STREAM);
  const out = h.stream;
  const send = (s: 'stdout' | 'stderr', chunk: Buffer) => {
    if (s === 'stdout' ? !wantOut : !wantErr) return;
    if (out.destroyed) return;
    out.write(tty ? chunk : frame(streamType(s), chunk));
  };
  containers.attached(rec);
  let ended = false;
  let feed: StdinFeed | undefined;
  const finish = () => {
    if (ended) return;
    ended = true;
    feed?.cancel();
    unsubscribe?.();
    out.end();
  };
  let unsubscribe: (() => void) | undefined;
  if (stream) unsubscribe = containers.subscribeOutput(rec.Id, send, () => setImmediate(finish));
  if (logs && rec.LogPath) await containers.logEntries(rec.Id, { stdout: wantOut, stderr: wantErr }, (e) => send(e.stream, Buffer.from(e.log)));
  // Like the reference, a stream to a container that is not running waits for its next run (`docker start -a`).
  if (!stream) return finish();
  if (wantStdin && rec.Config.OpenStdin) {
    // Like the engine, detach keys are looked for only on a TTY: plain stdin is copied byte for byte.
    const watcher = tty ? new DetachWatcher(keys) : undefined;
    const stdin = (feed = containers.stdinFeed(rec.Id));
    const onData = (chunk: Buffer) => {
      const { forward, detach } = watcher ? watcher.feed(chunk) : { forward: chunk, detach: false };
      if (forward.length) stdin.write(forward);
      if (detach) {
        containers.detached(rec);
        finish();
      }
    };
    if (h.head.length) onData(h.head);
    out.on('data', onData);
    onClientEnd(out, () => {
      if (rec.Config.StdinOnce && !ended) stdin.endAfterFlush();
    });
  } else out.resume();
  out.on('close', () => {
    ended = true;
    feed?.cancel();
    unsubscribe?.();
  });
}

let wss: WebSocketServer | undefined; // made (and ws loaded) with the first attach/ws (idle memory)

/** GET /containers/(id)/attach/ws: the same streams over RFC 6455 (raw bytes, no multiplexing, as the engine). */
async function attachWs(req: ApiRequest, containers: ContainersBackend): Promise<void> {
  const rec = containers.find(param(req, 'id'));
  if (!req.hijackable || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') throw invalidParameter('websocket upgrade required');
  const logs = queryBool(req, 'logs');
  const stream = queryBool(req, 'stream');
  const wantStdin = queryBool(req, 'stdin');
  const wantOut = queryBool(req, 'stdout');
  const wantErr = queryBool(req, 'stderr');
  const { socket, head } = req.hijackable;
  req.hijacked = true;
  wss ??= new (require('ws') as typeof import('ws')).WebSocketServer({ noServer: true });
  wss.handleUpgrade(req, socket, head, async (ws) => {
    answerWritten(); // the 101 is out: the attach event need not wait for the websocket's end
    containers.attached(rec);
    const send = (s: 'stdout' | 'stderr', chunk: Buffer) => {
      if ((s === 'stdout' ? wantOut : wantErr) && ws.readyState === ws.OPEN) ws.send(chunk);
    };
    let unsubscribe: (() => void) | undefined;
    if (stream) unsubscribe = containers.subscribeOutput(rec.Id, send, () => setImmediate(() => ws.close()));
    if (logs && rec.LogPath) await containers.logEntries(rec.Id, { stdout: wantOut, stderr: wantErr }, (e) => send(e.stream, Buffer.from(e.log)));
    if (wantStdin && rec.Config.OpenStdin) {
      ws.on('message', (data: Buffer) => containers.writeStdin(rec.Id, data));
    }
    ws.on('close', () => unsubscribe?.());
    if (!stream || !rec.State.Running) ws.close();
  });
}

async function logsHandler(req: ApiRequest, res: Response, containers: ContainersBackend): Promise<void> {
  const rec = containers.find(param(req, 'id'));
  const stdout = queryBool(req, 'stdout');
  const stderr = queryBool(req, 'stderr');
  if (!stdout && !stderr) throw invalidParameter('Bad parameters: you must choose at least one stream');
  if (rec.HostConfig.LogConfig?.Type === 'none') throw invalidParameter('configured logging driver does not support reading');
  const tailRaw = queryString(req, 'tail');
  // (as the engine: a value that is no integer, as Go's Atoi reads one, means all of it)
  const tail = tailRaw !== undefined && /^[+-]?\d+$/.test(tailRaw) ? Number(tailRaw) : undefined;
  let sinceNs: bigint | undefined;
  const sinceRaw = supports(req.apiVersion, 'LogsSince') ? queryString(req, 'since') : undefined;
  if (sinceRaw && sinceRaw !== '0') {
    const [s, frac = '0'] = sinceRaw.split('.');
    if (!/^\d+$/.test(s)) throw invalidParameter(`invalid value for "since": "${sinceRaw}"`);
    sinceNs = BigInt(s) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9));
  }
  const timestamps = queryBool(req, 'timestamps');
  const follow = queryBool(req, 'follow');
  const tty = !!rec.Config.Tty;
  let out: NodeJS.WritableStream;
  // The spec: 101 when the client asked for the upgrade. The reference's 200 has no Content-Type (the spec names
  // none) and closes the connection at the end.
  if (req.hijackable) out = hijack(req, res, RAW_STREAM, { commonHeaders: true }).stream;
  else {
    res.writeHead(200, { Connection: 'close' });
    res.flushHeaders();
    out = res;
  }
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  req.hijackable?.socket.on('close', () => ac.abort());
  const read = { stdout, stderr, sinceNs, tail: tail !== undefined && tail >= 0 ? tail : undefined };
  const format = { framed: !tty, timestamps, details: supports(req.apiVersion, 'LogsDetails') && queryBool(req, 'details') };
  // Resolves on drain, or when the client is gone (nothing will drain then).
  const drained = () =>
    new Promise<void>((r) => {
      if (ac.signal.aborted) return r();
      const done = () => {
        out.removeListener('drain', done);
        ac.signal.removeEventListener('abort', done);
        r();
      };
      out.once('drain', done);
      ac.signal.addEventListener('abort', done, { once: true });
    });
  await containers.streamLogs(rec.Id, { read, format, follow }, { write: (b, done) => out.write(b, done), drained, signal: ac.signal });
  out.end();
}

export function containerRoutes(containers: ContainersBackend, execs: ExecIdsBackend): Route[] {
  const id = (req: ApiRequest) => param(req, 'id');
  /** GET /containers/(ref)/json; `size`: the query's size=1. */
  const inspect = async (req: ApiRequest, res: ServerResponse, ref: string, size: boolean): Promise<void> => {
    const rec = containers.find(ref);
    const sizes = size && supports(req.apiVersion, 'InspectSize') ? await containers.sizes(rec) : {};
    const graphDriverData = await containers.graphDriverData(rec);
    writeJSON(res, 200, toContainerInspect(rec, req.apiVersion, { execIds: execs.idsFor(rec.Id), graphDriverData, ...sizes }));
  };
  const timeout = (req: ApiRequest): number | undefined => (queryHas(req, 't') ? queryInt(req, 't', 10) : undefined);
  return [
    {
      method: 'post',
      path: '/containers/create',
      handler: async (req, res) => {
        const body = normaliseCreateBody(await readJSON(req), req.apiVersion);
        const warnings = validateCreate(body, req.apiVersion);
        const r = await containers.create(body, queryString(req, 'name') || undefined);
        // the engine's order: the resource warnings (the service's: they depend on the host), then the runtime's
        writeJSON(res, 201, { Id: r.id, Warnings: [...r.warnings, ...warnings] });
      },
    },
    {
      method: 'get',
      path: '/containers/json',
      handler: async (req, res) => {
        const filters = queryFilters(req);
        checkFilterKeys(filters, containerFilterKeys(req.apiVersion));
        const limit = queryInt(req, 'limit', -1);
        checkContainerFilterValues(filters, req.apiVersion);
        const list = await containers.listFiltered({ all: queryBool(req, 'all'), limit, since: queryString(req, 'since') || filters.get('since')?.[0], before: queryString(req, 'before') || filters.get('before')?.[0], filters });
        const now = Date.now();
        const sizes = queryBool(req, 'size') ? await Promise.all(list.map((c) => containers.sizes(c))) : undefined;
        writeJSON(res, 200, list.map((c, i) => toContainerSummary(c, req.apiVersion, now, sizes?.[i] ?? {})));
      },
    },
    {
      method: 'get',
      path: '/containers/:id/json',
      handler: (req, res) => inspect(req, res, id(req), queryBool(req, 'size')),
      // (clients inspect many containers at once, a connection each)
      lean: { path: /^\/containers\/([^/]+)\/json$/, query: ['size'], handler: (req, res, [ref], q) => inspect(req, res, ref, q.size !== undefined && boolValue(q.size)) },
    },
    {
      method: 'post',
      path: '/containers/:id/start',
      handler: async (req, res) => {
        const body = await readJSON<HostConfig>(req);
        if (body && Object.keys(body).length) {
          if (supports(req.apiVersion, 'StartHostConfigRemoved')) throw invalidParameter('starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24');
          // Old clients send the HostConfig with start: it replaces the one from create, as the engine did then.
          const rec = containers.find(id(req));
          if (!rec.State.Running) {
            const norm = normaliseCreateBody({ Image: rec.ImageName, HostConfig: body }, req.apiVersion);
            validateCreate(norm, req.apiVersion);
            await containers.replaceHostConfig(rec.Id, norm.hostConfig);
          }
        }
        await containers.start(id(req));
        writeNoContent(res);
      },
    },
    { method: 'post', path: '/containers/:id/stop', handler: async (req, res) => { await containers.stop(id(req), timeout(req)); writeNoContent(res); } },
    { method: 'post', path: '/containers/:id/restart', handler: async (req, res) => { await containers.restart(id(req), timeout(req)); writeNoContent(res); } },
    {
      method: 'post',
      path: '/containers/:id/kill',
      handler: async (req, res) => {
        await containers.kill(id(req), queryString(req, 'signal'), { stoppedIsDone: !supports(req.apiVersion, 'KillStoppedConflict') });
        writeNoContent(res);
      },
    },
    {
      method: 'post',
      path: '/containers/:id/wait',
      // (open for as long as the container runs: no answer hold, which would keep node's promise hooks on meanwhile)
      publishesNothing: true,
      handler: async (req, res) => {
        // a client that leaves ends the wait, as the request's context ends the engine's (and a stopping daemon's
        // close() need not wait for the container)
        const left = new Promise<undefined>((r) => res.once('close', () => r(undefined)));
        const code = await Promise.race([containers.wait(id(req)), left]);
        if (code !== undefined) writeJSON(res, 200, { Error: null, StatusCode: code }); // (the reference's key order)
      },
    },
    { method: 'post', path: '/containers/:id/pause', handler: async (req, res) => { await containers.pause(id(req)); writeNoContent(res); } },
    { method: 'post', path: '/containers/:id/unpause', handler: async (req, res) => { await containers.unpause(id(req)); writeNoContent(res); } },
    { method: 'post', path: '/containers/:id/rename', handler: async (req, res) => { await containers.rename(id(req), queryString(req, 'name') ?? ''); writeNoContent(res); } },
    {
      method: 'delete',
      path: '/containers/:id',
      handler: async (req, res) => {
        if (queryBool(req, 'link')) await containers.removeLink(id(req));
        else await containers.remove(id(req), { force: queryBool(req, 'force'), volumes: queryBool(req, 'v') });
        writeNoContent(res);
      },
    },
    {
      // a legacy link, `<parent>/<alias>`: removed with link=1; otherwise no container has that name
      method: 'delete',
      path: '/containers/:id/:alias',
      handler: async (req, res) => {
        const ref = `${id(req)}/${param(req, 'alias')}`;
        if (!queryBool(req, 'link')) throw notFound(`No such container: ${ref}`);
        await containers.removeLink(ref);
        writeNoContent(res);
      },
    },
    {
      method: 'post',
      path: '/containers/:id/update',
      handler: async (req, res) => {
        const body = decodeUpdateConfig(await readJSON(req)) ?? {};
        if (!supports(req.apiVersion, 'UpdateRestartPolicy')) delete body.RestartPolicy;
        const warnings = await containers.update(id(req), body);
        // the engine's nil slice: null when there is nothing to warn about (every version)
        writeJSON(res, 200, { Warnings: warnings.length ? warnings : null });
      },
    },
    { method: 'get', path: '/containers/:id/top', handler: async (req, res) => writeJSON(res, 200, await containers.top(id(req), queryString(req, 'ps_args') || '-ef')) },
    {
      method: 'post',
      path: '/containers/:id/resize',
      handler: async (req, res) => {
        await containers.resize(id(req), queryInt(req, 'h', 0), queryInt(req, 'w', 0));
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' });
        res.end();
      },
    },
    {
      method: 'post',
      path: '/containers/:id/attach',
      // Refusals before the stream starts are written as the reference writes them, after its hijack.
      handler: (req, res) =>
        attach(req, res, containers).catch((err) => {
          if (req.hijacked) throw err;
          writeHijackedError(req, err);
        }),
    },
    { method: 'get', path: '/containers/:id/logs', handler: (req, res) => logsHandler(req, res, containers) },
    { method: 'get', path: '/containers/:id/attach/ws', handler: (req) => attachWs(req, containers) },
  ];
}

