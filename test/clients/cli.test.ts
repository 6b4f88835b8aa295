// The docker CLI (Debian's docker.io) against berth, as its users type it: run, exec, logs, attach, cp,
// healthchecks, networks with aliases and links, volumes, build.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});
// each command well inside the test's own timeout, so that a hang names its command
const docker = (args: string[], input?: string) => b.docker(args, { input, timeoutMs: 25_000 });

test('run, exec (a missing binary exits 126 with the runtime message), logs, attach', async () => {
  expect(await docker(['run', '--rm', '--network', 'none', 'busybox', 'echo', 'hi'])).toEqual(expect.objectContaining({ stdout: 'hi\n', code: 0 }));
  expect((await docker(['run', '-d', '--name', 'cli-c', '--network', 'none', 'busybox', 'sh', '-c', 'echo started; exec sleep 1000'])).code).toBe(0);
  expect((await docker(['exec', 'cli-c', 'sh', '-c', 'echo out; exit 5'])).stdout).toBe('out\n');
  expect((await docker(['exec', 'cli-c', 'sh', '-c', 'exit 5'])).code).toBe(5);
  const missing = await docker(['exec', 'cli-c', 'nosuchcmd']);
  expect(missing.code).toBe(126);
  expect(missing.stdout + missing.stderr).toContain('OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in $PATH: unknown');
  expect((await docker(['exec', '-i', 'cli-c', 'cat'], 'through exec stdin\n')).stdout).toBe('through exec stdin\n');
  expect((await docker(['logs', 'cli-c'])).stdout).toBe('started\n');
  // attach with stdin: what is typed reaches the container and comes back through its stdout
  const run = await docker(['run', '-i', '--rm', '--network', 'none', 'busybox', 'sh', '-c', 'read x; echo got:$x'], 'typed\n');
  expect(run.stdout).toBe('got:typed\n');
  expect((await docker(['rm', '-f', 'cli-c'])).code).toBe(0);
});

test('cp in and out, volumes shared between containers', async () => {
  const dir = fs.mkdtempSync(path.join(b.dir, 'cp-'));
  fs.writeFileSync(path.join(dir, 'in.txt'), 'copied in\n');
  expect((await docker(['volume', 'create', 'cli-vol'])).code).toBe(0);
  expect((await docker(['create', '--name', 'cli-cp', '-v', 'cli-vol:/data', 'busybox', 'true'])).code).toBe(0);
  expect((await docker(['cp', path.join(dir, 'in.txt'), 'cli-cp:/data/in.txt'])).code).toBe(0);
  expect((await docker(['cp', 'cli-cp:/data/in.txt', path.join(dir, 'out.txt')])).code).toBe(0);
  expect(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('copied in\n');
  expect((await docker(['run', '--rm', '-v', 'cli-vol:/v:ro', 'busybox', 'cat', '/v/in.txt'])).stdout).toBe('copied in\n');
  await docker(['rm', 'cli-cp']);
  expect((await docker(['volume', 'rm', 'cli-vol'])).code).toBe(0);
});

test('healthcheck flags, network aliases and --link to a stopped container on a user network', async () => {
  expect((await docker(['network', 'create', 'cli-net'])).code).toBe(0);
  expect(
    (await docker(['run', '-d', '--name', 'cli-web', '--network', 'cli-net', '--network-alias', 'web-alias', '--health-cmd', 'test -e /i.html', '--health-interval', '100ms', 'busybox', 'sh', '-c', 'echo hi > /i.html; exec httpd -f -p 80 -h /'])).code,
  ).toBe(0);
  let status = '';
  for (let i = 0; i < 100 && status !== 'healthy'; i++) {
    status = (await docker(['inspect', '-f', '{{.State.Health.Status}}', 'cli-web'])).stdout.trim();
    if (status !== 'healthy') await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe('healthy');
  expect((await docker(['ps', '--filter', 'name=cli-web', '--format', '{{.Status}}'])).stdout).toMatch(/\(healthy\)/);
  expect((await docker(['run', '--rm', '--network', 'cli-net', 'busybox', 'wget', '-qO-', 'http://web-alias/i.html'])).stdout).toBe('hi\n');
  // the CLI turns --link on a user network into an endpoint link: the target need not run
  expect((await docker(['create', '--name', 'cli-stopped', '--network', 'cli-net', 'busybox', 'true'])).code).toBe(0);
  const linked = await docker(['run', '--rm', '--network', 'cli-net', '--link', 'cli-stopped:db', 'busybox', 'echo', 'linked']);
  expect(linked).toEqual(expect.objectContaining({ code: 0, stdout: 'linked\n' }));
  await docker(['rm', '-f', 'cli-web', 'cli-stopped']);
  expect((await docker(['network', 'rm', 'cli-net'])).code).toBe(0);
});

test('build: -f in a subfolder, --build-arg, .dockerignore, the cache on a rebuild, -q, a failing RUN', async () => {
  // Expected output as the reference (20.10, API 1.24, classic builder) gives it for the same commands and context.
  const ctx = fs.mkdtempSync(path.join(b.dir, 'build-'));
  fs.mkdirSync(path.join(ctx, 'sub'));
  fs.writeFileSync(path.join(ctx, 'sub', 'Dockerfile'), 'FROM busybox\nARG WHO=nobody\nCOPY . /ctx/\nRUN echo "built for $WHO" > /who\nCMD ["sh", "-c", "cat /who; ls -a /ctx"]\n');
  fs.writeFileSync(path.join(ctx, 'sub', 'Dockerfile.bad'), 'FROM busybox\nRUN exit 3\n');
  fs.writeFileSync(path.join(ctx, 'kept.txt'), 'k\n');
  fs.writeFileSync(path.join(ctx, 'secret.txt'), 's\n');
  fs.writeFileSync(path.join(ctx, '.dockerignore'), 'secret.txt\nsub\n');
  const build = (args: string[]) => b.docker(['build', ...args, ctx], { timeoutMs: 60_000 });
  const first = await build(['-t', 'cli-built:1', '--build-arg', 'WHO=cli', '-f', path.join(ctx, 'sub', 'Dockerfile')]);
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/^Sending build context to Docker daemon {2}[\d.]+kB\s+Step 1\/5 : FROM busybox\n/);
  expect(first.stdout).toMatch(/Step 4\/5 : RUN echo "built for \$WHO" > \/who\n ---> Running in [0-9a-f]{12}\nRemoving intermediate container [0-9a-f]{12}\n/);
  expect(first.stdout).toMatch(/Successfully built [0-9a-f]{12}\nSuccessfully tagged cli-built:1\n$/);
  expect((await docker(['run', '--rm', '--network', 'none', 'cli-built:1'])).stdout).toBe('built for cli\n.\n..\n.dockerignore\nkept.txt\nsub\n');
  const again = await build(['-t', 'cli-built:1', '--build-arg', 'WHO=cli', '-f', path.join(ctx, 'sub', 'Dockerfile')]);
  expect(again.stdout.match(/ ---> Using cache/g)).toHaveLength(4);
  const id = /Successfully built ([0-9a-f]{12})/.exec(first.stdout)![1];
  expect((await build(['-q', '--build-arg', 'WHO=cli', '-f', path.join(ctx, 'sub', 'Dockerfile')])).stdout).toMatch(new RegExp(`^sha256:${id}[0-9a-f]{52}\n$`));
  // a failing RUN: the CLI exits with the step's code; the step's container stays (rm applies to successful steps)
  const bad = await build(['-f', path.join(ctx, 'sub', 'Dockerfile.bad')]);
  expect(bad.code).toBe(3);
  expect(bad.stderr).toContain("The command '/bin/sh -c exit 3' returned a non-zero code: 3");
  const left = (await docker(['ps', '-aq', '--filter', 'status=exited'])).stdout.trim().split('\n').filter(Boolean);
  expect(left).toHaveLength(1);
  expect((await docker(['rm', ...left])).code).toBe(0);
  expect((await docker(['rmi', 'cli-built:1'])).code).toBe(0);
});
