// Runs CNI plugins (Debian's containernetworking-plugins) the way a CNI runtime does: one exec per plugin, the
// network configuration on stdin, CNI_* in the environment, chained results for ADD, reverse order for DEL.
import * as fs from 'node:fs';
import { systemError } from '../errors';
import { CommandLost, spawner, type CommandFailed } from '../spawner';
import type { CniResult } from '../types/network';

export const CNI_VERSION = '1.0.0';

export function cniPath(): string {
  for (const p of ['/usr/lib/cni', '/opt/cni/bin', '/usr/libexec/cni']) if (fs.existsSync(`${p}/bridge`)) return p;
  return '/usr/lib/cni';
}

export interface PluginConf {
  type: string;
  [k: string]: unknown;
}

export interface NetConfList {
  cniVersion: string;
  name: string;
  plugins: PluginConf[];
}

export interface CniArgs {
  containerId: string;
  netns: string;
  ifname: string;
  runtimeConfig?: Record<string, unknown>;
}

/** An ADD the command helper died under: whether it made anything is not known. */
class AddLost extends Error {}

async function runPlugin(command: 'ADD' | 'DEL' | 'CHECK', conf: Record<string, unknown>, args: CniArgs): Promise<CniResult | undefined> {
  const dir = cniPath();
  const type = conf.type as string;
  // through the command helper: an exec from berthd itself forks the whole daemon on its main thread
  const env = { CNI_COMMAND: command, CNI_CONTAINERID: args.containerId, CNI_NETNS: args.netns, CNI_IFNAME: args.ifname, CNI_PATH: dir };
  let stdout: string;
  try {
    // DEL must succeed when run again (the spec: a plugin completes a DEL of what is missing), CHECK changes nothing;
    // ADD must not be run twice without a DEL between (addNetworkList undoes and redoes it)
    ({ stdout } = await spawner.run(`${dir}/${type}`, [], { env, input: JSON.stringify(conf), idempotent: command !== 'ADD' }));
  } catch (err) {
    if (err instanceof CommandLost && err.started && command === 'ADD') throw new AddLost(`CNI ${type} ADD failed: ${err.message}`);
    let msg = (err as Error).message;
    try {
      const j = JSON.parse((err as CommandFailed).stdout ?? '');
      msg = j.msg + (j.details ? `: ${j.details}` : '');
    } catch {
      /* not JSON */
    }
    throw systemError(`CNI ${type} ${command} failed: ${msg}`);
  }
  return stdout.trim() ? (JSON.parse(stdout) as CniResult) : undefined;
}

function pluginConf(list: NetConfList, p: PluginConf, prev: CniResult | undefined, runtimeConfig?: Record<string, unknown>): Record<string, unknown> {
  const conf: Record<string, unknown> = { ...p, cniVersion: list.cniVersion, name: list.name };
  if (prev) conf.prevResult = prev;
  const caps = (p.capabilities ?? {}) as Record<string, boolean>;
  if (runtimeConfig) {
    const rc: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(runtimeConfig)) if (caps[k]) rc[k] = v;
    if (Object.keys(rc).length) conf.runtimeConfig = rc;
  }
  return conf;
}

async function addOnce(list: NetConfList, args: CniArgs): Promise<CniResult | undefined> {
  let prev: CniResult | undefined;
  for (const p of list.plugins) prev = (await runPlugin('ADD', pluginConf(list, p, prev, args.runtimeConfig), args)) ?? prev;
  return prev;
}

/**
 * ADD of the list, plugin after plugin. When berth's command helper died under an ADD (its outcome unknown, a
 * failure of berth's own), what it may have made is undone with the list's DEL and the ADD runs once more: the CNI
 * spec forbids a second ADD for the same container and interface without a DEL between.
 */
export async function addNetworkList(list: NetConfList, args: CniArgs): Promise<CniResult | undefined> {
  try {
    return await addOnce(list, args);
  } catch (err) {
    if (!(err instanceof AddLost)) throw err;
    await delNetworkList(list, args).catch(() => undefined);
    try {
      return await addOnce(list, args);
    } catch (again) {
      throw again instanceof AddLost ? systemError(again.message) : again;
    }
  }
}

export async function delNetworkList(list: NetConfList, args: CniArgs, prev?: CniResult): Promise<void> {
  let firstErr: unknown;
  for (const p of [...list.plugins].reverse()) {
    try {
      await runPlugin('DEL', pluginConf(list, p, prev, args.runtimeConfig), args);
    } catch (err) {
      firstErr ??= err;
    }
  }
  if (firstErr) throw firstErr;
}
