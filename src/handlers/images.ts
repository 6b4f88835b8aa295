// Local image endpoints: load, list, inspect, history, tag, remove.
import type { Readable } from 'node:stream';
import type { Route } from '../http/app';
import { param, queryBool, queryFilters, queryString } from '../http/query';
import { startJSONStream, writeJSON } from '../http/respond';
import { asBerthError, BerthError, invalidParameter, notFound } from '../errors';
import { parseReference, Reference, withDefaultTag, withTag } from '../translate/reference';
import { checkImageFilters, filterImages, imageFilterRef } from '../translate/filters';
import { toImageHistory, toImageInspect, toImageSummary } from '../translate/response/images';
import { supports } from '../translate/version/features';
import type { DeleteResult, ResolvedImage } from '../types/image';

const NAME = (suffix: string) => new RegExp(`^/images/(?<name>.+)${suffix}$`);

/** What the local image routes need (services/images). */
export interface ImagesBackend {
  /** The snapshotter images are unpacked with (inspect's GraphDriver). */
  readonly snapshotter: string;
  /** GraphDriver.Data: the image's layer directories (null when unknown). */
  graphDriverData(img: ResolvedImage): Promise<Record<string, string> | null>;
  load(body: Readable, progress: (msg: Record<string, unknown>) => void, quiet: boolean): Promise<void>;
  list(): Promise<ResolvedImage[]>;
  resolve(ref: string): Promise<ResolvedImage>;
  layerSizes(img: ResolvedImage): Promise<number[]>;
  tag(image: ResolvedImage, ref: Reference): Promise<void>;
  remove(ref: string, opts: { force: boolean; noprune: boolean }): Promise<DeleteResult[]>;
}

export function imageRoutes(images: ImagesBackend): Route[] {
  return [
    {
      method: 'post',
      path: '/images/load',
      handler: async (req, res) => {
        const quiet = queryBool(req, 'quiet') || !supports(req.apiVersion, 'LoadProgressStream');
        const write = startJSONStream(res);
        try {
          await images.load(req, (msg) => write(msg), quiet);
        } catch (err) {
          const message = asBerthError(err).message;
          write({ errorDetail: { message }, error: message });
        }
        res.end();
      },
    },
    {
      method: 'get',
      path: '/images/json',
      handler: async (req, res) => {
        const filters = queryFilters(req);
        checkImageFilters(filters);
        const ref = (key: 'before' | 'since') => {
          const r = imageFilterRef(filters, key);
          return r === undefined ? undefined : images.resolve(r);
        };
        const before = await ref('before');
        const since = await ref('since');
        const list = filterImages(await images.list(), { all: queryBool(req, 'all'), name: queryString(req, 'filter'), filters, before, since });
        writeJSON(res, 200, list.map((i) => toImageSummary(i, req.apiVersion)));
      },
    },
    {
      method: 'get',
      path: NAME('/json'),
      handler: async (req, res) => {
        const name = param(req, 'name');
        // The engine wraps the lookup's error with the name as given: "no such image: nope: No such image: nope:latest".
        const img = await images.resolve(name).catch((err: unknown) => {
          throw err instanceof BerthError && err.kind === 'NotFound' ? notFound(`no such image: ${name}: ${(err as Error).message}`) : err;
        });
        writeJSON(res, 200, toImageInspect(img, images.snapshotter, await images.graphDriverData(img)));
      },
    },
    {
      method: 'get',
      path: NAME('/history'),
      handler: async (req, res) => {
        const img = await images.resolve(param(req, "name"));
        writeJSON(res, 200, toImageHistory(img, { sizes: await images.layerSizes(img) }, req.apiVersion));
      },
    },
    {
      method: 'post',
      path: NAME('/tag'),
      handler: async (req, res) => {
        const img = await images.resolve(param(req, "name"));
        const repo = queryString(req, 'repo') ?? '';
        const tag = queryString(req, 'tag') ?? '';
        if (!repo) throw invalidParameter('repository name must have at least one component');
        // the engine parses the repository, then sets the tag (reference.WithTag: `invalid tag format`)
        const parsed = parseReference(repo);
        const ref = tag ? withTag(parsed, tag) : parsed;
        if (ref.digest) throw invalidParameter('refusing to create a tag with a digest reference');
        await images.tag(img, withDefaultTag(ref));
        res.writeHead(201);
        res.end();
      },
    },
    {
      method: 'delete',
      path: NAME(''),
      handler: async (req, res) =>
        writeJSON(res, 200, await images.remove(param(req, "name"), { force: queryBool(req, 'force'), noprune: queryBool(req, 'noprune') })),
    },
  ];
}

