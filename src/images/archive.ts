// Unpacks an image archive stream (docker-save or OCI layout) into a scratch directory, file by file, so that
// nothing is held whole in memory and nothing can be written outside that directory; then describes its images.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
// (tar-fs is loaded at the first image load: an idle berth does not hold it)
import type * as tarFs from 'tar-fs';
import { diskFullMessage, invalidParameter, systemError } from '../errors';
import { goTarMessage, UNTAR_FAILED } from '../translate/tar-errors';

export interface ArchiveLayer {
  file: string; // path in the scratch dir
  mediaType?: string; // OCI: from the manifest; docker-save: detected later
  digest?: string; // OCI: from the manifest
  size?: number;
}

export interface ArchiveImage {
  configFile: string;
  configDigest?: string; // OCI: from the manifest
  layers: ArchiveLayer[];
  /** Names as written in the archive (docker: RepoTags; OCI: io.containerd.image.name / ref.name). */
  tags: string[];
}

/**
 * Streams a tar into dir (tar-fs): regular files and directories only (links and devices mean nothing in an image
 * archive), names confined to dir, owned by berth, readable and writable by it.
 */
export async function extractTo(stream: Readable, dir: string): Promise<void> {
  // tar-fs closes a file it was writing with close(), which never comes for a stream that failed (a full disk): the
  // files it opens are kept here and destroyed on failure, so no descriptor outlives the extraction
  const opened = new Set<fs.WriteStream>();
  const xfs = {
    ...fs,
    createWriteStream: (p: fs.PathLike, o?: Parameters<typeof fs.createWriteStream>[1]) => {
      const ws = fs.createWriteStream(p, o);
      opened.add(ws);
      ws.once('close', () => opened.delete(ws));
      return ws;
    },
  };
  const opts: tarFs.ExtractOptions & { chown: boolean; fs: unknown } = {
    ignore: (_name, header) => header?.type !== 'file' && header?.type !== 'directory',
    chown: false, // (tar-fs 3's option; @types/tar-fs 2 does not list it)
    readable: true,
    writable: true,
    fs: xfs, // (tar-fs's option; not in @types/tar-fs 2 either)
  };
  const extract = (require('tar-fs') as typeof tarFs).extract(dir, opts);
  try {
    await pipeline(stream, extract);
  } catch (err) {
    for (const ws of opened) ws.destroy();
    // the disk filling up is berth's trouble, not the archive's
    const full = diskFullMessage(err);
    if (full) throw systemError(full, err);
    // (the engine's words; a 200 stream carries them, as the reference's)
    throw invalidParameter(`${UNTAR_FAILED}${goTarMessage((err as Error).message)}`);
  }
}

function readJSONFile<T>(p: string, what: string): T {
  try {
    return JSON.parse(fs.readFileSync(p, 'utf8')) as T;
  } catch (err) {
    throw invalidParameter(`invalid ${what}: ${(err as Error).message}`);
  }
}

const inside = (dir: string, rel: string): string => {
  const p = path.join(dir, path.posix.normalize('/' + rel).slice(1));
  if (!p.startsWith(dir + path.sep)) throw invalidParameter(`invalid path in archive: ${rel}`);
  return p;
};

/** Describes the images in an extracted archive. */
export function describeArchive(dir: string): ArchiveImage[] {
  if (fs.existsSync(path.join(dir, 'manifest.json'))) {
    const manifest = readJSONFile<{ Config: string; RepoTags?: string[] | null; Layers: string[] }[]>(path.join(dir, 'manifest.json'), 'manifest.json');
    if (!Array.isArray(manifest)) throw invalidParameter('invalid manifest.json');
    return manifest.map((m) => ({
      configFile: inside(dir, m.Config),
      layers: (m.Layers ?? []).map((l) => ({ file: inside(dir, l) })),
      tags: m.RepoTags ?? [],
    }));
  }
  if (fs.existsSync(path.join(dir, 'index.json'))) {
    type Desc = { mediaType: string; digest: string; size: number; annotations?: Record<string, string> };
    const blob = (d: string) => inside(dir, `blobs/${d.replace(':', '/')}`);
    const index = readJSONFile<{ manifests: Desc[] }>(path.join(dir, 'index.json'), 'index.json');
    const out: ArchiveImage[] = [];
    const visit = (d: Desc, names: string[]) => {
      if (/index|manifest\.list/.test(d.mediaType)) {
        const sub = readJSONFile<{ manifests: (Desc & { platform?: { os: string; architecture: string } })[] }>(blob(d.digest), 'index');
        const pick = sub.manifests.find((m) => !m.platform || (m.platform.os === 'linux' && m.platform.architecture === 'amd64')) ?? sub.manifests[0];
        if (pick) visit(pick, names);
        return;
      }
      const m = readJSONFile<{ config: Desc; layers: Desc[] }>(blob(d.digest), 'manifest');
      out.push({
        configFile: blob(m.config.digest),
        configDigest: m.config.digest,
        layers: m.layers.map((l) => ({ file: blob(l.digest), mediaType: l.mediaType, digest: l.digest, size: l.size })),
        tags: names,
      });
    };
    for (const d of index.manifests ?? []) {
      const a = d.annotations ?? {};
      const name = a['io.containerd.image.name'] ?? (a['org.opencontainers.image.ref.name'] && /[:/]/.test(a['org.opencontainers.image.ref.name']) ? a['org.opencontainers.image.ref.name'] : undefined);
      visit(d, name ? [name] : []);
    }
    return out;
  }
  // Neither docker-save's nor an OCI layout's: the engine then reads it as a pre-1.10 archive, whose `repositories`
  // names its images; berth reads no such archive, and says so only of one that has that file.
  if (fs.existsSync(path.join(dir, 'repositories'))) throw invalidParameter('invalid archive: a pre-1.10 docker save archive (no manifest.json) is not supported');
  throw invalidParameter(`open ${path.join(dir, 'repositories')}: no such file or directory`);
}
