// Volume endpoints: list (filters per version), create, inspect, remove.
import type { Route } from '../http/app';
import { param, queryBool, queryFilters, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import { invalidParameter } from '../errors';
import type { VolumeService } from '../services/volumes';
import { toVolumeJSON } from '../translate/response/volumes';
import { supports } from '../translate/version/features';

const BOOL = ['true', 'false', '1', '0'];

export function volumeRoutes(volumes: VolumeService): Route[] {
  return [
    {
      method: 'get',
      path: '/volumes',
      handler: (req, res) => {
        const f = queryFilters(req);
        const allowed = supports(req.apiVersion, 'VolumeLabelsScope') ? ['dangling', 'name', 'driver', 'label'] : ['dangling'];
        for (const k of f.keys()) if (!allowed.includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
        let list = volumes.list();
        const dangling = f.get('dangling');
        if (dangling?.length) {
          const d = dangling[0].toLowerCase();
          if (!BOOL.includes(d)) throw invalidParameter(`Invalid filter 'dangling=${dangling[0]}'`);
          const want = d === 'true' || d === '1';
          list = list.filter((v) => (volumes.usersOf(v.Name).length === 0) === want);
        }
        const names = f.get('name');
        if (names?.length) list = list.filter((v) => names.some((n) => v.Name.includes(n)));
        const drivers = f.get('driver');
        if (drivers?.length) list = list.filter((v) => drivers.some((d) => v.Driver.includes(d)));
        const labels = f.get('label');
        if (labels?.length)
          list = list.filter((v) => labels.every((l) => {
            const i = l.indexOf('=');
            const lab = v.Labels ?? {};
            return i < 0 ? l in lab : lab[l.slice(0, i)] === l.slice(i + 1);
          }));
        writeJSON(res, 200, { Volumes: list.map((v) => toVolumeJSON(v, req.apiVersion)), Warnings: null });
      },
    },
    {
      method: 'post',
      path: '/volumes/create',
      handler: async (req, res) => {
        const body = (await readJSON<{ Name?: string; Driver?: string; DriverOpts?: Record<string, string>; Labels?: Record<string, string> }>(req)) ?? {};
        const labels = supports(req.apiVersion, 'VolumeLabelsScope') ? body.Labels ?? null : null;
        const v = await volumes.create(body.Name, body.Driver, body.DriverOpts ?? null, labels);
        writeJSON(res, 201, toVolumeJSON(v, req.apiVersion));
      },
    },
    { method: 'get', path: '/volumes/:name', handler: (req, res) => writeJSON(res, 200, toVolumeJSON(volumes.get(param(req, 'name')), req.apiVersion)) },
    {
      method: 'delete',
      path: '/volumes/:name',
      handler: async (req, res) => {
        await volumes.remove(param(req, 'name'), { force: queryBool(req, 'force') });
        writeNoContent(res);
      },
    },
  ];
}
