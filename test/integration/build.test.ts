// POST /build against real containerd: every instruction, the output stream, the cache, contexts, bad inputs.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import * as zlib from 'node:zlib';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();

/** A tar of the given files (string content, or {content, mode}, or {link}). */
async function contextTar(files: Record<string, string | { content?: string; mode?: number; link?: string; dir?: boolean }>): Promise<Buffer> {
  const pack = tar.pack();
  const mtime = new Date('2024-01-01T00:00:00Z');
  for (const [name, f] of Object.entries(files)) {
    if (typeof f === 'string') pack.entry({ name, mode: 0o644, mtime }, f);
    else if (f.link) pack.entry({ name, type: 'symlink', linkname: f.link, mtime });
    else if (f.dir) pack.entry({ name, type: 'directory', mode: f.mode ?? 0o755, mtime });
    else pack.entry({ name, mode: f.mode ?? 0o644, mtime }, f.content ?? '');
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function build(query: string, body: Buffer, version = '1.24', headers: Record<string, string> = {}) {
  const r = await berth().request('POST', `/v${version}/build?${query}`, { body, headers: { 'Content-Type': 'application/x-tar', ...headers } });
  const lines = r.status === 200 ? r.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : [];
  const stream = lines.map((l) => l.stream ?? '').join('');
  const error = lines.find((l) => l.error);
  const aux = lines.find((l) => l.aux)?.aux?.ID as string | undefined;
  return { status: r.status, text: r.text, lines, stream, error, aux };
}

async function inspect(name: string) {
  return (await berth().request('GET', `/v1.24/images/${name}/json`)).json();
}

async function run(image: string, cmd: string[]): Promise<string> {
  const r = await berth().docker(['run', '--rm', '--network', 'none', image, ...cmd]);
  return r.stdout + r.stderr;
}

describe('POST /build', () => {
  test('the output stream is the reference\'s, config and history are the engine\'s', async () => {
    const ctx = await contextTar({
      Dockerfile: 'FROM busybox:latest\nENV FOO=bar\nCOPY a.txt /a.txt\nRUN echo hi && echo err >&2\nCMD ["sh"]\n',
      'a.txt': 'hello\n',
    });
    const r = await build('t=build-basic', ctx);
    expect(r.status).toBe(200);
    expect(r.error).toBeUndefined();
    const id12 = r.aux!.slice(7, 19);
    const expected = [
      /^Step 1\/5 : FROM busybox:latest$/, /^\n$/, /^ ---> [0-9a-f]{12}\n$/,
      /^Step 2\/5 : ENV FOO=bar$/, /^\n$/, /^ ---> Running in [0-9a-f]{12}\n$/, /^Removing intermediate container [0-9a-f]{12}\n$/, /^ ---> [0-9a-f]{12}\n$/,
      /^Step 3\/5 : COPY a.txt \/a.txt$/, /^\n$/, /^ ---> [0-9a-f]{12}\n$/,
      /^Step 4\/5 : RUN echo hi && echo err >&2$/, /^\n$/, /^ ---> Running in [0-9a-f]{12}\n$/, /^(hi\n|\u001b\[91merr\n\u001b\[0m)$/, /^(hi\n|\u001b\[91merr\n\u001b\[0m)$/, /^Removing intermediate container [0-9a-f]{12}\n$/, /^ ---> [0-9a-f]{12}\n$/,
      /^Step 5\/5 : CMD \["sh"\]$/, /^\n$/, /^ ---> Running in [0-9a-f]{12}\n$/, /^Removing intermediate container [0-9a-f]{12}\n$/, /^ ---> [0-9a-f]{12}\n$/,
    ];
    // stdout and stderr are two pipes: their relative order is not fixed (the reference's neither).
    const streams = r.lines.filter((l) => l.stream !== undefined).map((l) => l.stream as string);
    expect(streams.filter((s) => s === 'hi\n' || s === '\u001b[91merr\n\u001b[0m').sort()).toEqual(['hi\n', '\u001b[91merr\n\u001b[0m']);
    expect(streams.slice(0, expected.length).map((s, i) => expected[i].test(s) || s)).toEqual(expected.map(() => true));
    expect(streams.slice(expected.length)).toEqual([`Successfully built ${id12}\n`, 'Successfully tagged build-basic:latest\n']);
    expect(r.text).toContain('" ---\\u003e Running in ');
    const img = await inspect('build-basic');
    expect(img.Config.Env).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'FOO=bar']);
    expect(img.Config.Cmd).toEqual(['sh']);
    expect(img.ContainerConfig.Cmd).toEqual(['/bin/sh', '-c', '#(nop) ', 'CMD ["sh"]']);
    expect(img.RootFS.Layers).toHaveLength(2); // busybox + COPY (RUN changed nothing)
    const hist = (await berth().request('GET', '/v1.24/images/build-basic/history')).json();
    expect(hist.map((h: any) => h.CreatedBy).slice(0, 4)).toEqual([
      '/bin/sh -c #(nop)  CMD ["sh"]',
      '/bin/sh -c echo hi && echo err >&2',
      expect.stringMatching(/^\/bin\/sh -c #\(nop\) COPY file:[0-9a-f]{64} in \/a.txt $/),
      '/bin/sh -c #(nop)  ENV FOO=bar',
    ]);
    expect(await run('build-basic', ['cat', '/a.txt'])).toBe('hello\n');
    // No container is left behind.
    expect((await berth().request('GET', '/v1.24/containers/json?all=1')).json()).toEqual([]);
  });
});
