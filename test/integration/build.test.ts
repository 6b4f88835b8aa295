// POST /build against real containerd: every instruction, the output stream, the cache, contexts, bad inputs.
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import * as zlib from 'node:zlib';
import { berthWithBusybox } from '../helpers/suite';
import { listSnapshots } from '../helpers/cleanup';
import { startRegistry } from '../helpers/registry';
import { buildCases, normaliseBuildStream } from '../helpers/golden-build';

const berth = berthWithBusybox();

/** A tar of the given files (string content, or {content, mode}, or {link}). */
async function contextTar(files: Record<string, string | { content?: string; mode?: number; link?: string; dir?: boolean }>): Promise<Buffer> {
  const pack = tar.pack();
  const mtime = new Date('2024-01-01T00:00:00Z');
  for (const [name, f] of Object.entries(files)) {
    if (typeof f === 'string') pack.entry({ name, mode: 0o644, mtime }, Buffer.from(f, 'latin1'));
    else if (f.link) pack.entry({ name, type: 'symlink', linkname: f.link, mtime });
    else if (f.dir) pack.entry({ name, type: 'directory', mode: f.mode ?? 0o755, mtime });
    else pack.entry({ name, mode: f.mode ?? 0o644, mtime }, Buffer.from(f.content ?? '', 'latin1'));
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
    expect(streams.filter((s) => s === 'hi\n' || s === '\u001b[91merr\n\u001b[0m').sort()).toEqual(['\u001b[91merr\n\u001b[0m', 'hi\n']);
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

describe('instructions', () => {
  test('every instruction leaves the reference\'s config and history; unused build-args warn', async () => {
    const ctx = await contextTar({
      Dockerfile: [
        'FROM busybox:latest', 'ARG A1=def', 'ARG A2', 'LABEL a=b "c d"="e f"', 'MAINTAINER me <me@x>', 'EXPOSE 80 53/udp', 'VOLUME /data',
        'VOLUME ["/v1", "/v2"]', 'USER 1000:1000', 'USER 0', 'WORKDIR /w/x', 'WORKDIR rel', 'STOPSIGNAL SIGUSR1',
        'HEALTHCHECK --interval=5s --retries=2 CMD echo ok', 'SHELL ["/bin/sh", "-xc"]', 'ENTRYPOINT echo e', 'CMD echo c $A1',
        'ENV K=V K2="x y"', 'ENV K3 a b', 'RUN echo $A1 $A2 > /w/args', 'ONBUILD RUN echo onb', 'COPY d /dd/', 'ADD d/g d/e /ee/', 'COPY --chown=7:8 d/g /owned', '',
      ].join('\n'),
      'd/e/f': 'x\n',
      'd/g': 'y\n',
      'd/link': { link: 'g' },
    });
    const r = await build(`t=build-all&buildargs=${encodeURIComponent(JSON.stringify({ A2: 'v2', UNUSED: '1' }))}`, ctx);
    expect(r.error).toBeUndefined();
    expect(r.stream).toContain('[Warning] One or more build-args [UNUSED] were not consumed\n');
    const img = await inspect('build-all');
    expect(img.Config).toMatchObject({
      User: '0',
      ExposedPorts: { '53/udp': {}, '80/tcp': {} },
      Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'K=V', 'K2=x y', 'K3=a b'],
      Cmd: ['/bin/sh', '-xc', 'echo c $A1'],
      Healthcheck: { Test: ['CMD-SHELL', 'echo ok'], Interval: 5000000000, Retries: 2 },
      Volumes: { '/data': {}, '/v1': {}, '/v2': {} },
      WorkingDir: '/w/x/rel',
      Entrypoint: ['/bin/sh', '-xc', 'echo e'],
      OnBuild: ['RUN echo onb'],
      Labels: { a: 'b', 'c d': 'e f' },
      StopSignal: 'SIGUSR1',
      Shell: ['/bin/sh', '-xc'],
    });
    expect(img.Author).toBe('me <me@x>');
    const hist = (await berth().request('GET', '/v1.24/images/build-all/history')).json().map((h: any) => h.CreatedBy).reverse().slice(1);
    expect(hist.slice(0, 21)).toEqual([
      '/bin/sh -c #(nop)  ARG A1=def', '/bin/sh -c #(nop)  ARG A2', '/bin/sh -c #(nop)  LABEL a=b c d=e f', '/bin/sh -c #(nop)  MAINTAINER me <me@x>',
      '/bin/sh -c #(nop)  EXPOSE 53/udp 80', '/bin/sh -c #(nop)  VOLUME [/data]', '/bin/sh -c #(nop)  VOLUME [/v1 /v2]', '/bin/sh -c #(nop)  USER 1000:1000',
      '/bin/sh -c #(nop)  USER 0', '/bin/sh -c #(nop) WORKDIR /w/x', '/bin/sh -c #(nop) WORKDIR /w/x/rel', '/bin/sh -c #(nop)  STOPSIGNAL SIGUSR1',
      '/bin/sh -c #(nop)  HEALTHCHECK &{["CMD-SHELL" "echo ok"] "5s" "0s" "0s" \'\\x02\'}', '/bin/sh -xc #(nop)  SHELL [/bin/sh -xc]',
      '/bin/sh -xc #(nop)  ENTRYPOINT ["/bin/sh" "-xc" "echo e"]', '/bin/sh -xc #(nop)  CMD ["/bin/sh" "-xc" "echo c $A1"]', '/bin/sh -xc #(nop)  ENV K=V K2=x y',
      '/bin/sh -xc #(nop)  ENV K3=a b', '|2 A1=def A2=v2 /bin/sh -xc echo $A1 $A2 > /w/args', '/bin/sh -xc #(nop)  ONBUILD RUN echo onb',
      expect.stringMatching(/^\/bin\/sh -xc #\(nop\) COPY dir:[0-9a-f]{64} in \/dd\/ $/),
    ]);
    expect(hist[21]).toMatch(/^\/bin\/sh -xc #\(nop\) ADD multi:[0-9a-f]{64} in \/ee\/ $/);
    const out = await berth().docker(['run', '--rm', '--network', 'none', 'build-all']);
    expect(out.stdout).toBe('e\n'); // ENTRYPOINT shell form ignores CMD
    const ls = await berth().docker(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', 'build-all', '-c', 'cat /w/args; set -- $(ls -ln /owned); echo $3:$4; cat /dd/e/f /dd/g /ee/f /ee/g; readlink /dd/link; ls -d /w/x/rel']);
    expect(ls.stdout).toBe('def v2\n7:8\nx\ny\nx\ny\ng\n/w/x/rel\n');
  });

  test('ADD of local archives (gzip, bzip2, xz, plain) extracts them; a child build runs ONBUILD triggers', async () => {
    const inner = await contextTar({ 'in/file': 'inside\n' });
    const gz = zlib.gzipSync(inner);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-build-'));
    fs.writeFileSync(path.join(dir, 't.tar'), inner);
    const bz = execFileSync('bzip2', ['-c', path.join(dir, 't.tar')]);
    const xz = execFileSync('xz', ['-c', path.join(dir, 't.tar')]);
    fs.rmSync(dir, { recursive: true });
    const ctx = await contextTar({ Dockerfile: 'FROM busybox\nADD a.tar.gz /gz/\nADD a.tar.bz2 /bz/\nADD a.tar.xz /xz/\nADD a.tar /plain/\nONBUILD RUN echo triggered > /trig\n', 'a.tar.gz': gz.toString('latin1'), 'a.tar.bz2': bz.toString('latin1'), 'a.tar.xz': xz.toString('latin1'), 'a.tar': inner.toString('latin1') });
    // string contents are written as latin1 bytes by contextTar
    const r = await build('t=build-add', ctx);
    expect(r.error).toBeUndefined();
    const child = await build('t=build-child', await contextTar({ Dockerfile: 'FROM build-add\nRUN cat /trig\n' }));
    expect(child.error).toBeUndefined();
    expect(child.stream).toContain('# Executing 1 build trigger\n');
    expect(child.stream).toContain('triggered\n');
    expect(await run('build-add', ['cat', '/gz/in/file', '/bz/in/file', '/xz/in/file', '/plain/in/file'])).toBe('inside\n'.repeat(4));
  });
});

describe('cache', () => {
  // d/x/y only implies d and d/x: their extraction time must not change the directory COPY's checksum.
  const df = 'FROM busybox\nARG V=1\nCOPY f /f\nCOPY d /d\nRUN echo $V > /v\nCMD ["cat", "/v"]\n';
  test('hit, miss after a source change, miss after a build-arg change, nocache, after a restart', async () => {
    const first = await build('t=build-cache', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z' }));
    expect(first.error).toBeUndefined();
    const again = await build('t=build-cache', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z' }));
    expect(again.aux).toBe(first.aux);
    expect(again.stream.match(/ ---> Using cache\n/g)).toHaveLength(5);
    expect(again.stream).not.toContain('Running in');
    const changed = await build('', await contextTar({ Dockerfile: df, f: 'two', 'd/x/y': 'z' }));
    expect(changed.stream.match(/ ---> Using cache\n/g)).toHaveLength(1); // ARG only
    // one file's mode, and one file's content among many in a directory (their digests are taken in parallel)
    const mode = await build('', await contextTar({ Dockerfile: df, f: { content: 'one', mode: 0o755 }, 'd/x/y': 'z' }));
    expect(mode.stream.match(/ ---> Using cache\n/g)).toHaveLength(1);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`d/m/f${i}`, `c${i}`]));
    const base = await build('', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z', ...many }));
    expect(base.stream.match(/ ---> Using cache\n/g)).toHaveLength(2); // ARG, COPY f
    const deep = await build('', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z', ...many, 'd/m/f17': 'other' }));
    expect(deep.stream.match(/ ---> Using cache\n/g)).toHaveLength(2);
    const same = await build('', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z', ...many }));
    expect(same.stream.match(/ ---> Using cache\n/g)).toHaveLength(5);
    const arg = await build(`buildargs=${encodeURIComponent('{"V":"2"}')}`, await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z' }));
    expect(arg.stream.match(/ ---> Using cache\n/g)).toHaveLength(3); // ARG, COPY f, COPY d
    expect(await run(arg.aux!, [])).toBe('2\n');
    const nocache = await build('nocache=1', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z' }));
    expect(nocache.stream).not.toContain('Using cache');
    expect(nocache.aux).not.toBe(first.aux);
    await berth().restart();
    const after = await build('', await contextTar({ Dockerfile: df, f: 'one', 'd/x/y': 'z' }));
    expect(after.stream.match(/ ---> Using cache\n/g)).toHaveLength(5);
    // intermediate images are untagged parents, listed with all=1 only
    const all = (await berth().request('GET', '/v1.24/images/json?all=1')).json();
    const top = (await berth().request('GET', '/v1.24/images/json')).json();
    expect(all.length).toBeGreaterThan(top.length + 3);
  });
});

describe('multi-stage, .dockerignore, context rules', () => {
  test('AS and COPY --from a stage and an image; dockerfile= in a subfolder; q=1 prints the id only', async () => {
    const ctx = await contextTar({
      'sub/Dockerfile.x': 'FROM busybox AS one\nRUN echo built > /out\nFROM busybox\nCOPY --from=one /out /from-stage\nCOPY --from=busybox /bin/busybox /bb\n',
    });
    const r = await build('dockerfile=sub/Dockerfile.x&q=1&t=build-multi', ctx);
    expect(r.lines.filter((l) => l.stream)).toEqual([{ stream: `${r.aux}\n` }]);
    expect(await run('build-multi', ['cat', '/from-stage'])).toBe('built\n');
    expect(await run('build-multi', ['ls', '/bb'])).toBe('/bb\n');
  });

  test('.dockerignore as the engine\'s daemon applies it: only the Dockerfile and .dockerignore are taken out when matched', async () => {
    // Clients filter the context by .dockerignore when they make it (client tests: test/clients); the reference's
    // daemon copies whatever the tar holds, and removes only the Dockerfile and .dockerignore that the patterns match
    // (asked with these contexts: the same lists).
    const ctx = await contextTar({
      Dockerfile: 'FROM busybox\nCOPY . /ctx/\nRUN cd /ctx && find . | sort > /list\n',
      '.dockerignore': '*.log\n!keep.log\nsecret/**\n',
      'a.log': '', 'keep.log': '', 'secret/x': '', 'ok': '',
    });
    const r = await build('t=build-ign', ctx);
    expect(r.error).toBeUndefined();
    expect(await run('build-ign', ['cat', '/list'])).toBe('.\n./.dockerignore\n./Dockerfile\n./a.log\n./keep.log\n./ok\n./secret\n./secret/x\n');
    const self = await contextTar({ 'sub/Dockerfile': 'FROM busybox\nCOPY . /ctx/\nRUN cd /ctx && find . | sort > /list\n', '.dockerignore': 'secret.txt\nsub\n.dockerignore\n', 'secret.txt': '', 'kept.txt': '' });
    expect((await build('t=build-ign2&dockerfile=sub/Dockerfile', self)).error).toBeUndefined();
    expect(await run('build-ign2', ['cat', '/list'])).toBe('.\n./kept.txt\n./secret.txt\n./sub\n');
    const missing = await build('', await contextTar({ Dockerfile: 'FROM busybox\nCOPY a.log /\n' }));
    expect(missing.error?.error).toBe('COPY failed: file not found in build context or excluded by .dockerignore: stat a.log: file does not exist');
  });

  test('sources outside the context are refused: ../x and a symlink pointing out', async () => {
    const r = await build('', await contextTar({ Dockerfile: 'FROM busybox\nCOPY ../x /x\n' }));
    expect(r.error?.error).toBe('COPY failed: forbidden path outside the build context: ../x ()');
    const link = await build('t=build-link', await contextTar({ Dockerfile: 'FROM busybox\nCOPY out /x\n', out: { link: '/etc/shadow' } }));
    // The link resolves inside the context (/etc/shadow of the context), which does not exist.
    expect(link.error?.error).toMatch(/^COPY failed: file not found in build context/);
  });
});

describe('bad input and failures', () => {
  test('errors before the build get a status; errors during it arrive in the stream; nothing is left', async () => {
    const r1 = await berth().request('POST', '/v1.24/build', { body: Buffer.from('not a tar at all') });
    expect(r1.status).toBe(400);
    expect(r1.json().message).toBe('unexpected EOF');
    const r2 = await build('', await contextTar({ other: 'x' }));
    expect(r2.status).toBe(400);
    const r2t = await berth().request('POST', '/v1.23/build?dockerfile=nope', { body: await contextTar({ other: 'x' }) });
    expect(r2t.text).toBe('Cannot locate specified Dockerfile: nope\n');
    const r3 = await berth().request('POST', '/v1.24/build', { body: await contextTar({ Dockerfile: 'FROM busybox\nFOO bar\n' }) });
    expect([r3.status, r3.json().message]).toEqual([400, 'dockerfile parse error line 2: unknown instruction: FOO']);
    const r4 = await berth().request('POST', '/v1.24/build?t=BAD:x:y', { body: await contextTar({ Dockerfile: 'FROM busybox\n' }) });
    expect([r4.status, r4.json().message]).toEqual([400, 'invalid reference format: repository name must be lowercase']);
    const r5 = await berth().request('POST', '/v1.24/build?buildargs=notjson', { body: await contextTar({ Dockerfile: 'FROM busybox\n' }) });
    expect([r5.status, r5.json().message]).toEqual([400, expect.stringMatching(/^error reading build args: /)]);
    const r6 = await build('', await contextTar({ Dockerfile: 'FROM busybox\nRUN exit 3\n' }));
    expect(r6.error).toEqual({ errorDetail: { code: 3, message: "The command '/bin/sh -c exit 3' returned a non-zero code: 3" }, error: "The command '/bin/sh -c exit 3' returned a non-zero code: 3" });
    // rm=1 (the default) keeps the failed step's container, as the engine does; forcerm=1 removes it too.
    const left = (await berth().request('GET', '/v1.24/containers/json?all=1')).json();
    expect(left.map((c: any) => c.Command)).toEqual(["/bin/sh -c 'exit 3'"]); // (the reference's `docker ps` shows the same)
    await berth().request('DELETE', `/v1.24/containers/${left[0].Id}`);
    const r7 = await build('forcerm=1', await contextTar({ Dockerfile: 'FROM busybox\nRUN exit 3\n' }));
    expect(r7.stream).toMatch(/Removing intermediate container [0-9a-f]{12}\n$/);
    expect((await berth().request('GET', '/v1.24/containers/json?all=1')).json()).toEqual([]);
    expect(fs.readdirSync(path.join(berth().config.dataRoot, 'builder', 'tmp'))).toEqual([]);
    expect((await berth().daemon.ctr.leases.List({ filters: [] })).leases).toEqual([]);
    // No active snapshot of a step (COPY/WORKDIR keys, containers' rw layers) is left.
    const snaps = (await listSnapshots(berth().daemon.ctr)).map((s) => s.name);
    expect(snaps.filter((n) => n.startsWith('berth-build') || /^[0-9a-f]{64}(-init)?$/.test(n))).toEqual([]);
  });
});

describe('clients', () => {
  test('the docker CLI builds (gzip context, -t, --build-arg) and runs the image', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-build-cli-'));
    fs.writeFileSync(path.join(dir, 'Dockerfile'), 'FROM busybox\nARG MSG\nRUN echo "$MSG" > /msg\nCMD ["cat", "/msg"]\n');
    const r = await berth().docker(['build', '-t', 'build-cli:1', '--build-arg', 'MSG=from-cli', dir]);
    fs.rmSync(dir, { recursive: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Successfully built [0-9a-f]{12}\nSuccessfully tagged build-cli:1\n$/);
    expect(await run('build-cli:1', [])).toBe('from-cli\n');
  });

  // Asked of the 20.10 reference with the same two Dockerfiles: the image's Cmd/Entrypoint and ContainerConfig.Cmd,
  // the container's Path/Args, and `docker ps`'s COMMAND "/bin/sh -c 'echo hi'" (berth listed "/bin/sh -c \"echo hi\"").
  test('shell-form CMD and ENTRYPOINT: the image, the container and `docker ps` as the reference\'s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-build-shell-'));
    fs.writeFileSync(path.join(dir, 'Dockerfile.cmd'), 'FROM busybox\nCMD echo hi\n');
    fs.writeFileSync(path.join(dir, 'Dockerfile.ep'), 'FROM busybox\nRUN echo built > /f\nENTRYPOINT echo hi\n');
    for (const k of ['cmd', 'ep']) expect((await berth().docker(['build', '-q', '-t', `build-shell-${k}`, '-f', path.join(dir, `Dockerfile.${k}`), dir])).code).toBe(0);
    fs.rmSync(dir, { recursive: true });
    const sh = ['/bin/sh', '-c', 'echo hi'];
    const cmdImg = await inspect('build-shell-cmd');
    expect([cmdImg.Config.Cmd, cmdImg.Config.Entrypoint, cmdImg.ContainerConfig.Cmd]).toEqual([sh, null, ['/bin/sh', '-c', '#(nop) ', 'CMD ["/bin/sh" "-c" "echo hi"]']]);
    const epImg = await inspect('build-shell-ep');
    expect([epImg.Config.Cmd, epImg.Config.Entrypoint, epImg.ContainerConfig.Cmd]).toEqual([null, sh, ['/bin/sh', '-c', '#(nop) ', 'ENTRYPOINT ["/bin/sh" "-c" "echo hi"]']]);
    const ids: string[] = [];
    for (const [name, args] of [['bs-cmd', ['build-shell-cmd']], ['bs-ep', ['build-shell-ep']], ['bs-run', ['busybox', 'sh', '-c', 'echo hi']]] as const) {
      const c = await berth().docker(['create', '--name', name, '--network', 'none', ...args]);
      expect(c.code).toBe(0);
      ids.push(c.stdout.trim());
    }
    const inspected = await Promise.all(ids.map(async (id) => (await berth().request('GET', `/v1.24/containers/${id}/json`)).json()));
    expect(inspected.map((c) => [c.Path, c.Args])).toEqual([['/bin/sh', ['-c', 'echo hi']], ['/bin/sh', ['-c', 'echo hi']], ['sh', ['-c', 'echo hi']]]);
    const listed = (await berth().request('GET', '/v1.24/containers/json?all=1')).json() as { Names: string[]; Command: string }[];
    expect(['/bs-cmd', '/bs-ep', '/bs-run'].map((n) => listed.find((c) => c.Names[0] === n)?.Command)).toEqual(["/bin/sh -c 'echo hi'", "/bin/sh -c 'echo hi'", "sh -c 'echo hi'"]);
    const ps = await berth().docker(['ps', '-a', '--no-trunc', '--filter', 'name=bs-', '--format', '{{.Names}} {{.Command}}']);
    expect(ps.stdout.trim().split('\n').sort()).toEqual(['bs-cmd "/bin/sh -c \'echo hi\'"', 'bs-ep "/bin/sh -c \'echo hi\'"', 'bs-run "sh -c \'echo hi\'"']);
    expect((await berth().docker(['rm', ...ids])).code).toBe(0);
    expect((await berth().docker(['rmi', 'build-shell-cmd', 'build-shell-ep'])).code).toBe(0);
  });
});

describe('FROM scratch and remote contexts', () => {
  test('FROM scratch with COPY makes a one-layer image', async () => {
    const r = await build('t=build-scratch', await contextTar({ Dockerfile: 'FROM scratch\nCOPY bb /bin/busybox\nCMD ["/bin/busybox", "echo", "from scratch"]\n', bb: { content: fs.readFileSync('/bin/busybox').toString('latin1'), mode: 0o755 } }));
    expect(r.error).toBeUndefined();
    // as the reference (20.10 at 1.24): FROM scratch is followed by ' ---> ' with no id
    expect(r.stream).toMatch(/^Step 1\/3 : FROM scratch\n ---> \nStep 2\/3 : COPY bb \/bin\/busybox\n/);
    const img = await inspect('build-scratch');
    expect(img.RootFS.Layers).toHaveLength(1);
    expect((await inspect(img.Parent)).Parent).toBe(''); // the COPY step's image has no parent
    expect(await run('build-scratch', [])).toBe('from scratch\n');
  });

  test("docker-py's test_build_labels and test_build_with_buildargs: labels= are steps of their own (key order), USER takes any name", async () => {
    // docker-py's exact queries (APIClient.build(fileobj=…, tag=…, labels=…/buildargs=…) at 1.24)
    const q = (extra: Record<string, string>) => new URLSearchParams({ t: extra.t, q: 'False', nocache: 'False', rm: 'False', forcerm: 'False', pull: 'False', ...extra }).toString();
    const labels = await build(q({ t: 'dpy-labels', labels: JSON.stringify({ test: 'OK', b: 'x y', a: '1' }) }), await contextTar({ Dockerfile: 'FROM scratch' }));
    expect(labels.error).toBeUndefined();
    // as the reference: one LABEL step per key, in key order, after the Dockerfile's own steps
    expect(labels.lines.map((l) => l.stream).filter((s) => s?.startsWith('Step '))).toEqual(['Step 1/4 : FROM scratch', 'Step 2/4 : LABEL a=1', 'Step 3/4 : LABEL b=x y', 'Step 4/4 : LABEL test=OK']);
    const li = await inspect('dpy-labels');
    expect(li.Config.Labels).toEqual({ a: '1', b: 'x y', test: 'OK' });
    const hist = (await berth().request('GET', '/v1.24/images/dpy-labels/history')).json().map((h: { CreatedBy: string }) => h.CreatedBy);
    expect(hist).toEqual(['/bin/sh -c #(nop)  LABEL test=OK', '/bin/sh -c #(nop)  LABEL b=x y', '/bin/sh -c #(nop)  LABEL a=1']);
    // a user the image does not know is no error at build time (the container made for the step is never started)
    const args = await build(q({ t: 'dpy-buildargs', buildargs: JSON.stringify({ test: 'OK' }) }), await contextTar({ Dockerfile: 'FROM scratch\nARG test\nUSER $test' }));
    expect(args.error).toBeUndefined();
    expect((await inspect('dpy-buildargs')).Config.User).toBe('OK');
    // rm=False keeps the step containers, as on the reference: the test removes them
    for (const c of (await berth().request('GET', '/v1.24/containers/json?all=1')).json()) await berth().request('DELETE', `/v1.24/containers/${c.Id}?force=1`);
    await berth().request('DELETE', '/v1.24/images/dpy-labels');
    await berth().request('DELETE', '/v1.24/images/dpy-buildargs');
  });

  test('remote=: a tarball URL, a plain Dockerfile URL, a git repository with #ref:subdir; an unreachable one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-build-remote-'));
    const tarball = zlib.gzipSync(await contextTar({ Dockerfile: 'FROM busybox\nCOPY f /f\n', f: 'from tarball\n' }));
    // A git repository served over git's dumb HTTP protocol from the same server.
    const repo = path.join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    fs.writeFileSync(path.join(repo, 'sub', 'Dockerfile'), 'FROM busybox\nCOPY g /g\n');
    fs.writeFileSync(path.join(repo, 'sub', 'g'), 'v1\n');
    git('add', '.');
    git('commit', '-qm', 'one');
    git('tag', 'v1');
    fs.writeFileSync(path.join(repo, 'sub', 'g'), 'v2\n');
    git('commit', '-qam', 'two');
    execFileSync('git', ['clone', '-q', '--bare', repo, path.join(dir, 'repo.git')]);
    execFileSync('git', ['update-server-info'], { cwd: path.join(dir, 'repo.git') });
    const server = http.createServer((req, res) => {
      const u = req.url ?? '/';
      if (u === '/ctx.tar.gz') return res.end(tarball);
      if (u === '/Dockerfile.txt') return res.end('FROM busybox\nRUN echo plain > /p\n');
      if (u === '/data.txt') {
        res.writeHead(200, { 'Last-Modified': 'Wed, 21 Oct 2015 07:28:00 GMT' });
        return res.end('downloaded\n');
      }
      const file = path.join(dir, decodeURIComponent(u.split('?')[0]));
      if (file.startsWith(path.join(dir, 'repo.git')) && fs.existsSync(file) && fs.statSync(file).isFile()) return res.end(fs.readFileSync(file));
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const t = await build(`remote=${encodeURIComponent(`${base}/ctx.tar.gz`)}&t=build-remote-tar`, Buffer.alloc(0));
      expect(t.error).toBeUndefined();
      expect(await run('build-remote-tar', ['cat', '/f'])).toBe('from tarball\n');
      const p = await build(`remote=${encodeURIComponent(`${base}/Dockerfile.txt`)}&t=build-remote-df`, Buffer.alloc(0));
      expect(p.error).toBeUndefined();
      expect(await run('build-remote-df', ['cat', '/p'])).toBe('plain\n');
      const g = await build(`remote=${encodeURIComponent(`${base}/repo.git#v1:sub`)}&t=build-remote-git`, Buffer.alloc(0));
      expect(g.error).toBeUndefined();
      expect(await run('build-remote-git', ['cat', '/g'])).toBe('v1\n');
      const head = await build(`remote=${encodeURIComponent(`${base}/repo.git#:sub`)}&t=build-remote-git2`, Buffer.alloc(0));
      expect(await run('build-remote-git2', ['cat', '/g'])).toBe('v2\n');
      expect(head.error).toBeUndefined();
      const add = await build('t=build-add-url', await contextTar({ Dockerfile: `FROM busybox\nADD ${base}/data.txt /dl/\nADD ${base}/data.txt /named\n` }));
      expect(add.error).toBeUndefined();
      const ls = await berth().docker(['run', '--rm', '--network', 'none', 'build-add-url', 'sh', '-c', 'cat /dl/data.txt /named; set -- $(ls -ln /dl/data.txt); echo $1 $3:$4; ls -ln --full-time /named']);
      expect(ls.stdout).toMatch(/^downloaded\ndownloaded\n-rw------- 0:0\n.* 2015-10-21 07:28:00 \+0000 \/named\n$/);
      const missing = await berth().request('POST', `/v1.24/build?remote=${encodeURIComponent(`${base}/nope.tar`)}`);
      expect(missing.status).toBe(400);
      expect(missing.json().message).toMatch(/^unable to prepare context: failed to GET http:\/\/127\.0\.0\.1:\d+\/nope\.tar with status 404 Not Found/);
    } finally {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(fs.readdirSync(path.join(berth().config.dataRoot, 'builder', 'tmp'))).toEqual([]);
  });
});

describe('registry pulls, limits, cancellation, events', () => {
  test('FROM pulls a missing base with the X-Registry-Config credentials; without them the pull fails in the stream', async () => {
    const reg = await startRegistry({ htpasswd: { user: 'alice', password: 's3cret' } });
    try {
      const ref = `${reg.host}/team/bb:v1`;
      const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 's3cret' })).toString('base64');
      expect((await berth().request('POST', `/v1.24/images/busybox/tag?repo=${reg.host}/team/bb&tag=v1`)).status).toBe(201);
      const push = await berth().request('POST', `/v1.24/images/${reg.host}/team/bb/push?tag=v1`, { headers: { 'X-Registry-Auth': auth } });
      expect(push.text).not.toContain('error');
      expect((await berth().request('DELETE', `/v1.24/images/${ref}`)).status).toBe(200);
      const ctx = await contextTar({ Dockerfile: `FROM ${ref}\nRUN echo pulled\n` });
      const denied = await build('', ctx);
      expect(denied.error?.error).toBeDefined();
      const cfg = Buffer.from(JSON.stringify({ [reg.host]: { username: 'alice', password: 's3cret' } })).toString('base64');
      const r = await build('t=build-pulled', ctx, '1.24', { 'X-Registry-Config': cfg });
      expect(r.error).toBeUndefined();
      expect(r.lines.some((l) => typeof l.status === 'string' && l.status.startsWith('Status: Downloaded newer image for'))).toBe(true);
      expect(r.stream).toContain('pulled\n');
    } finally {
      await reg.close();
    }
  });

  test('RUN gets the build\'s resource limits (memory, cpushares, shmsize) and the default bridge network', async () => {
    const r = await build(`memory=${32 << 20}&cpushares=512&shmsize=${8 << 20}`, await contextTar({ Dockerfile: 'FROM busybox\nRUN cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.shares; df -k /dev/shm | tail -1; ls /sys/class/net | sort | tr "\\n" " "\n' }));
    expect(r.error).toBeUndefined();
    expect(r.stream).toContain(`${32 << 20}\n512\n`);
    expect(r.stream).toMatch(/\s8192\s+0\s+8192\s/);
    expect(r.stream).toContain('eth0 lo ');
  });

  test('a client that disconnects mid-build cancels it; the step\'s container and the context are removed', async () => {
    const since = Math.ceil(Date.now() / 1000);
    await new Promise((r) => setTimeout(r, since * 1000 - Date.now() + 5));
    const body = await contextTar({ Dockerfile: 'FROM busybox\nRUN sleep 30\n' });
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ socketPath: berth().socket, method: 'POST', path: '/v1.24/build', headers: { 'Content-Length': body.length } }, (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
          if (text.includes('Running in')) {
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', () => undefined);
      setTimeout(() => reject(new Error('no RUN step seen')), 20_000);
      req.end(body);
    });
    let left: unknown[] = [];
    for (let i = 0; i < 100; i++) {
      left = (await berth().request('GET', '/v1.24/containers/json?all=1')).json();
      if (left.length === 0 && fs.readdirSync(path.join(berth().config.dataRoot, 'builder', 'tmp')).length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toEqual([]);
    expect(fs.readdirSync(path.join(berth().config.dataRoot, 'builder', 'tmp'))).toEqual([]);
    // As the reference (asked with the same build, curl leaving after 'Running in'): the step's container is
    // attached and started, killed with 9, dies with 137 and is destroyed.
    const until = Math.floor(Date.now() / 1000) + 1;
    const ev = await berth().request('GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent('{"type":["container"]}')}`);
    const events = ev.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.map((e) => e.Action)).toEqual(['create', 'attach', 'start', 'kill', 'die', 'destroy']);
    expect(events[3].Actor.Attributes.signal).toBe('9');
    expect(events[4].Actor.Attributes.exitCode).toBe('137');
  });

  test('events as the reference sends them: step containers\' lifecycle and the tag, no commit', async () => {
    // Events have a one-second `since`: start in a fresh second, after the earlier tests' events.
    const since = Math.ceil(Date.now() / 1000);
    await new Promise((r) => setTimeout(r, since * 1000 - Date.now() + 5));
    const r = await build('t=build-ev', await contextTar({ Dockerfile: 'FROM busybox\nENV A=1\nCOPY f /f\nRUN true\n', f: 'x' }));
    expect(r.error).toBeUndefined();
    const until = Math.floor(Date.now() / 1000) + 1;
    const ev = await berth().request('GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent('{"type":["container","image"]}')}`);
    const actions = ev.text.trim().split('\n').map((l) => JSON.parse(l)).map((e) => `${e.Type} ${e.Action}`);
    expect(actions).toEqual(['container create', 'container destroy', 'container create', 'container attach', 'container start', 'container die', 'container destroy', 'image tag']);
  });
});

describe('clients: docker-compose and docker-py', () => {
  test('docker-compose build (through docker build --iidfile) and docker-py images.build', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-build-clients-'));
    try {
      fs.writeFileSync(path.join(dir, 'Dockerfile'), 'FROM busybox\nRUN echo built-by-client > /who\nCMD ["cat", "/who"]\n');
      fs.writeFileSync(path.join(dir, 'docker-compose.yml'), 'version: "2.1"\nservices:\n  app:\n    build: .\n    image: build-compose:latest\n');
      const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: `unix://${berth().socket}`, DOCKER_CONFIG: path.join(dir, '.docker') };
      delete env.DOCKER_API_VERSION;
      const compose = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile('docker-compose', ['--no-ansi', 'build'], { cwd: dir, env, timeout: 120_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr })),
      );
      expect(compose.out).toContain('Successfully tagged build-compose:latest');
      expect(compose.code).toBe(0);
      expect(await run('build-compose', [])).toBe('built-by-client\n');
      const py = `import docker\nc = docker.DockerClient(base_url='unix://${berth().socket}', version='1.24')\nimg, logs = c.images.build(path='${dir}', tag='build-py:1')\nprint(img.id)\nprint(c.containers.run('build-py:1', remove=True, network_mode='none').decode(), end='')\n`;
      // berth runs in this process: the client must not block its event loop (no execFileSync).
      const out = await new Promise<string>((resolve) => execFile('python3', ['-c', py], { env, timeout: 120_000 }, (_e, stdout, stderr) => resolve(stdout + stderr)));
      expect(out).toMatch(/^sha256:[0-9a-f]{64}\nbuilt-by-client\n$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('streams as the reference\'s (test/golden/build/streams.json)', () => {
  test('a step needing a container right after FROM scratch (config-only, WORKDIR, a RUN failing for want of a shell) and WORKDIR on an image: Running in, Removing, the error', async () => {
    const golden = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'golden', 'build', 'streams.json'), 'utf8')) as { streams: Record<string, unknown[]> };
    const before = new Set((await berth().request('GET', '/v1.24/containers/json?all=1')).json().map((c: { Id: string }) => c.Id));
    const mine = await buildCases(berth().socket);
    for (const [name, text] of Object.entries(mine)) expect([name, normaliseBuildStream(text)]).toEqual([name, golden.streams[name]]);
    // The failed RUNs' containers are kept, as the reference keeps them (rm removes only a step that succeeded).
    const left = (await berth().request('GET', '/v1.24/containers/json?all=1')).json().filter((c: { Id: string }) => !before.has(c.Id));
    expect(left.map((c: { State: string; Command: string }) => c.State)).toEqual(['created', 'created']);
    for (const c of left) await berth().request('DELETE', `/v1.24/containers/${c.Id}?force=1`);
  });
});
