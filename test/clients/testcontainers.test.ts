// testcontainers-node 11 against berth, as a test suite of a user's project would use it: containers started
// with wait strategies (log message, health check, listening ports), exec, copying files in, logs, networks with
// aliases, images built from a Dockerfile. Ryuk (the reaper) is off: it is an image from a registry, and each test
// stops what it starts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
// testcontainers reads its environment when it is first loaded
let tc: typeof import('testcontainers');
beforeAll(async () => {
  b = berth();
  process.env.DOCKER_HOST = `unix://${b.socket}`;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  tc = await import('testcontainers');
});

test('a web container on a network: log wait, mapped port, alias from a peer, exec, copied file, logs', async () => {
  const { GenericContainer, Network, Wait } = tc;
  const net = await new Network().start();
  const web = await new GenericContainer('busybox:latest')
    .withCommand(['sh', '-c', 'echo hello-tc > /i.html; echo ready; exec httpd -f -p 8080 -h /'])
    .withNetwork(net)
    .withNetworkAliases('web-alias')
    .withExposedPorts(8080)
    .withWaitStrategy(Wait.forLogMessage('ready'))
    .start();
  try {
    const res = await fetch(`http://${web.getHost()}:${web.getMappedPort(8080)}/i.html`);
    expect(await res.text()).toBe('hello-tc\n');
    const r0 = await web.exec(['sh', '-c', 'echo out; echo err >&2; exit 2']);
    expect(r0).toEqual(expect.objectContaining({ stdout: 'out\n', stderr: 'err\n', exitCode: 2 }));
    // stdout and stderr are separate pipes: their relative order in `output` is not defined
    expect(['out\nerr\n', 'err\nout\n']).toContain(r0.output);
    const peer = await new GenericContainer('busybox:latest').withCommand(['sleep', '1000']).withNetwork(net).start();
    try {
      const r = await peer.exec(['wget', '-qO-', 'http://web-alias:8080/i.html']);
      expect(r).toEqual(expect.objectContaining({ exitCode: 0, stdout: 'hello-tc\n' }));
      await peer.copyContentToContainer([{ content: 'copied\n', target: '/tmp/c.txt' }]);
      expect((await peer.exec(['cat', '/tmp/c.txt'])).stdout).toBe('copied\n');
    } finally {
      await peer.stop();
    }
    const logs = await web.logs();
    let text = '';
    await new Promise<void>((resolve) => {
      logs.on('data', (d: Buffer | string) => {
        text += d.toString();
        if (text.includes('ready\n')) resolve();
      });
    });
    logs.destroy();
    expect(text).toBe('ready\n');
  } finally {
    await web.stop();
    await net.stop();
  }
});

test('health-check wait strategy and the listening-ports wait strategy', async () => {
  const { GenericContainer, Wait } = tc;
  const healthy = await new GenericContainer('busybox:latest')
    .withCommand(['sleep', '1000'])
    .withHealthCheck({ test: ['CMD-SHELL', 'test -e /tmp/ok || { touch /tmp/ok; false; }'], interval: 100, timeout: 1000, retries: 5, startPeriod: 0 })
    .withWaitStrategy(Wait.forHealthCheck())
    .start();
  expect((await healthy.exec(['ls', '/tmp/ok'])).exitCode).toBe(0);
  await healthy.stop();
  const ports = await new GenericContainer('busybox:latest')
    .withCommand(['sh', '-c', 'sleep 0.3; exec httpd -f -p 7000'])
    .withExposedPorts(7000)
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  expect(ports.getMappedPort(7000)).toBeGreaterThan(0);
  await ports.stop();
});

test('GenericContainer.fromDockerfile: a named Dockerfile with build args and a .dockerignore, built, started, waited on', async () => {
  const { GenericContainer, Wait } = tc;
  const ctx = fs.mkdtempSync(path.join(b.dir, 'tc-build-'));
  fs.writeFileSync(path.join(ctx, 'app.Dockerfile'), 'FROM busybox\nARG PORT=1\nENV PORT=$PORT\nCOPY www /www\nCMD ["sh", "-c", "ls /www; echo serving; exec httpd -f -p $PORT -h /www"]\n');
  fs.mkdirSync(path.join(ctx, 'www'));
  fs.writeFileSync(path.join(ctx, 'www', 'index.html'), 'built-by-tc\n');
  fs.writeFileSync(path.join(ctx, 'www', 'ignored.tmp'), 'x');
  fs.writeFileSync(path.join(ctx, '.dockerignore'), '**/*.tmp\n');
  const image = await GenericContainer.fromDockerfile(ctx, 'app.Dockerfile').withBuildArgs({ PORT: '8081' }).build('tc-built:latest', { deleteOnExit: false });
  const web = await image.withExposedPorts(8081).withWaitStrategy(Wait.forLogMessage('serving')).start();
  try {
    const res = await fetch(`http://${web.getHost()}:${web.getMappedPort(8081)}/index.html`);
    expect(await res.text()).toBe('built-by-tc\n');
    expect((await web.exec(['ls', '/www'])).stdout).toBe('index.html\n');
  } finally {
    await web.stop();
  }
  expect((await b.request('DELETE', '/v1.24/images/tc-built:latest')).status).toBe(200);
});
