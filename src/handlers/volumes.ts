// Volume endpoints: list (filters per version), create, inspect, remove.
import type { Route } from '../http/app';
import { param, queryBool, queryFilters, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import { decodeVolumeCreate } from '../translate/request/bodies';
import { checkFilterKeys, filterVolumes, volumeFilterKeys } from '../translate/filters';
import { toVolumeJSON } from '../translate/response/volumes';
import { supports } from '../translate/version/features';
import type { Volume } from '../types/volume';

/** What the volume routes need (services/volumes). */
export interface VolumesBackend {
  /** berth's volumes and those the active drivers list, with a warning per failing driver */
  listAll(): Promise<{ volumes: Volume[]; warnings: string[] }>;
  /** a volume as inspect shows it (a plugin volume asked of its driver) */
  inspect(name: string): Promise<Volume>;
  create(name: string | undefined, driver: string | undefined, opts: Record<string, string> | null, labels: Record<string, string> | null): Promise<Volume>;
  remove(name: string, opts?: { force?: boolean }): Promise<void>;
  /** The containers that use a volume (the `dangling` filter). */
  usersOf(name: string): string[];
}

export function volumeRoutes(volumes: VolumesBackend): Route[] {
  return [
    {
      method: 'get',
      path: '/volumes',
      handler: async (req, res) => {
        const f = queryFilters(req);
        checkFilterKeys(f, volumeFilterKeys(req.apiVersion));
        const all = await volumes.listAll();
        const list = filterVolumes(all.volumes, f, (name) => volumes.usersOf(name).length > 0);
        writeJSON(res, 200, { Volumes: list.map((v) => toVolumeJSON(v, req.apiVersion)), Warnings: all.warnings.length ? all.warnings : null });
      },
    },
    {
      method: 'post',
      path: '/volumes/create',
      handler: async (req, res) => {
        const body = decodeVolumeCreate(await readJSON(req)) ?? {};
        const labels = supports(req.apiVersion, 'VolumeLabelsScope') ? body.Labels ?? null : null;
        const v = await volumes.create(body.Name, body.Driver, body.DriverOpts ?? null, labels);
        writeJSON(res, 201, toVolumeJSON(v, req.apiVersion));
      },
    },
    { method: 'get', path: '/volumes/:name', handler: async (req, res) => writeJSON(res, 200, toVolumeJSON(await volumes.inspect(param(req, 'name')), req.apiVersion)) },
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
