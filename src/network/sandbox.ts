// Network namespaces for containers: named ones made with iproute2 (`ip netns add`), so their path is stable
// (it goes into the OCI spec at create) and they can be found again after a berth restart; NetworkMode none's, which
// runc makes, named by a link to the task's own (nameNetnsOf).
import * as fs from 'node:fs';
import { spawner, type CommandFailed } from '../spawner';

export const NETNS_DIR = '/var/run/netns';

/**
 * `ip` runs in the command helper (src/spawner.ts), off berthd's main thread: a fork of the daemon (a large process)
 * blocks its event loop for milliseconds while the page tables are copied (about 17 ms at 250 MB under load).
 */
async function ip(args: string[]): Promise<void> {
  await spawner.run('ip', args);
}

export function netnsName(containerId: string): string {
  return `berth-${containerId.slice(0, 16)}`;
}

export function netnsPath(containerId: string): string {
  return `${NETNS_DIR}/${netnsName(containerId)}`;
}

export async function createNetns(containerId: string): Promise<string> {
  const p = netnsPath(containerId);
  const st = taken(p);
  if (st?.isSymbolicLink()) await fs.promises.unlink(p).catch(() => undefined); // (a NetworkMode none name left)
  if (!st || st.isSymbolicLink()) await ip(['netns', 'add', netnsName(containerId)]);
  return p;
}

/** Whether the name is taken: a bind mount (`ip netns add`/`attach`) or a link (nameNetnsOf), dangling or not. */
function taken(p: string): fs.Stats | undefined {
  try {
    // (no error made for a name that is free, the usual case: an Error's stack trace costs more than the lstat)
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Names the network namespace of a running process PID as the container's, in place of a stale name: a symbolic link
 * to /proc/PID/ns/net (what `ip netns exec`, `nsenter --net=` and setns(2) open while the process lives). No process
 * is run for it (`ip netns attach` bind-mounts the same file, at the cost of a fork and an exec at every start and
 * another at every exit, and a task that is gone already, as `true`'s usually is, fails it anyway). The link is for
 * the process's life only, which is all a NetworkMode none sandbox is named for: the exit's teardown unlinks it.
 */
export async function nameNetnsOf(containerId: string, pid: number): Promise<string> {
  const p = netnsPath(containerId);
  if (taken(p)) await deleteNetns(containerId);
  // (a link in a tmpfs folder, at once: two thread-pool round trips fewer on every NetworkMode none start)
  const link = () => fs.symlinkSync(`/proc/${Math.trunc(pid)}/ns/net`, p);
  try {
    link();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(NETNS_DIR, { recursive: true });
    link();
  }
  return p;
}

/** The container's netns name goes: a link is unlinked, a bind mount unmounted (`ip netns delete`). */
export async function deleteNetns(containerId: string): Promise<void> {
  const p = netnsPath(containerId);
  const st = taken(p);
  if (!st) return;
  if (st.isSymbolicLink()) {
    try {
      fs.unlinkSync(p); // (a link in a tmpfs folder: at once)
    } catch {
      /* gone meanwhile */
    }
  } else await ip(['netns', 'delete', netnsName(containerId)]).catch(() => undefined);
}

/** The address the engine's embedded resolver has in every container on a user-defined network. */
export const EMBEDDED_DNS = '127.0.0.11';

/**
 * Sends the container's queries to 127.0.0.11:53 to the resolver's listeners on a gateway address (docs/dns.md):
 * the netns's own nat table is replaced whole (berth owns the namespace), and loopback-sourced packets may be routed
 * out (route_localnet) and leave masqueraded as the container's address. `target` undefined removes the rules.
 */
export async function redirectDns(containerId: string, target: { gateway: string; udp: number; tcp: number } | undefined, extra: string[] = []): Promise<void> {
  const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]'];
  if (target) {
    for (const [proto, port] of [['udp', target.udp], ['tcp', target.tcp]] as const) {
      lines.push(`-A OUTPUT -d ${EMBEDDED_DNS}/32 -p ${proto} --dport 53 -j DNAT --to-destination ${target.gateway}:${port}`);
      lines.push(`-A POSTROUTING -s 127.0.0.0/8 -d ${target.gateway}/32 -p ${proto} --dport ${port} -j MASQUERADE`);
    }
  }
  // (the VIP rules of swarm services, docs/overlay.md)
  lines.push(...extra);
  lines.push('COMMIT', '');
  const script = `${target ? 'echo 1 > /proc/sys/net/ipv4/conf/all/route_localnet && ' : ''}iptables-restore -w`;
  await spawner.run('ip', ['netns', 'exec', netnsName(containerId), 'sh', '-c', script], { input: lines.join('\n') }).catch((err: CommandFailed) => {
    throw new Error(`iptables-restore in the container's netns: ${err.stderr || err.message}`);
  });
}
