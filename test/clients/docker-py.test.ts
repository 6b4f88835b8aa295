// docker-py (Debian's python3-docker) against berth: docker_py_matrix.py drives the library as its users do and
// reports each case as one JSON line; the tests below assert what a docker-py user gets back.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
const results = new Map<string, { result?: any; error?: string; trace?: string }>();

const CASES = ['exec_output', 'exec_missing_binary', 'healthcheck', 'logs_follow', 'run_attach_cp_volumes', 'networks_links_mac', 'ipv6', 'build'];

beforeAll(async () => {
  b = berth();
  const out = await new Promise<string>((resolve, reject) =>
    execFile('/usr/bin/python3', [path.join(__dirname, 'docker_py_matrix.py'), `unix://${b.socket}`, ...CASES], { timeout: 150_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`docker_py_matrix.py failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  for (const line of out.split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    results.set(r.case, r);
  }
}, 180_000);

function result(name: string): any {
  const r = results.get(name);
  if (!r) throw new Error(`case ${name} did not run`);
  if (r.error) throw new Error(`case ${name}: ${r.error}\n${r.trace ?? ''}`);
  return r.result;
}

test('exec output is complete from the first byte: plain, demuxed, TTY, exec_run, socket', () => {
  const r = result('exec_output');
  expect(r.whoami).toBe('root\n');
  expect(r.demux).toEqual(['hello out\n', 'hello err\n']);
  expect(r.tty).toBe('hello out\r\nhello err\r\n');
  expect(r.exec_run).toEqual([3, 'run\n']);
  expect(r.socket).toBe('SocketIO');
});

test('exec of a missing binary: the runtime message in the stream, exit code 126; a second start is 409', () => {
  const r = result('exec_missing_binary');
  const msg = 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in $PATH: unknown\r\n';
  expect(r.output).toBe(msg);
  expect(r.exitCode).toBe(126);
  expect(r.exec_run).toEqual([126, msg]);
  expect(r.again).toEqual([409, `Error: Exec command ${r.id} has already run`]);
});

test('healthcheck with the body docker-py sends (StartPeriod null) becomes healthy; zero durations are defaults', () => {
  const r = result('healthcheck');
  expect(r.status).toBe('healthy');
  expect(r.config).toEqual({ Test: ['CMD-SHELL', 'true'], Interval: 100000000, Timeout: 1000000000, Retries: 3 });
  expect(r.zero).toEqual({ Test: ['CMD', 'true'] });
});

test('logs(stream=True, follow=True) delivers every line; a client that cancels mid-stream leaves berth serving', () => {
  const r = result('logs_follow');
  const lines = Array.from({ length: 20 }, (_, i) => `line${i + 1}\n`).join('');
  expect(r.whole).toBe(lines);
  expect(r.plain).toBe(lines);
  expect(r.cancelled.join('')).toMatch(/^tick1\ntick2\ntick3\ntick4\ntick5\n/);
  expect(r.after).toBe(1);
});

test('run, volumes, attach with logs, put_archive/get_archive', () => {
  const r = result('run_attach_cp_volumes');
  // stdout and stderr are separate pipes: their relative order is not defined
  expect(r.run.split('\n').sort()).toEqual(['', 'err', 'ran']);
  expect(r.volume).toBe('in-volume\n');
  expect(r.attach).toBe('attached\n');
  expect(r.put).toBe(true);
  expect(r.get).toBe('put by docker-py\n');
  expect(r.stat).toEqual(['put.txt', 17]);
});

test('network aliases, endpoint links to a stopped container, remove_container(link=True), mac_address', () => {
  const r = result('networks_links_mac');
  expect(r.net_error).toBeUndefined();
  expect(r.alias).toMatch(/^round-trip/);
  expect(r.linked_exit).toBe(0);
  // legacy links on a user-defined network are dropped, as the engine does; endpoint links are kept
  expect(r.linked).toEqual([null, ['dpy-target:db']]);
  expect(r.links_before).toEqual(['/dpy-la:/dpy-lb/mylink']);
  expect(r.links_after).toBeNull();
  expect(r.mac).toEqual(['92:d0:c6:0a:29:33', '92:d0:c6:0a:29:33']);
});

test('IPv6: EnableIPv6 with an IPv6 IPAM subnet makes a dual-stack network; a fixed IPv6Address; peers reach it over IPv6', () => {
  const r = result('ipv6');
  expect(r.EnableIPv6).toBe(true);
  // the IPv4 side gets a default pool, listed first, as the reference lists it
  expect(r.subnets).toEqual([expect.stringMatching(/^\d+\.\d+\.\d+\.\d+\/\d+$/), '2001:db8:b::/64']);
  expect([r.GlobalIPv6Address, r.GlobalIPv6PrefixLen, r.IPv6Gateway]).toEqual(['2001:db8:b::f00', 64, '2001:db8:b::1']);
  expect(r.IPAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(r.ping).toBe(0);
});

test('images.build from a file object and from a folder (dockerfile, buildargs), the cache, a BuildError', () => {
  const r = result('build');
  expect(r.fileobj).toEqual({ tags: ['dpy-built:fileobj'], labels: { from: 'fileobj' }, logs: 'Successfully tagged dpy-built:fileobj\n', run: 'from-fileobj\n' });
  expect(r.path).toBe('ctx\narg\n');
  expect(r.cached).toBe(4);
  expect(r.ids).toEqual([true]);
  expect(r.bad).toEqual({ msg: "The command '/bin/sh -c echo failing; exit 4' returned a non-zero code: 4", printed: true });
  // as the reference: docker-py sends rm=False, the step containers stay
  expect(r.left).toEqual(['ARG', 'CMD', 'echo']);
  expect(r.images).toBe(1);
});
