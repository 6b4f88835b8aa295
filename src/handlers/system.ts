// GET /_ping, /version, /info.
import type { Route } from '../http/app';
import { writeJSON, writeText } from '../http/respond';
import type { SystemService } from '../services/system';
import { toInfoJSON, toVersionJSON } from '../translate/response/system';

export function systemRoutes(system: SystemService): Route[] {
  const ping: Route['handler'] = (req, res) => {
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
    { method: 'get', path: '/_ping', handler: ping },
    { method: 'head', path: '/_ping', handler: ping },
    {
      method: 'get',
      path: '/version',
      handler: async (_req, res) => writeJSON(res, 200, toVersionJSON(await system.version())),
    },
    {
      method: 'get',
      path: '/info',
      handler: async (req, res) => writeJSON(res, 200, toInfoJSON(await system.info(), req.apiVersion)),
    },
  ];
}
