// GET /containers/(id)/stats: a stream of readings, or one with stream=0.
import type { ServerResponse } from 'node:http';
import type { ApiRequest, Route } from '../http/app';
import { boolValue, param, queryString } from '../http/query';
import { writeJSON } from '../http/respond';
import { isZeroReading, toStatsJSON, toZeroStatsJSON, StatsReading } from '../translate/response/stats';
import { supports } from '../translate/version/features';
import type { ContainerRecord } from '../types/container';

/** What the stats route needs: the container, and its readings (services/stats). */
export interface StatsBackend {
  find(ref: string): ContainerRecord;
  once(id: string): Promise<{ cur: StatsReading; prev?: StatsReading }>;
  stream(id: string, open: () => boolean): AsyncIterable<StatsReading>;
}

export function statsRoutes(stats: StatsBackend): Route[] {
  /** The answer for container `ref`; `stream`: the query's value (undefined when not given). */
  const answer = async (req: ApiRequest, res: ServerResponse, ref: string, streamParam: string | undefined): Promise<void> => {
    const rec = stats.find(ref);
    const who = { id: rec.Id, name: rec.Name };
    const stream = supports(req.apiVersion, 'StatsPreCPU') && streamParam !== undefined ? boolValue(streamParam) : true;
    if (!stream) {
      const { cur, prev } = await stats.once(rec.Id);
      writeJSON(res, 200, isZeroReading(cur) ? toZeroStatsJSON(undefined, req.apiVersion, who, true) : toStatsJSON(cur, prev, req.apiVersion, who));
      return;
    }
    // The reference's stream of readings names no content type (its single reading is application/json).
    res.writeHead(200);
    res.flushHeaders();
    let prev: StatsReading | undefined;
    let closed = false;
    req.on('close', () => (closed = true));
    for await (const cur of stats.stream(rec.Id, () => !closed)) {
      res.write(JSON.stringify(isZeroReading(cur) ? toZeroStatsJSON(prev, req.apiVersion, who, false) : toStatsJSON(cur, prev, req.apiVersion, who)) + '\n');
      prev = cur;
    }
    res.end();
  };
  return [
    {
      method: 'get',
      path: '/containers/:id/stats',
      handler: (req, res) => answer(req, res, param(req, 'id'), queryString(req, 'stream')),
      // (docker stats asks for every container at once, a connection each)
      lean: { path: /^\/containers\/([^/]+)\/stats$/, query: ['stream'], handler: (req, res, [id], q) => answer(req, res, id, q.stream) },
    },
  ];
}
