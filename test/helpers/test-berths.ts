// What a test's berthd leaves on the host outside its folder and its containerd namespace: its default bridge, the
// bridges of the networks it made, their iptables rules, and its containers' network namespaces. Each test berth
// (in-process, a berthd child, a swarm node) is recorded when it starts, with the process that started it as its
// owner, and the record goes when it is closed. The jest global setup of a later run reaps the berths whose owner is
// gone (a run killed before its afterAll): their processes, network namespaces, bridges and rules, and folder.
// Nothing else is touched: the names come from the record and the berth's own data root, never from a pattern (the
// reference engine's docker0 and br-* bridges, and another live run's, look alike).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { pidsWhere } from '../../src/containerd/procfs';
import { unmountAllUnder } from '../../src/fs/mounts';
import { bridgeRules, removeRules } from '../../src/network/bridge';
import { netnsName, NETNS_DIR } from '../../src/network/sandbox';
import { alive } from './private-containerd';

const execFileP = promisify(execFile);

export const REGISTRY = path.join(os.tmpdir(), 'berth-test-berths');

export interface TestBerthRecord {
  /** The process that started the berth (in-process, or its berthd's parent). */
  owner: number;
  /** The berth's scratch folder (its data root, exec root and socket lie under it). */
  dir: string;
  dataRoot: string;
  bridge: string;
  subnet: string;
}

/** Records a test berth for the reaper; returns what removes the record (once the berth is cleaned up). */
export function recordTestBerth(r: Omit<TestBerthRecord, 'owner'>, registry = REGISTRY): () => void {
  fs.mkdirSync(registry, { recursive: true });
  const file = path.join(registry, `${path.basename(r.dir)}.json`);
  fs.writeFileSync(file, JSON.stringify({ owner: process.pid, ...r }));
  return () => fs.rmSync(file, { force: true });
}

/** The bridges of the networks the berth made (from its data root's network records), with their subnets. */
function userBridges(dataRoot: string): { bridge: string; subnet: string; internal: boolean }[] {
  const dir = path.join(dataRoot, 'network', 'networks');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((f) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { BridgeName?: string; Predefined?: boolean; Internal?: boolean; IPAM?: { Config: { Subnet?: string }[] } };
      } catch {
        return {};
      }
    })
    .filter((n) => n.BridgeName && !n.Predefined)
    .map((n) => ({ bridge: n.BridgeName!, subnet: n.IPAM?.Config[0]?.Subnet ?? '', internal: !!n.Internal }));
}

/** Deletes the berth's bridges (its default one and its networks') and their iptables rules. */
export async function removeBerthBridges(dataRoot: string, bridge: string, subnet: string): Promise<void> {
  for (const n of [{ bridge, subnet, internal: false }, ...userBridges(dataRoot)]) {
    await execFileP('ip', ['link', 'delete', n.bridge]).catch(() => undefined);
    await removeRules(bridgeRules(n.bridge, n.subnet, n.internal));
  }
}

/** The network namespaces named for the berth's containers: a name made by `ip netns add` is deleted, a link unlinked. */
async function removeContainerNetns(dataRoot: string): Promise<void> {
  let ids: string[] = [];
  try {
    ids = fs.readdirSync(path.join(dataRoot, 'containers'));
  } catch {
    return;
  }
  for (const id of ids) {
    const p = path.join(NETNS_DIR, netnsName(id));
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) fs.rmSync(p, { force: true });
    else await execFileP('ip', ['netns', 'delete', netnsName(id)]).catch(() => undefined);
  }
}

/** Reaps the recorded test berths whose owner is gone (see the top); returns their folders. */
export async function reapTestBerths(registry = REGISTRY): Promise<string[]> {
  let files: string[] = [];
  try {
    files = fs.readdirSync(registry).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const reaped: string[] = [];
  for (const f of files) {
    const file = path.join(registry, f);
    let r: TestBerthRecord;
    try {
      r = JSON.parse(fs.readFileSync(file, 'utf8')) as TestBerthRecord;
    } catch {
      fs.rmSync(file, { force: true }); // (cut short while written)
      continue;
    }
    if (alive(r.owner)) continue;
    // its berthd (and a swarm node's etcd) may outlive the test process that started it: they go first, so that
    // nothing makes again what is removed below
    const inDir = (a: string) => a === r.dir || a.includes(`${r.dir}/`);
    for (const pid of await pidsWhere((args) => args.some(inDir))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await removeContainerNetns(r.dataRoot);
    await removeBerthBridges(r.dataRoot, r.bridge, r.subnet);
    await unmountAllUnder(r.dir).catch(() => undefined); // (never removed through a mount)
    fs.rmSync(r.dir, { recursive: true, force: true, maxRetries: 3 });
    fs.rmSync(file, { force: true });
    reaped.push(r.dir);
  }
  return reaped;
}
