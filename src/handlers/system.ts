// GET /_ping, /version, /info.
import type { ServerResponse } from 'node:http';
import type { Route } from '../http/app';
import { writeJSON, writeText } from '../http/respond';
import { toInfoJSON, toVersionJSON } from '../translate/response/system';
import type { SystemInfo, VersionInfo } from '../types/system';

/** What /version and /info need (services/system). */
export interface SystemBackend {
  version(): Promise<VersionInfo>;
  info(): Promise<SystemInfo>;
}

/** GET /info's Swarm section for a node in a swarm (undefined: outside one, the inactive section stays). */
export type SwarmSection = () => Promise<Record<string, unknown> | undefined>;

export function systemRoutes(system: SystemBackend, swarmSection?: SwarmSection): Route[] {
  const ping = (req: { method?: string }, res: ServerResponse): void => {
    res.setHeader('Cache-Control', 'no-cache, no-store, must-revalidate');
    res.setHeader('Pragma', 'no-cache');
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '0' });
      res.end();
      return;
    }
    writeText(res, 200, 'OK');
  };
  return [
    // (asked before every docker command, and over and over by health probes: the lean path, LeanRoute)
    { method: 'get', path: '/_ping', handler: ping, lean: { path: /^\/_ping$/, query: [], handler: ping } },
    { method: 'head', path: '/_ping', handler: ping, lean: { path: /^\/_ping$/, query: [], handler: ping } },
    {
      method: 'get',
      path: '/version',
      handler: async (_req, res) => writeJSON(res, 200, toVersionJSON(await system.version())),
    },
    {
      method: 'get',
      path: '/info',
      handler: async (_req, res) => {
        const [info, swarm] = await Promise.all([system.info(), swarmSection?.()]);
        const json = toInfoJSON(info);
        if (swarm && 'Swarm' in json) json.Swarm = swarm;
        writeJSON(res, 200, json);
      },
    },
  ];
}
