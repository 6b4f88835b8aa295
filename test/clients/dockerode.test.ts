// dockerode 5 against berth, called as its users call it: run with an attached stdin, exec, logs, archives,
// networks with aliases, volumes, healthchecks, buildImage.
import { PassThrough, Readable } from 'node:stream';
import Docker = require('dockerode');
import * as tar from 'tar-stream';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { frames } from '../helpers/frames';

const berth = berthWithBusybox();
let b: TestBerth;
let docker: Docker;
beforeAll(() => {
  b = berth();
  docker = new Docker({ socketPath: b.socket });
});

/** Collects a multiplexed stream into stdout and stderr text (dockerode's demuxStream). */
function demux(stream: NodeJS.ReadableStream): Promise<{ out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on('data', (c) => o.push(c));
  err.on('data', (c) => e.push(c));
  docker.modem.demuxStream(stream, out, err);
  return new Promise((resolve, reject) => {
    stream.on('end', () => resolve({ out: Buffer.concat(o).toString(), err: Buffer.concat(e).toString() }));
    stream.on('error', reject);
  });
}

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

test('attach with stdin: the options dockerode sends as the request body are not stdin', async () => {
  const c = await docker.createContainer({ Image: 'busybox', Cmd: ['cat'], OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true, AttachStderr: true, HostConfig: { NetworkMode: 'none' } });
  try {
    const s = await c.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true });
    const got = demux(s);
    await c.start();
    s.write('hello from stdin\n');
    s.end();
    expect((await c.wait()).StatusCode).toBe(0);
    expect(await got).toEqual({ out: 'hello from stdin\n', err: '' });
  } finally {
    await c.remove({ force: true });
  }
});

test('exec: demuxed output from the first byte, exit code, a missing binary (126, message in the stream)', async () => {
  const c = await docker.createContainer({ Image: 'busybox', Cmd: ['sleep', '1000'], HostConfig: { NetworkMode: 'none' } });
  await c.start();
  try {
    const e = await c.exec({ Cmd: ['sh', '-c', 'echo out; echo err >&2; exit 4'], AttachStdout: true, AttachStderr: true });
    expect(await demux(await e.start({ hijack: true, stdin: false }))).toEqual({ out: 'out\n', err: 'err\n' });
    expect((await e.inspect()).ExitCode).toBe(4);
    const missing = await c.exec({ Cmd: ['nosuchcmd'], AttachStdout: true, AttachStderr: true });
    const r = await demux(await missing.start({ hijack: true, stdin: false }));
    expect(r.out).toBe('OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in $PATH: unknown\r\n');
    expect((await missing.inspect()).ExitCode).toBe(126);
    // stdin into an exec over the hijacked connection
    const cat = await c.exec({ Cmd: ['cat'], AttachStdin: true, AttachStdout: true });
    const s = await cat.start({ hijack: true, stdin: true });
    const got = demux(s);
    s.end('piped\n');
    expect((await got).out).toBe('piped\n');
  } finally {
    await c.remove({ force: true });
  }
});

test('logs (follow), archives in and out, volumes', async () => {
  const vol = await docker.createVolume({ Name: 'dockerode-vol' });
  const c = await docker.createContainer({
    Image: 'busybox',
    Cmd: ['sh', '-c', 'for i in 1 2 3; do echo line$i; sleep 0.05; done; echo done >&2; sleep 1000'],
    HostConfig: { NetworkMode: 'none', Binds: ['dockerode-vol:/data'] },
  });
  try {
    await c.start();
    const logs = (await c.logs({ follow: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream;
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const out = new PassThrough();
      out.on('data', (d) => {
        lines.push(d.toString());
        if (lines.join('').includes('line3\n')) resolve();
      });
      docker.modem.demuxStream(logs, out, new PassThrough());
      logs.on('error', reject);
    });
    (logs as unknown as { destroy(): void }).destroy();
    expect(lines.join('')).toBe('line1\nline2\nline3\n');

    const pack = tar.pack();
    pack.entry({ name: 'in.txt' }, 'put by dockerode\n');
    pack.finalize();
    await c.putArchive(pack as unknown as Readable, { path: '/data' });
    const extract = tar.extract();
    const files: Record<string, string> = {};
    extract.on('entry', (h, s, next) => {
      readAll(s as unknown as NodeJS.ReadableStream).then((d) => {
        files[h.name] = d.toString();
        next();
      });
    });
    const archive = await c.getArchive({ path: '/data/in.txt' });
    await new Promise<void>((resolve) => {
      extract.on('finish', () => resolve());
      archive.pipe(extract);
    });
    expect(files).toEqual({ 'in.txt': 'put by dockerode\n' });
    // the file is in the volume: another container sees it
    const reader = await docker.createContainer({ Image: 'busybox', Cmd: ['cat', '/v/in.txt'], HostConfig: { NetworkMode: 'none', Binds: ['dockerode-vol:/v:ro'] } });
    await reader.start();
    await reader.wait();
    expect((await reader.logs({ stdout: true })).toString('latin1')).toContain('put by dockerode\n');
    await reader.remove();
  } finally {
    await c.remove({ force: true });
    await vol.remove();
  }
});

test('networks with aliases and a healthcheck with zero durations', async () => {
  const net = await docker.createNetwork({ Name: 'dockerode-net', CheckDuplicate: true });
  const web = await docker.createContainer({
    Image: 'busybox',
    Cmd: ['sh', '-c', 'echo hello-dockerode > /i.html; exec httpd -f -p 80 -h /'],
    Healthcheck: { Test: ['CMD', 'wget', '-qO-', 'http://127.0.0.1/i.html'], Interval: 100_000_000, Timeout: 0, StartPeriod: 0, Retries: 0 },
    HostConfig: { NetworkMode: 'dockerode-net' },
    NetworkingConfig: { EndpointsConfig: { 'dockerode-net': { Aliases: ['web-alias'] } } },
  });
  try {
    await web.start();
    let health = '';
    for (let i = 0; i < 100 && health !== 'healthy'; i++) {
      health = (await web.inspect()).State.Health?.Status ?? '';
      if (health !== 'healthy') await new Promise((r) => setTimeout(r, 100));
    }
    expect(health).toBe('healthy');
    expect((await web.inspect()).Config.Healthcheck).toEqual({ Test: ['CMD', 'wget', '-qO-', 'http://127.0.0.1/i.html'], Interval: 100_000_000 });
    const client = await docker.createContainer({ Image: 'busybox', Cmd: ['wget', '-qO-', 'http://web-alias/i.html'], HostConfig: { NetworkMode: 'dockerode-net' } });
    await client.start();
    expect((await client.wait()).StatusCode).toBe(0);
    expect((await client.logs({ stdout: true })).toString('latin1')).toContain('hello-dockerode\n');
    await client.remove();
  } finally {
    await web.remove({ force: true });
    await net.remove();
  }
});

test('buildImage from a tar stream (buildargs, labels) followed with followProgress; a failing build reports its error', async () => {
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile' }, 'FROM busybox\nARG NOTE=none\nCOPY note.txt /note.txt\nRUN echo "$NOTE" >> /note.txt\nCMD ["cat", "/note.txt"]\n');
  pack.entry({ name: 'note.txt' }, 'from the context\n');
  pack.finalize();
  const stream = await docker.buildImage(pack as unknown as NodeJS.ReadableStream, { t: 'dockerode-built:v1', buildargs: { NOTE: 'from an arg' }, labels: { made: 'dockerode' } });
  const events: { stream?: string; aux?: { ID: string }; error?: string }[] = await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: unknown[]) => (err ? reject(err) : resolve(out as never))));
  const text = events.map((e) => e.stream ?? '').join('');
  expect(text).toMatch(/Successfully built ([0-9a-f]{12})\nSuccessfully tagged dockerode-built:v1\n$/);
  const img = await docker.getImage('dockerode-built:v1').inspect();
  expect(img.Config.Labels).toEqual({ made: 'dockerode' });
  expect(events.find((e) => e.aux)?.aux?.ID).toBe(img.Id);
  const c = await docker.createContainer({ Image: 'dockerode-built:v1', HostConfig: { NetworkMode: 'none' } });
  await c.start();
  expect((await c.wait()).StatusCode).toBe(0);
  // a frame per line, as the reference frames a log's entries
  expect(frames(await c.logs({ stdout: true })).map((f) => f.data.toString())).toEqual(['from the context\n', 'from an arg\n']);
  await c.remove();
  // an error during the build arrives in the stream (status 200): followProgress lists it with the rest
  const badPack = tar.pack();
  badPack.entry({ name: 'Dockerfile' }, 'FROM busybox\nRUN exit 7\n');
  badPack.finalize();
  const bad = await docker.buildImage(badPack as unknown as NodeJS.ReadableStream, { forcerm: true });
  const badEvents: { error?: string; errorDetail?: { code: number; message: string } }[] = await new Promise((resolve, reject) => docker.modem.followProgress(bad, (err: Error | null, out: unknown[]) => (err ? reject(err) : resolve(out as never))));
  expect(badEvents.at(-1)).toEqual({ errorDetail: { code: 7, message: "The command '/bin/sh -c exit 7' returned a non-zero code: 7" }, error: "The command '/bin/sh -c exit 7' returned a non-zero code: 7" });
  expect((await docker.listContainers({ all: true })).length).toBe(0); // forcerm removed the failed step's container
  await docker.getImage('dockerode-built:v1').remove();
});
