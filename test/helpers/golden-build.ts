// The build output streams compared with the reference engine's classic builder (test/golden/build/streams.json,
// captured from Docker Engine 20.10 by scripts/capture-golden-build.sh): steps that need a container right after
// `FROM scratch` (a config-only step, WORKDIR, a RUN that fails for want of a shell) and WORKDIR on an image.
// Ids are replaced by <id>; berth's `aux` message (sent at every version, a deliberate difference) is left out.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import { request } from './berth';

export const BUILD_CASES: Record<string, string> = {
  'scratch-run': 'FROM scratch\nRUN echo hi\n',
  'scratch-config-then-run': 'FROM scratch\nENV a=b\nCMD ["x"]\nWORKDIR /w\nRUN echo hi\n',
  'scratch-workdir': 'FROM scratch\nWORKDIR /w\nLABEL l=v\n',
  workdir: 'FROM busybox:latest\nWORKDIR /w\nWORKDIR rel\n',
};

export async function dockerfileTar(dockerfile: string): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile', mode: 0o644, mtime: new Date('2024-01-01T00:00:00Z') }, dockerfile);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The stream's messages, ids replaced, without `aux`. */
export function normaliseBuildStream(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((m) => !('aux' in m))
    .map((m) => JSON.parse(JSON.stringify(m).replace(/\b[0-9a-f]{12}\b/g, '<id>')) as Record<string, unknown>);
}

/** Builds each case (nocache) on `socket`; returns the raw streams by case. */
export async function buildCases(socket: string, extraQuery = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, df] of Object.entries(BUILD_CASES)) {
    const r = await request(socket, 'POST', `/v1.24/build?nocache=1${extraQuery}`, { body: await dockerfileTar(df), headers: { 'Content-Type': 'application/x-tar' } });
    if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.text}`);
    out[name] = r.text;
  }
  return out;
}

/** Capture: node dist/test/helpers/golden-build.js REF_SOCK [outdir]; removes what the builds left on the reference. */
async function capture(socket: string, outDir: string): Promise<void> {
  const before = new Set(((await request(socket, 'GET', '/v1.24/containers/json?all=1')).json() as { Id: string }[]).map((c) => c.Id));
  // The shared reference runs with --bridge=none: RUN steps there get no network (the stream is the same).
  const raw = await buildCases(socket, '&networkmode=none');
  for (const c of (await request(socket, 'GET', '/v1.24/containers/json?all=1')).json() as { Id: string }[]) if (!before.has(c.Id)) await request(socket, 'DELETE', `/v1.24/containers/${c.Id}?force=1`);
  for (const text of Object.values(raw)) {
    const ids = [...text.matchAll(/ ---\\u003e ([0-9a-f]{12})\\n/g)].map((m) => m[1]).filter((id) => id).reverse();
    for (const id of ids) await request(socket, 'DELETE', `/v1.24/images/${id}?force=1`);
  }
  const golden = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, normaliseBuildStream(v)]));
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'streams.json'), JSON.stringify({ engine: 'Docker Engine 20.10 classic builder, POST /v1.24/build?nocache=1', cases: BUILD_CASES, streams: golden }, null, 2) + '\n');
}

if (require.main === module) {
  capture(process.argv[2], process.argv[3] ?? path.join(__dirname, '..', '..', '..', 'test', 'golden', 'build')).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
