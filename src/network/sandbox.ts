// Network namespaces for containers: named ones made with iproute2 (`ip netns add`), so their path is stable
// (it goes into the OCI spec at create) and they can be found again after a berth restart.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
export const NETNS_DIR = '/var/run/netns';

export function netnsName(containerId: string): string {
  return `berth-${containerId.slice(0, 16)}`;
}

export function netnsPath(containerId: string): string {
  return `${NETNS_DIR}/${netnsName(containerId)}`;
}

export async function createNetns(containerId: string): Promise<string> {
  const p = netnsPath(containerId);
  if (!fs.existsSync(p)) await execFileP('ip', ['netns', 'add', netnsName(containerId)]);
  return p;
}

export async function deleteNetns(containerId: string): Promise<void> {
  if (fs.existsSync(netnsPath(containerId))) await execFileP('ip', ['netns', 'delete', netnsName(containerId)]).catch(() => undefined);
}
