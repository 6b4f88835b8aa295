// GET /containers/(id)/stats (stream, or one sample with stream=0) and POST /containers/(id)/update.
import type { Route } from '../http/app';
import { param, queryBool, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import type { Containerd } from '../containerd/client';
import type { ContainerService } from '../services/containers';
import { readStats } from '../services/stats';
import { toStatsJSON, StatsReading } from '../translate/response/stats';
import { supports } from '../translate/version/features';
import type { HostConfig } from '../types/config';

export function statsRoutes(ctr: Containerd, containers: ContainerService): Route[] {
  return [
    {
      method: 'get',
      path: '/containers/:id/stats',
      handler: async (req, res) => {
        const rec = containers.find(param(req, 'id'));
        const stream = supports(req.apiVersion, 'StatsPreCPU') ? queryBool(req, 'stream', true) : true;
        const sample = async (prev?: StatsReading): Promise<StatsReading | undefined> => {
          const cur = containers.find(rec.Id);
          if (!cur.State.Running) return undefined;
          return readStats(ctr, rec.Id, cur.State.Pid).catch(() => undefined);
        };
        if (!stream) {
          // One sample, with precpu from a reading taken just before (as the engine's one-shot does).
          const first = await sample();
          if (first) await new Promise((r) => setTimeout(r, 100));
          const second = first ? await sample(first) : undefined;
          const empty: StatsReading = { read: '0001-01-01T00:00:00Z', metrics: {}, systemCpuNs: 0, onlineCpus: 0, networks: {} };
          writeJSON(res, 200, toStatsJSON(second ?? first ?? empty, first && second ? first : undefined, req.apiVersion, { id: rec.Id, name: rec.Name }));
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        let prev: StatsReading | undefined;
        let closed = false;
        req.on('close', () => (closed = true));
        while (!closed) {
          const cur = await sample(prev);
          if (!cur) break;
          res.write(JSON.stringify(toStatsJSON(cur, prev, req.apiVersion, { id: rec.Id, name: rec.Name })) + '\n');
          prev = cur;
          await new Promise((r) => setTimeout(r, 1000));
        }
        res.end();
      },
    },
    {
      method: 'post',
      path: '/containers/:id/update',
      handler: async (req, res) => {
        const body = ((await readJSON<HostConfig>(req)) ?? {}) as HostConfig;
        if (!supports(req.apiVersion, 'UpdateRestartPolicy')) delete body.RestartPolicy;
        const warnings = await containers.update(param(req, 'id'), body);
        writeJSON(res, 200, { Warnings: warnings });
      },
    },
  ];
}
