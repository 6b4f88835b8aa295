// The acceptance test of networking: the repository's two-service docker-compose v1 project (Debian's
// docker-compose: a user network, a named volume, a published port, a client fetching the web service by its
// service name) comes up, works and goes down cleanly against berth.
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function compose(args: string[], port: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: `unix://${b.socket}`, BERTH_WEB_PORT: String(port), COMPOSE_INTERACTIVE_NO_CLI: '1' };
    delete env.DOCKER_API_VERSION;
    execFile('docker-compose', ['-f', path.join(__dirname, '../../docker-compose.yml'), '-p', 'berthit', '--no-ansi', ...args], { env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('docker-compose up, the client reaches web by service name, the port is published, down -v removes everything', async () => {
  const port = await freePort();
  const up = await compose(['up', '-d'], port);
  expect(up.stderr).toContain('Creating network "berthit_default" with the default driver');
  expect(up.code).toBe(0);
  // the client exits 0 once it fetched http://web/
  const wait = await b.request('POST', '/v1.24/containers/berthit_client_1/wait');
  expect(wait.json().StatusCode).toBe(0);
  const logs = await compose(['logs', 'client'], port);
  expect(logs.stdout).toContain('hello-from-web');
  const res = await new Promise<string>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('GET / HTTP/1.0\r\n\r\n'));
    let d = '';
    s.on('data', (c) => (d += c));
    s.on('end', () => resolve(d));
    s.on('error', reject);
  });
  expect(res).toContain('hello-from-web');
  const ps = await compose(['ps'], port);
  expect(ps.stdout).toMatch(/berthit_web_1 .* Up +127\.0\.0\.1:\d+->80\/tcp/);

  const down = await compose(['down', '-v'], port);
  expect(down.code).toBe(0);
  expect((await b.request('GET', '/v1.24/containers/json?all=1')).json()).toEqual([]);
  const nets = (await b.request('GET', '/v1.24/networks')).json().map((n: { Name: string }) => n.Name).sort();
  expect(nets).toEqual(['bridge', 'host', 'none']);
  expect((await b.request('GET', '/v1.24/volumes')).json().Volumes).toEqual([]);
});
