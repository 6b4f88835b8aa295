// Exec endpoints: create, start (hijacked, framed like attach), resize, inspect.
import type { Route } from '../http/app';
import { hijack, onClientEnd, RAW_STREAM } from '../http/hijack';
import { param, queryInt, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { DetachWatcher, frame, parseDetachKeys, streamType } from '../http/stream';
import { invalidParameter } from '../errors';
import { decodeExecConfig, decodeExecStart } from '../translate/request/bodies';
import { toExecInspect } from '../translate/response/exec';
import { toContainerInspect } from '../translate/response/containers';
import { supports } from '../translate/version/features';
import type { ContainerRecord } from '../types/container';
import type { ExecConfig, ExecState } from '../types/exec';

/** A started exec: its stdin while it runs, and its exit. */
export interface ExecSession extends ExecState {
  io?: { stdin(): NodeJS.WritableStream | undefined };
  done?: Promise<number>;
}

/** What the exec routes need (services/exec, and the container an exec belongs to). */
export interface ExecBackend {
  create(containerRef: string, cfg: ExecConfig): string;
  get(id: string): ExecState;
  /** Starts it; `listener` gets its output (none when detached). */
  start(id: string, listener: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined): Promise<ExecSession>;
  closeStdin(e: ExecSession): Promise<void>;
  detached(e: ExecSession): void;
  resize(id: string, h: number, w: number): Promise<void>;
  idsFor(containerId: string): string[];
  findContainer(ref: string): ContainerRecord;
}

export function execRoutes(execs: ExecBackend): Route[] {
  return [
    {
      method: 'post',
      path: '/containers/:id/exec',
      handler: async (req, res) => {
        const body = decodeExecConfig(await readJSON(req)) ?? {};
        const cfg: ExecConfig = {
          Cmd: body.Cmd ?? [],
          User: body.User ?? '',
          Privileged: !!body.Privileged,
          Tty: !!body.Tty,
          AttachStdin: !!body.AttachStdin,
          AttachStdout: !!body.AttachStdout,
          AttachStderr: !!body.AttachStderr,
          DetachKeys: body.DetachKeys ?? '',
        };
        if (cfg.DetachKeys) parseDetachKeys(cfg.DetachKeys);
        writeJSON(res, 201, { Id: execs.create(param(req, 'id'), cfg) });
      },
    },
    {
      method: 'post',
      path: '/exec/:id/start',
      handler: async (req, res) => {
        const body = decodeExecStart(await readJSON(req)) ?? {};
        const e = execs.get(param(req, 'id'));
        if (body.Detach) {
          await execs.start(e.id, undefined);
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '0' });
          res.end();
          return;
        }
        // As the engine: the connection is hijacked (101/200 written) before the process starts, so its first bytes
        // never share a read with the response head (docker-py loses what its HTTP parser buffered past the head),
        // and a start that fails is told in the stream, as stdout, with the message and CRLF.
        // As the engine: the start request's Tty (not the exec's) decides whether the output is framed.
        const tty = !!body.Tty;
        const wantOut = e.config.AttachStdout !== false;
        const wantErr = e.config.AttachStderr !== false;
        const h = hijack(req, res, RAW_STREAM, { commonHeaders: true });
        const out = h.stream;
        const send = (s: 'stdout' | 'stderr', chunk: Buffer) => {
          if (s === 'stdout' ? !wantOut : !wantErr) return;
          if (!out.destroyed) out.write(tty ? chunk : frame(streamType(s), chunk));
        };
        const started = await execs.start(e.id, send).catch((err: Error) => {
          const msg = Buffer.from(`${err.message}\r\n`);
          out.end(tty ? msg : frame(streamType('stdout'), msg));
        });
        if (!started) return;
        let detached = false;
        if (e.config.AttachStdin) {
          // detach keys only on a TTY, as the engine: plain stdin is copied byte for byte
          const watcher = e.config.Tty ? new DetachWatcher(parseDetachKeys(e.config.DetachKeys || undefined)) : undefined;
          const onData = (chunk: Buffer) => {
            const { forward, detach } = watcher ? watcher.feed(chunk) : { forward: chunk, detach: false };
            if (forward.length) started.io?.stdin()?.write(forward);
            if (detach && !detached) {
              detached = true;
              execs.detached(started);
              out.end();
            }
          };
          if (h.head.length) onData(h.head);
          out.on('data', onData);
          onClientEnd(out, () => void execs.closeStdin(started));
        } else out.resume();
        await started.done;
        if (!detached) out.end();
      },
    },
    {
      method: 'post',
      path: '/exec/:id/resize',
      handler: async (req, res) => {
        const h = queryInt(req, 'h', 0);
        const w = queryInt(req, 'w', 0);
        if (h <= 0 || w <= 0) throw invalidParameter('invalid resize dimensions');
        await execs.resize(param(req, 'id'), h, w);
        res.writeHead(201, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' });
        res.end();
      },
    },
    {
      method: 'get',
      path: '/exec/:id/json',
      handler: (req, res) => {
        const e = execs.get(param(req, 'id'));
        if (supports(req.apiVersion, 'ExecInspectContainer')) {
          const c = execs.findContainer(e.containerId);
          writeJSON(res, 200, toExecInspect(e, toContainerInspect(c, req.apiVersion, { execIds: execs.idsFor(c.Id) })), 'plain/text');
          return;
        }
        writeJSON(res, 200, toExecInspect(e));
      },
    },
  ];
}
