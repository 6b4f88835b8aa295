// berth's own version, read once from package.json.
import * as fs from 'node:fs';
import * as path from 'node:path';

function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return JSON.parse(fs.readFileSync(path.resolve(__dirname, rel), 'utf8')).version as string;
    } catch {
      /* next */
    }
  }
  return '0.0.0';
}

export const BERTH_VERSION = readVersion();
export const GIT_COMMIT = process.env.BERTH_GIT_COMMIT ?? 'unknown';
