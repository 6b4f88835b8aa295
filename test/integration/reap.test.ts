// What a killed test run's berthd leaves on the host (test/helpers/test-berths.ts): a real bin/berthd with a container
// on its default bridge, one on a network of its own and one with NetworkMode none is SIGKILLed, its owner taken to
// be gone; the reaper removes its berthd, network namespaces, bridges, iptables rules and folder, and nothing of a
// berth whose owner lives nor of the reference engine.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../helpers/berth';
import { berthdLauncher, exited, type Berthd } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { recordTestBerth, reapTestBerths, REGISTRY, type TestBerthRecord } from '../helpers/test-berths';
import { netnsName, NETNS_DIR } from '../../src/network/sandbox';
import { bridgeRules, ensureRules } from '../../src/network/bridge';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-reap-'));
const namespace = `berth-reap-${process.pid}`;
const bridge = `brp${process.pid % 10000}`;
const subnet = '10.251.91.0/24';
const { berthd, cleanup } = berthdLauncher({ dir, namespace, bridge, subnet });
const socket = path.join(dir, 'berth.sock');
const registry = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-reap-registry-'));
// a berth whose owner lives (this process): its bridge and rules stay
const liveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-reap-live-'));
const liveBridge = `brl${process.pid % 10000}`;
const liveSubnet = '10.251.92.0/24';

afterAll(async () => {
  await cleanup();
  spawnSync('ip', ['link', 'delete', liveBridge]);
  spawnSync('iptables', ['-w', '-t', 'nat', '-D', 'POSTROUTING', ...bridgeRules(liveBridge, liveSubnet, false)[2].args]);
  for (const r of bridgeRules(liveBridge, liveSubnet, false).slice(0, 2)) spawnSync('iptables', ['-w', '-D', r.chain, ...r.args]);
  for (const d of [registry, liveDir]) fs.rmSync(d, { recursive: true, force: true });
}, 60_000);

const linkExists = (name: string) => spawnSync('ip', ['link', 'show', name], { stdio: 'ignore' }).status === 0;
const ruleExists = (r: { table: string; chain: string; args: string[] }) => spawnSync('iptables', ['-w', '-t', r.table, '-C', r.chain, ...r.args], { stdio: 'ignore' }).status === 0;
const netnsTaken = (id: string) => {
  try {
    fs.lstatSync(path.join(NETNS_DIR, netnsName(id)));
    return true;
  } catch {
    return false;
  }
};

test('a killed run\'s berthd: its netns, bridges, rules, processes and folder are reaped; a live one\'s and the reference\'s stay', async () => {
  const b: Berthd = await berthd(['-H', `unix://${socket}`], { socket });
  const api = (method: string, p: string, body?: unknown) => request(socket, method, p, { body });
  expect((await api('POST', '/v1.24/images/load?quiet=1', await buildBusyboxImage({ tags: ['busybox:latest'] }))).status).toBe(200);
  const net = await api('POST', '/v1.24/networks/create', { Name: 'reapnet', Driver: 'bridge', IPAM: { Config: [{ Subnet: '10.251.93.0/24' }] } });
  expect(net.status).toBe(201);
  const netBridge = `br-${(net.json().Id as string).slice(0, 12)}`;
  const ids: string[] = [];
  for (const mode of ['bridge', 'reapnet', 'none']) {
    const c = await api('POST', '/v1.24/containers/create', { Image: 'busybox', Cmd: ['sleep', '1000'], HostConfig: { NetworkMode: mode } });
    expect(c.status).toBe(201);
    ids.push(c.json().Id);
    expect((await api('POST', `/v1.24/containers/${c.json().Id}/start`)).status).toBe(204);
  }
  const rules = [...bridgeRules(bridge, subnet, false), ...bridgeRules(netBridge, '10.251.93.0/24', false)];
  expect([linkExists(bridge), linkExists(netBridge), ...rules.map(ruleExists), ...ids.map(netnsTaken)]).toEqual(Array(2 + rules.length + ids.length).fill(true));

  // the run is killed: its berthd goes with no clean-up, the test process that owned it is gone
  b.child.kill('SIGKILL');
  await exited(b.child);
  const own = JSON.parse(fs.readFileSync(path.join(REGISTRY, `${path.basename(dir)}.json`), 'utf8')) as TestBerthRecord;
  expect(own).toEqual({ owner: process.pid, dir, dataRoot: path.join(dir, 'data'), bridge, subnet });
  const gone = spawnSync('true').pid!;
  fs.writeFileSync(path.join(registry, 'killed.json'), JSON.stringify({ ...own, owner: gone }));
  // a berthd still running under the folder (one whose parent was killed) goes too
  const stray = await berthd(['-H', `unix://${socket}`], { socket });

  execFileSync('ip', ['link', 'add', liveBridge, 'type', 'bridge']);
  await ensureRules(bridgeRules(liveBridge, liveSubnet, false));
  recordTestBerth({ dir: liveDir, dataRoot: path.join(liveDir, 'data'), bridge: liveBridge, subnet: liveSubnet }, registry);
  const reference = { table: 'nat', chain: 'POSTROUTING', args: ['-s', '172.18.0.0/16', '!', '-o', 'docker0', '-j', 'MASQUERADE'] };
  const referenceBefore = ruleExists(reference);

  expect(await reapTestBerths(registry)).toEqual([dir]);
  expect(await exited(stray.child)).toBe(null); // (killed)
  expect([linkExists(bridge), linkExists(netBridge), ...rules.map(ruleExists), ...ids.map(netnsTaken)]).toEqual(Array(2 + rules.length + ids.length).fill(false));
  expect(fs.existsSync(dir)).toBe(false);
  expect(fs.readdirSync(registry)).toEqual([`${path.basename(liveDir)}.json`]);
  // the live berth's and the reference engine's
  expect([linkExists(liveBridge), ...bridgeRules(liveBridge, liveSubnet, false).map(ruleExists), fs.existsSync(liveDir), ruleExists(reference)]).toEqual([true, true, true, true, true, referenceBefore]);
  expect(await reapTestBerths(registry)).toEqual([]);
}, 120_000);
