// Authorization plugins (docs/authz.md): the configured legacy plugins, looked up and activated as the engine does,
// asked in order before each request's handler and after it. Refusals and failures are the engine's errors.
import { forbidden, systemError } from '../errors';
import type { Logger } from '../log';
import { ENGINE_TIMINGS, PluginCallError, PluginClient, type PluginTimings, backoffMs } from '../plugins/client';
import { discover, type DiscoveryDirs } from '../plugins/discovery';
import { toAuthzWire } from '../translate/request/authz';
import type { Authorizer, AuthzRequest } from '../types/authz';

interface AuthzAnswer {
  Allow?: boolean;
  Msg?: string;
  Err?: string;
}

interface Plugin {
  name: string;
  client: PluginClient;
}

/** The error an AuthZ call's failure reads as (the plugin client's message; a plugin's error answer as `METHOD: Err`). */
function callFailure(err: unknown): string {
  return err instanceof PluginCallError ? err.message : (err as Error).message;
}

export class AuthzPlugins implements Authorizer {
  private plugins: Plugin[] = [];
  /** activated plugins by name: the engine activates a legacy plugin once */
  private readonly activated = new Map<string, Plugin>();

  constructor(
    private readonly dirs: DiscoveryDirs,
    private readonly logger?: Logger,
    private readonly timings: PluginTimings = ENGINE_TIMINGS,
  ) {}

  enabled(): boolean {
    return this.plugins.length > 0;
  }

  /** The configured names, in order (/info Plugins.Authorization). */
  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /**
   * Looks up and activates each named plugin, then replaces the list whole. Throws with the engine's message
   * (`failed to validate authorization plugin: …`) and keeps the running list when one cannot be had.
   */
  async configure(names: string[]): Promise<void> {
    const next: Plugin[] = [];
    for (const name of names) {
      try {
        next.push(await this.get(name));
      } catch (err) {
        throw systemError(`failed to validate authorization plugin: ${(err as Error).message}`);
      }
    }
    this.plugins = next;
  }

  private async get(name: string): Promise<Plugin> {
    const hit = this.activated.get(name);
    if (hit) return hit;
    // discovery is retried within the plugin client's window, as the engine waits for a legacy plugin's socket
    const start = Date.now();
    let addr;
    for (let retries = 0; ; retries++) {
      addr = discover(this.dirs, name);
      if (addr) break;
      const wait = Math.min(backoffMs(retries), this.timings.retryWindowMs);
      if (Date.now() - start + wait >= this.timings.retryWindowMs) throw new Error(`plugin "${name}" not found`);
      await new Promise((r) => setTimeout(r, wait));
    }
    const client = new PluginClient(addr, this.timings);
    const r = await client.call<{ Implements?: string[] }>('Plugin.Activate', {}, { timeout: 'long', retry: true }).catch((err) => {
      throw new Error(callFailure(err));
    });
    if (!(r?.Implements ?? []).includes('authz')) throw new Error('Plugin does not implement the requested driver');
    const p = { name, client };
    this.activated.set(name, p);
    return p;
  }

  async authorizeRequest(r: AuthzRequest): Promise<void> {
    await this.ask('AuthZPlugin.AuthZReq', r);
  }

  async authorizeResponse(r: AuthzRequest): Promise<void> {
    await this.ask('AuthZPlugin.AuthZRes', r);
  }

  /** Each plugin in order; the first refusal or failure ends it. */
  private async ask(method: string, r: AuthzRequest): Promise<void> {
    const wire = toAuthzWire(r);
    for (const p of this.plugins) {
      let a: AuthzAnswer;
      try {
        a = (await p.client.call<AuthzAnswer>(method, wire, { timeout: 'long', retry: true })) ?? {};
      } catch (err) {
        throw systemError(`plugin ${p.name} failed with error: ${callFailure(err)}`);
      }
      if (a.Allow !== true) {
        this.logger?.debug('authorization denied', { plugin: p.name, method: r.RequestMethod, uri: r.RequestUri, phase: method });
        throw forbidden(`authorization denied by plugin ${p.name}: ${typeof a.Msg === 'string' ? a.Msg : ''}`);
      }
    }
  }
}
