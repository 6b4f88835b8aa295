// Volume drivers other than `local`: legacy plugins found by discovery (activated once, then cached as the engine
// caches them) and enabled managed plugins that implement VolumeDriver. Each driver is the VolumeDriver.* protocol
// over a PluginClient with the engine's deadlines.
import { notFound, systemError } from '../errors';
import type { DriverVolume, VolumeDriver, VolumeDriverRegistry } from '../types/volume';
import { ENGINE_TIMINGS, PluginCallError, PluginClient, PluginTimings } from './client';
import { discover, DiscoveryDirs } from './discovery';


/** A managed plugin as a volume driver: what the plugin service lends the registry. */
export interface ManagedDriverSource {
  /** an installed plugin by name (with or without tag); undefined when none */
  findVolumeDriver(name: string): { name: string; enabled: boolean; client: PluginClient; scope: (p: string) => string } | undefined;
  /** every enabled managed plugin that is a volume driver */
  enabledVolumeDrivers(): { name: string; client: PluginClient; scope: (p: string) => string }[];
}

function callError(err: unknown): Error {
  // A plugin's own error answer is reported with its text alone, as the engine's volume adapter reports it.
  if (err instanceof PluginCallError) return systemError(err.remote);
  return err as Error;
}

/** The VolumeDriver protocol over one plugin client. */
export class PluginVolumeDriver implements VolumeDriver {
  constructor(
    readonly name: string,
    private readonly client: PluginClient,
    /** a path in the plugin's view → the host's (managed plugins); identity for legacy ones */
    readonly scope: (p: string) => string = (p) => p,
    /** the legacy client retries failed connections (15 s), as the engine's */
    private readonly retry = true,
  ) {}

  private async call<T extends { Err?: string }>(method: string, args: unknown, timeout: 'long' | 'short'): Promise<T> {
    let r: T;
    try {
      r = await this.client.call<T>(`VolumeDriver.${method}`, args, { timeout, retry: this.retry });
    } catch (err) {
      throw callError(err);
    }
    if (r && typeof r.Err === 'string' && r.Err) throw systemError(r.Err);
    return r ?? ({} as T);
  }

  async create(name: string, opts: Record<string, string> | null): Promise<void> {
    await this.call('Create', { Name: name, Opts: opts }, 'long');
  }
  async remove(name: string): Promise<void> {
    await this.call('Remove', { Name: name }, 'long');
  }
  async mount(name: string, id: string): Promise<string> {
    const r = await this.call<{ Mountpoint?: string; Err?: string }>('Mount', { Name: name, ID: id }, 'long');
    return this.scope(r.Mountpoint ?? '');
  }
  async unmount(name: string, id: string): Promise<void> {
    await this.call('Unmount', { Name: name, ID: id }, 'long');
  }
  async path(name: string): Promise<string> {
    const r = await this.call<{ Mountpoint?: string; Err?: string }>('Path', { Name: name }, 'short');
    return r.Mountpoint ?? '';
  }
  async get(name: string): Promise<DriverVolume> {
    const r = await this.call<{ Volume?: DriverVolume | null; Err?: string }>('Get', { Name: name }, 'short');
    if (!r.Volume) throw systemError(`no such volume`);
    return r.Volume;
  }
  async list(): Promise<DriverVolume[]> {
    const r = await this.call<{ Volumes?: DriverVolume[] | null; Err?: string }>('List', {}, 'short');
    return (r.Volumes ?? []).map((v) => ({ ...v, Mountpoint: v.Mountpoint ? this.scope(v.Mountpoint) : v.Mountpoint }));
  }
  async scopeOf(): Promise<string> {
    // a driver without Capabilities is `local`, as the engine assumes
    const r = await this.client.call<{ Capabilities?: { Scope?: string } }>('VolumeDriver.Capabilities', {}, { timeout: 'short', retry: this.retry }).catch(() => undefined);
    return r?.Capabilities?.Scope === 'global' ? 'global' : 'local';
  }
}

export class VolumeDrivers implements VolumeDriverRegistry {
  /** activated legacy drivers, by the name they were asked for (the engine's cache) */
  private readonly legacy = new Map<string, PluginVolumeDriver>();

  constructor(
    private readonly dirs: DiscoveryDirs,
    private readonly managed: ManagedDriverSource,
    private readonly timings: PluginTimings = ENGINE_TIMINGS,
  ) {}

  async lookup(name: string): Promise<VolumeDriver> {
    const m = this.managed.findVolumeDriver(name);
    if (m) {
      if (!m.enabled) throw notFound(`error looking up volume plugin ${name}: plugin "${name}" found but disabled`);
      return new PluginVolumeDriver(m.name, m.client, m.scope, false);
    }
    const hit = this.legacy.get(name);
    if (hit) return hit;
    let addr;
    try {
      addr = discover(this.dirs, name);
    } catch (err) {
      throw systemError(`error looking up volume plugin ${name}: ${(err as Error).message}`);
    }
    if (!addr) throw notFound(`error looking up volume plugin ${name}: plugin "${name}" not found`);
    const client = new PluginClient(addr, this.timings);
    let implements_: string[] = [];
    try {
      const r = await client.call<{ Implements?: string[] }>('Plugin.Activate', {}, { timeout: 'long', retry: true });
      implements_ = r.Implements ?? [];
    } catch (err) {
      throw systemError(`error looking up volume plugin ${name}: ${callError(err).message}`);
    }
    if (!implements_.includes('VolumeDriver')) throw notFound(`error looking up volume plugin ${name}: plugin "${name}" not found`);
    const d = new PluginVolumeDriver(name, client);
    this.legacy.set(name, d);
    return d;
  }

  /** The drivers whose volumes `volume ls` includes: cached legacy ones and enabled managed ones. */
  active(): VolumeDriver[] {
    return [...this.legacy.values(), ...this.managed.enabledVolumeDrivers().map((m) => new PluginVolumeDriver(m.name, m.client, m.scope, false))];
  }

  /** /info Plugins.Volume: `local` and the legacy drivers in the cache, sorted (the engine's list). */
  names(): string[] {
    return ['local', ...this.legacy.keys()].sort();
  }
}
