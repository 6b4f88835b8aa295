// Starts a real berth daemon in-process for an integration test: its own data root, its own containerd namespace,
// a unix socket in a scratch folder. close() stops it and removes everything it created in containerd.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { DEFAULTS, Config } from '../../src/config';
import { startDaemon, Daemon } from '../../src/daemon';
import { silentLogger, createLogger } from '../../src/log';
import { cleanupNamespace } from './cleanup';
import { recordTestBerth, removeBerthBridges } from './test-berths';

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json: <T = any>() => T;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** JSON-encoded when not a Buffer/string; sets Content-Type: application/json. */
  body?: unknown;
}

export interface TestBerth {
  socket: string;
  dir: string;
  config: Config;
  daemon: Daemon;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Runs the docker CLI against this berth; resolves with stdout/stderr/exit code (never rejects). */
  docker(args: string[], opts?: { apiVersion?: string; input?: string | Buffer; timeoutMs?: number }): Promise<{ stdout: string; stderr: string; code: number }>;
  /** Stops the daemon (like SIGKILL: no cleanup) and starts a new one on the same data root and namespace. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function containerdAddress(): string {
  const a = process.env.BERTH_TEST_CONTAINERD;
  if (!a) throw new Error('BERTH_TEST_CONTAINERD is not set: run integration tests through jest (globalSetup starts containerd)');
  return a;
}

export function request(socket: string, method: string, urlPath: string, opts: RequestOptions = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let payload: Buffer | undefined;
    if (opts.body !== undefined) {
      if (Buffer.isBuffer(opts.body)) payload = opts.body;
      else if (typeof opts.body === 'string') payload = Buffer.from(opts.body);
      else {
        payload = Buffer.from(JSON.stringify(opts.body));
        headers['Content-Type'] ??= 'application/json';
      }
      headers['Content-Length'] = String(payload.length);
    }
    const req = http.request({ socketPath: socket, method, path: urlPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text: body.toString('utf8'),
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * The first event a new /events subscription (with these filters) sees, as an object; rejects after `timeoutMs`. The
 * subscription is in place once `subscribed` resolves (then trigger the event).
 */
export function firstEvent(socket: string, filters: Record<string, string[]>, timeoutMs = 10_000): { event: Promise<Record<string, any>>; subscribed: Promise<void> } {
  let subscribed!: () => void;
  const inPlace = new Promise<void>((r) => (subscribed = r));
  const event = new Promise<Record<string, any>>((resolve, reject) => {
    const req = http.request({ socketPath: socket, path: `/v1.24/events?filters=${encodeURIComponent(JSON.stringify(filters))}` }, (res) => {
      subscribed();
      res.on('data', (c: Buffer) => {
        resolve(JSON.parse(c.toString().split('\n')[0]));
        req.destroy();
      });
    });
    req.on('error', () => undefined);
    req.end();
    setTimeout(() => reject(new Error(`no event for ${JSON.stringify(filters)} within ${timeoutMs} ms`)), timeoutMs).unref();
  });
  return { event, subscribed: inPlace };
}

/** The Linux bridges (and their subnets) of the user-defined networks a test berth made. */
/**
 * A /24 of 10.200.0.0-10.249.255.0 for a test berth's own bridge that no route of this host has yet: a bridge that
 * another run left behind (or another test's live one) with the same subnet takes the replies to this bridge's
 * containers (the kernel routes to the first), so the embedded resolver's answers, for one, never arrive.
 */
export function testBridgeSubnet(): string {
  const routes = new Set(execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).split('\n').map((l) => l.split(' ')[0]));
  for (;;) {
    const subnet = `10.${200 + crypto.randomInt(50)}.${crypto.randomInt(256)}.0/24`;
    if (!routes.has(subnet)) return subnet;
  }
}

export async function startTestBerth(opts: { logLevel?: string; config?: Partial<Config> } = {}): Promise<TestBerth> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-it-'));
  const socket = path.join(dir, 'berth.sock');
  const namespace = 'berth-test-' + crypto.randomBytes(4).toString('hex');
  const config: Config = {
    ...DEFAULTS,
    hosts: [`unix://${socket}`],
    dataRoot: path.join(dir, 'data'),
    execRoot: path.join(dir, 'exec'),
    containerd: containerdAddress(),
    namespace,
    cgroupParent: '/' + namespace,
    bridgeName: 'bt' + namespace.slice(-8),
    // Each test berth gets its own bridge and subnet, removed in close().
    bridgeSubnet: testBridgeSubnet(),
    // plugins are looked for, and managed plugins' sockets made, in the test's own folders
    pluginSocketDir: path.join(dir, 'plugins'),
    pluginSpecDirs: [path.join(dir, 'plugin-specs')],
    ...opts.config,
  };
  const logger = opts.logLevel ? createLogger(opts.logLevel) : silentLogger();
  const unrecord = recordTestBerth({ dir, dataRoot: config.dataRoot, bridge: config.bridgeName, subnet: config.bridgeSubnet });
  let daemon = await startDaemon(config, logger);
  const t: TestBerth = {
    socket,
    dir,
    config,
    get daemon() {
      return daemon;
    },
    request: (method, urlPath, o) => request(socket, method, urlPath, o),
    docker: (args, o = {}) =>
      new Promise((resolve) => {
        const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: `unix://${socket}`, DOCKER_CONFIG: path.join(dir, 'docker-config') };
        if (o.apiVersion) env.DOCKER_API_VERSION = o.apiVersion;
        else delete env.DOCKER_API_VERSION;
        const child = execFile('docker', args, { env, timeout: o.timeoutMs ?? 60_000, maxBuffer: 256 << 20, encoding: 'buffer' }, (err, stdout, stderr) => {
          resolve({ stdout: stdout.toString(), stderr: stderr.toString(), code: err ? ((err as { code?: number }).code ?? 1) : 0 });
        });
        if (o.input !== undefined) child.stdin?.end(o.input);
        else child.stdin?.end();
      }),
    async restart() {
      await daemon.close();
      daemon = await startDaemon(config, logger);
    },
    async close() {
      await daemon.close();
      const ctr = daemon.ctr.withNamespace(namespace);
      await cleanupNamespace(ctr);
      ctr.close();
      await removeBerthBridges(config.dataRoot, config.bridgeName, config.bridgeSubnet);
      // An exit the closed daemon was still finishing (its network teardown writes the IPAM record) can land in the
      // folder while it is removed (ENOTEMPTY): retried for up to 2 s.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
      unrecord();
    },
  };
  return t;
}

/**
 * The whole body of `GET /v1.24/containers/(id)/logs?follow=1&stdout=1&stderr=1` as it arrives, read by a client
 * that stops reading for `stallMs` at the start (0: reads at once), until the follow ends.
 */
export function followLogsBody(socket: string, id: string, stallMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const req = http.get({ socketPath: socket, path: `/v1.24/containers/${id}/logs?follow=1&stdout=1&stderr=1`, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
      if (stallMs) {
        res.pause();
        setTimeout(() => res.resume(), stallMs);
      }
    });
    req.on('error', reject);
  });
}
