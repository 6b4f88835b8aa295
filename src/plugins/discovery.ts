// Legacy plugin discovery, as the engine's: by name, first a socket `<sockdir>/NAME.sock` or
// `<sockdir>/NAME/NAME.sock`, then in each spec directory `NAME.spec` (one URL) or `NAME.json` ({Name, Addr}),
// also inside a `NAME/` folder. The directories are berth's flags (defaults: the engine's).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PluginAddress } from './client';

export interface DiscoveryDirs {
  socketDir: string;
  specDirs: string[];
}

/** A plugin name is a single path element (the engine refuses the rest as not found). */
const VALID = /^[^/\\\0]+$/;

/** `unix:///p` | `tcp://h:p` → an address; anything else undefined (the engine: "Unknown protocol"). */
export function parseAddress(url: string): PluginAddress | { error: string } {
  const u = url.trim();
  const m = /^([a-z]+):\/\/(.*)$/.exec(u);
  if (!m) return { error: `Unknown protocol` };
  if (m[1] === 'unix') return { network: 'unix', address: m[2] };
  if (m[1] === 'tcp') return { network: 'tcp', address: m[2] };
  return { error: `Unknown protocol` };
}

function isSocket(p: string): boolean {
  try {
    return fs.statSync(p).isSocket();
  } catch {
    return false;
  }
}

/** Where a legacy plugin called `name` listens, or undefined when nothing names it. Throws on a broken spec file. */
export function discover(dirs: DiscoveryDirs, name: string): PluginAddress | undefined {
  if (!VALID.test(name) || name === '.' || name === '..') return undefined;
  for (const s of [path.join(dirs.socketDir, `${name}.sock`), path.join(dirs.socketDir, name, `${name}.sock`)]) if (isSocket(s)) return { network: 'unix', address: s };
  for (const dir of dirs.specDirs)
    for (const base of [path.join(dir, name), path.join(dir, name, name)])
      for (const ext of ['.spec', '.json']) {
        let text: string;
        try {
          text = fs.readFileSync(base + ext, 'utf8');
        } catch {
          continue;
        }
        let url = text;
        if (ext === '.json') {
          try {
            url = String((JSON.parse(text) as { Addr?: string }).Addr ?? '');
          } catch (err) {
            throw new Error(`${base + ext}: ${(err as Error).message}`);
          }
        }
        const a = parseAddress(url);
        if ('error' in a) throw new Error(a.error);
        return a;
      }
  return undefined;
}
