// Network namespaces for containers: named ones made with iproute2 (`ip netns add`), so their path is stable
// (it goes into the OCI spec at create) and they can be found again after a berth restart.
import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
export const NETNS_DIR = '/var/run/netns';

/**
 * A shell kept running for `ip` commands off the container's paths: a fork of the daemon (a large process) blocks
 * its event loop for milliseconds while the page tables are copied (about 17 ms at 250 MB under load), a fork of
 * the small shell does not. Commands run one at a time, in order; each answers with its number and exit status on a
 * line of its own. The shell ends with berth (its stdin closes); one that died is started again at the next command.
 */
class IpShell {
  private child?: ChildProcess;
  private seq = 0;
  private buf = '';
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void; what: string }>();

  run(args: string[]): Promise<void> {
    const child = this.shell();
    const id = ++this.seq;
    const what = `ip ${args.join(' ')}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, what });
      // (the arguments are berth's own: netns names of hex digits, pids)
      child.stdin!.write(`${what} >/dev/null 2>&1; echo "${id} $?"\n`);
    });
  }

  private shell(): ChildProcess {
    if (this.child) return this.child;
    const child = spawn('sh', [], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    child.unref();
    for (const s of [child.stdin, child.stdout] as unknown as { unref?: () => void }[]) s?.unref?.();
    child.stdin!.on('error', () => undefined);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const [id, status] = this.buf.slice(0, nl).split(' ').map(Number);
        this.buf = this.buf.slice(nl + 1);
        const p = this.pending.get(id);
        this.pending.delete(id);
        if (status === 0) p?.resolve();
        else p?.reject(new Error(`${p.what}: exit status ${status}`));
      }
    });
    const gone = (): void => {
      if (this.child !== child) return;
      this.child = undefined;
      this.buf = '';
      for (const p of this.pending.values()) p.reject(new Error(`${p.what}: the shell running it ended`));
      this.pending.clear();
    };
    child.on('exit', gone);
    child.on('error', gone);
    return child;
  }
}

const ipShell = new IpShell();

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

/** Names the network namespace of a running process PID as the container's (`ip netns attach`), in place of a stale one. */
export async function attachNetns(containerId: string, pid: number): Promise<string> {
  const p = netnsPath(containerId);
  if (fs.existsSync(p)) await ipShell.run(['netns', 'delete', netnsName(containerId)]).catch(() => undefined);
  await ipShell.run(['netns', 'attach', netnsName(containerId), String(Math.trunc(pid))]);
  return p;
}

export async function deleteNetns(containerId: string): Promise<void> {
  if (fs.existsSync(netnsPath(containerId))) await ipShell.run(['netns', 'delete', netnsName(containerId)]).catch(() => undefined);
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
  await new Promise<void>((resolve, reject) => {
    const child = execFile('ip', ['netns', 'exec', netnsName(containerId), 'sh', '-c', script], (err, _out, stderr) => (err ? reject(new Error(`iptables-restore in the container's netns: ${stderr || err.message}`)) : resolve()));
    child.stdin?.end(lines.join('\n'));
  });
}
