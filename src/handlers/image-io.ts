// Image archives and commit: GET /images/get?names=, GET /images/(name)/get (docker-save tarballs), POST /commit.
import type { Response } from 'express';
import type { Writable } from 'node:stream';
import type { Route } from '../http/app';
import { param, queryBool, queryString, queryStrings, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { invalidParameter } from '../errors';
import { decodeCommitConfig } from '../translate/request/bodies';
import type { CommitOptions } from '../types/image';

/** What the image archive routes need (services/save, services/commit). */
export interface ImageArchiveBackend {
  /** The named images resolved (a 404 before anything is written), then their docker-save archive to `start()`. */
  save(names: string[], start: () => Writable): Promise<void>;
  /** Returns the new image's id. */
  commit(o: CommitOptions): Promise<string>;
}

export function imageIoRoutes(archives: ImageArchiveBackend): Route[] {
  const send = async (names: string[], res: Response) => {
    if (names.length === 0) throw invalidParameter('no images were requested');
    await archives.save(names, () => {
      res.writeHead(200, { 'Content-Type': 'application/x-tar' });
      return res;
    });
  };
  return [
    { method: 'get', path: '/images/get', handler: (req, res) => send(queryStrings(req, 'names').flatMap((n) => n.split(',')).filter(Boolean), res) },
    { method: 'get', path: /^\/images\/(?<name>.+)\/get$/, handler: (req, res) => send([param(req, 'name')], res) },
    {
      method: 'post',
      path: '/commit',
      handler: async (req, res) => {
        const config = decodeCommitConfig(await readJSON(req)) ?? null;
        const id = await archives.commit({
          container: queryString(req, 'container') ?? '',
          repo: queryString(req, 'repo') || undefined,
          tag: queryString(req, 'tag') || undefined,
          comment: queryString(req, 'comment') || undefined,
          author: queryString(req, 'author') || undefined,
          pause: queryBool(req, 'pause', true),
          changes: queryStrings(req, 'changes'),
          config,
        });
        writeJSON(res, 201, { Id: id });
      },
    },
  ];
}
