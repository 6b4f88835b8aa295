// Runs CNI plugins (Debian's containernetworking-plugins) the way a CNI runtime does: one exec per plugin, the
// network configuration on stdin, CNI_* in the environment, chained results for ADD, reverse order for DEL.
import * as fs from 'node:fs';
import { systemError } from '../errors';
import { spawner, type CommandFailed } from '../spawner';
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

async function runPlugin(command: 'ADD' | 'DEL' | 'CHECK', conf: Record<string, unknown>, args: CniArgs): Promise<CniResult | undefined> {
  const dir = cniPath();
  const type = conf.type as string;
  // through the command helper: an exec from berthd itself forks the whole daemon on its main thread
  const env = { CNI_COMMAND: command, CNI_CONTAINERID: args.containerId, CNI_NETNS: args.netns, CNI_IFNAME: args.ifname, CNI_PATH: dir };
  let stdout: string;
  try {
    ({ stdout } = await spawner.run(`${dir}/${type}`, [], { env, input: JSON.stringify(conf) }));
  } catch (err) {
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

export async function addNetworkList(list: NetConfList, args: CniArgs): Promise<CniResult | undefined> {
  let prev: CniResult | undefined;
  for (const p of list.plugins) prev = (await runPlugin('ADD', pluginConf(list, p, prev, args.runtimeConfig), args)) ?? prev;
  return prev;
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
