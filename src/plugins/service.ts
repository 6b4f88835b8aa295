// Managed plugins (API 1.24): pulled from a registry with berth's distribution client (a manifest whose config is
// application/vnd.docker.plugin.v1+json, rootfs layers), the layers kept in containerd's content store and applied
// into snapshots under the plugin's own lease; enabled as a containerd task in berth's namespace whose root is the
// plugin's read-write snapshot mounted on the host, its socket folder <socket-dir>/<id>/ bound at
// /run/docker/plugins inside. State in <data-root>/plugins/<id>/plugin.json; an enabled plugin is started again
// (or its task adopted) when berth starts. See docs/plugins.md.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Containerd } from '../containerd/client';
import * as containerApi from '../containerd/containers';
import * as diffApi from '../containerd/diff';
import * as leaseApi from '../containerd/leases';
import * as snapshotApi from '../containerd/snapshots';
import * as taskApi from '../containerd/tasks';
import { sha256Digest, writeBlob } from '../containerd/content';
import { isGrpcNotFound } from '../containerd/errors';
import { conflict, notFound, systemError } from '../errors';
import type { Logger } from '../log';
import { RegistryClient } from '../registry/client';
import { readJSONFileSync, writeFileAtomic } from '../store/atomic';
import { familiarName, familiarRepo, parseReference } from '../translate/reference';
import type { Reference } from '../translate/reference';
import type { EventPublisher } from '../types/event';
import type { Credentials } from '../types/registry';
import { SNAPSHOTTER } from '../services/images';
import { ENGINE_TIMINGS, PluginClient, PluginTimings } from './client';
import type { ManagedDriverSource } from './drivers';
import type { PluginConfig, PluginPrivilege, PluginRecord } from '../types/plugin';
import { PLUGIN_CONFIG_MEDIA_TYPE, privilegesOf, samePrivileges, toPluginSpec } from '../translate/plugins';

const execFileP = promisify(execFile);

export interface PluginServiceDeps {
  ctr: Containerd;
  dataRoot: string;
  /** where managed plugins' socket folders are made (<dir>/<id>/) */
  socketDir: string;
  cgroupParent: string;
  logger: Logger;
  events: EventPublisher;
  timings?: PluginTimings;
  /** whether a container uses a volume of the driver called `name` (disable refuses then) */
  driverInUse: (name: string) => boolean;
  /** daemon.json insecure-registries, read live (a plugin pull from an insecure registry, as an image pull) */
  insecureRegistries?: () => string[];
}

export type Progress = (msg: Record<string, unknown>) => void;

/** The reference's error for a pull of something that is not a plugin. */
class NotAPlugin extends Error {}

const taskId = (id: string) => `plugin-${id}`;
const fullName = (p: PluginRecord) => `${p.Name}:${p.Tag}`;

export class PluginService implements ManagedDriverSource {
  private readonly root: string;
  private readonly plugins = new Map<string, PluginRecord>();
  private readonly clients = new Map<string, PluginClient>();
  /** plugins being enabled or disabled (one operation at a time per plugin) */
  private readonly busy = new Set<string>();

  constructor(private readonly d: PluginServiceDeps) {
    this.root = path.join(d.dataRoot, 'plugins');
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    for (const id of fs.readdirSync(this.root)) {
      const rec = readJSONFileSync<PluginRecord>(path.join(this.root, id, 'plugin.json'));
      if (rec) this.plugins.set(rec.Id, rec);
    }
  }

  private get timings(): PluginTimings {
    return this.d.timings ?? ENGINE_TIMINGS;
  }

  list(): PluginRecord[] {
    return [...this.plugins.values()].sort((a, b) => fullName(a).localeCompare(fullName(b)));
  }

  /** By name (tag optional), full id or a unique id prefix. */
  find(ref: string): PluginRecord {
    const p = this.lookup(ref);
    if (!p) throw notFound(`plugin "${ref}" not found`);
    return p;
  }

  private lookup(ref: string): PluginRecord | undefined {
    const all = [...this.plugins.values()];
    const named = all.find((p) => fullName(p) === ref || (!/:[^/]*$/.test(ref) && fullName(p) === `${ref}:latest`));
    if (named) return named;
    if (/^[a-f0-9]+$/.test(ref)) {
      const byId = all.filter((p) => p.Id.startsWith(ref));
      if (byId.length === 1) return byId[0];
    }
    return undefined;
  }

  // ---- pull / install ------------------------------------------------------------------------------------

  private parse(s: string): Reference {
    try {
      const r = parseReference(s);
      return r.tag || r.digest ? r : { ...r, tag: 'latest' };
    } catch (err) {
      throw systemError((err as Error).message); // the spec: 500 for an invalid reference
    }
  }

  private async fetchConfig(ref: Reference, creds: Credentials) {
    const client = new RegistryClient(ref.domain === 'docker.io' ? 'registry-1.docker.io' : ref.domain, creds, this.d.insecureRegistries?.() ?? []);
    const shown = familiarName(ref);
    const m = await client.getManifest(ref.path, ref.digest ?? ref.tag!, shown);
    const man = JSON.parse(m.bytes.toString('utf8')) as { config?: { mediaType?: string; digest: string }; layers?: { mediaType: string; digest: string; size: number }[] };
    if (!man.config || man.config.mediaType !== PLUGIN_CONFIG_MEDIA_TYPE) throw new NotAPlugin(`did not find plugin config for specified reference ${shown}`);
    const configBytes = await client.blobBytes(ref.path, man.config.digest);
    if (sha256Digest(configBytes) !== man.config.digest) throw systemError(`config ${man.config.digest} does not match its digest`);
    const config = JSON.parse(configBytes.toString('utf8')) as PluginConfig;
    return { client, manifest: m, config, configDigest: man.config.digest, layers: man.layers ?? [] };
  }

  /** GET /plugins/privileges?remote=: what the plugin asks for. */
  async privileges(remote: string, creds: Credentials): Promise<PluginPrivilege[]> {
    try {
      return privilegesOf((await this.fetchConfig(this.parse(remote), creds)).config);
    } catch (err) {
      if (err instanceof NotAPlugin) throw systemError(err.message);
      throw err;
    }
  }

  /**
   * Pulls and installs a plugin, disabled. `accepted` (the reference's form) must equal what the plugin asks for;
   * the spec's form passes none and gets the privileges back.
   */
  async pull(remote: string, localName: string | undefined, creds: Credentials, accepted: PluginPrivilege[] | undefined, progress: Progress): Promise<PluginPrivilege[]> {
    const ref = this.parse(remote);
    const local = localName ? this.parse(localName) : ref;
    const name = familiarRepo(local);
    const tag = local.tag ?? 'latest';
    if (this.lookup(`${name}:${tag}`)) throw systemError(`plugin ${name}:${tag} already exists`);
    // as the engine: every pull that gets this far is announced, whether it then succeeds or not
    this.d.events.publish('plugin', 'pull', familiarName(ref), { name: `${name}:${tag}` });
    if (accepted) progress({ status: `Pulling from ${familiarName(ref)}`, id: ref.tag ?? ref.digest });
    let fetched;
    try {
      fetched = await this.fetchConfig(ref, creds);
    } catch (err) {
      if (err instanceof NotAPlugin) throw systemError(accepted ? 'fetched plugin image but plugin config is missing' : err.message);
      throw err;
    }
    const privileges = privilegesOf(fetched.config);
    if (accepted && !samePrivileges(accepted, privileges)) throw systemError('incorrect privileges');
    const id = crypto.randomBytes(32).toString('hex');
    const rec: PluginRecord = { Id: id, Name: name, Tag: tag, Reference: familiarName(ref), Config: fetched.config, ConfigDigest: fetched.configDigest, Layers: fetched.layers, Enabled: false };
    progress({ status: `Digest: ${fetched.manifest.digest}` });
    const lease = `berth-plugin-${id}`;
    await leaseApi.create(this.d.ctr, lease);
    try {
      let parent = '';
      for (const [i, l] of rec.Layers.entries()) {
        const sid = l.digest.replace(/^sha256:/, '').slice(0, 12);
        await writeBlob(this.d.ctr, (offset) => fetched.client.blob(ref.path, l.digest, offset), { ref: `berth-plugin-${l.digest}`, expected: l.digest, total: l.size, lease });
        progress({ status: 'Download complete', progressDetail: {}, id: sid });
        const key = `berth-plugin-${id}-extract-${i}`;
        const name_ = `berth-plugin-${id}-layer-${i}`;
        const mounts = await snapshotApi.prepare(this.d.ctr, SNAPSHOTTER, key, parent, { lease });
        await diffApi.apply(this.d.ctr, l, mounts, lease);
        await snapshotApi.commit(this.d.ctr, SNAPSHOTTER, name_, key, { lease });
        parent = name_;
        progress({ status: 'Complete', progressDetail: {}, id: sid });
      }
      // the plugin's own root: a read-write snapshot over its layers, kept across disable and enable
      await snapshotApi.prepare(this.d.ctr, SNAPSHOTTER, `berth-plugin-${id}`, parent, { lease });
      await this.save(rec);
    } catch (err) {
      await this.dropStorage(rec);
      throw err;
    }
    this.plugins.set(id, rec);
    return privileges;
  }

  private dir(p: PluginRecord): string {
    return path.join(this.root, p.Id);
  }

  private async save(p: PluginRecord): Promise<void> {
    await fs.promises.mkdir(this.dir(p), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.dir(p), 'plugin.json'), JSON.stringify(p));
  }

  /** Snapshots, the lease (so containerd collects the blobs) and berth's folder. */
  private async dropStorage(p: PluginRecord): Promise<void> {
    const snaps = [`berth-plugin-${p.Id}`, ...p.Layers.map((_l, i) => `berth-plugin-${p.Id}-layer-${i}`).reverse(), ...p.Layers.map((_l, i) => `berth-plugin-${p.Id}-extract-${i}`)];
    for (const key of snaps) await snapshotApi.remove(this.d.ctr, SNAPSHOTTER, key).catch(() => undefined);
    await leaseApi.remove(this.d.ctr, `berth-plugin-${p.Id}`).catch(() => undefined);
    await fs.promises.rm(this.dir(p), { recursive: true, force: true });
  }

  // ---- enable / disable ----------------------------------------------------------------------------------

  private rootfs(p: PluginRecord): string {
    return path.join(this.dir(p), 'rootfs');
  }

  private socketPath(p: PluginRecord): string {
    return path.join(this.d.socketDir, p.Id, p.Config.Interface?.Socket ?? 'plugin.sock');
  }

  /** A path in the plugin's view → the host's (the engine's ScopedPath). */
  private scope(p: PluginRecord): (s: string) => string {
    return (s) => {
      const pm = p.Config.PropagatedMount;
      if (pm && s.startsWith(pm)) return path.join(this.dir(p), 'propagated-mount', s.slice(pm.length));
      return path.join(this.rootfs(p), s);
    };
  }

  private async isMounted(target: string): Promise<boolean> {
    const info = await fs.promises.readFile('/proc/self/mountinfo', 'utf8');
    return info.split('\n').some((l) => l.split(' ')[4] === target);
  }

  private async mountRootfs(p: PluginRecord): Promise<void> {
    const target = this.rootfs(p);
    await fs.promises.mkdir(target, { recursive: true });
    if (await this.isMounted(target)) return;
    const mounts = await snapshotApi.mounts(this.d.ctr, SNAPSHOTTER, `berth-plugin-${p.Id}`);
    const m = mounts[0];
    if (!m) throw systemError(`no mounts for plugin ${p.Id}`);
    if (m.type === 'bind') await execFileP('mount', ['--bind', m.source, target]);
    else await execFileP('mount', ['-t', m.type, m.source, '-o', m.options.join(','), target]);
    if (p.Config.PropagatedMount) {
      const pm = path.join(this.dir(p), 'propagated-mount');
      await fs.promises.mkdir(pm, { recursive: true });
      if (!(await this.isMounted(pm))) {
        await execFileP('mount', ['--bind', pm, pm]);
        await execFileP('mount', ['--make-rshared', pm]);
      }
    }
  }

  private async unmountRootfs(p: PluginRecord): Promise<void> {
    for (const t of [path.join(this.dir(p), 'propagated-mount'), this.rootfs(p)]) if (await this.isMounted(t)) await execFileP('umount', ['-l', t]).catch(() => undefined);
  }

  private async taskRunning(p: PluginRecord): Promise<boolean> {
    try {
      return (await taskApi.status(this.d.ctr, taskId(p.Id))) === 'RUNNING';
    } catch (err) {
      if (isGrpcNotFound(err)) return false;
      throw err;
    }
  }

  private async stopTask(p: PluginRecord): Promise<void> {
    const id = taskId(p.Id);
    if (await this.taskRunning(p)) {
      const waited = taskApi.wait(this.d.ctr, id).catch(() => undefined);
      await taskApi.kill(this.d.ctr, id, 15).catch(() => undefined);
      const done = await Promise.race([waited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
      if (!done) await taskApi.kill(this.d.ctr, id, 9, { all: true }).catch(() => undefined);
      await waited;
    }
    await taskApi.remove(this.d.ctr, id).catch(() => undefined);
    await containerApi.remove(this.d.ctr, id).catch(() => undefined);
  }

  /** Starts the plugin's task and waits for its socket and Plugin.Activate, as the engine does. */
  private async startTask(p: PluginRecord): Promise<void> {
    const id = taskId(p.Id);
    const sock = this.socketPath(p);
    // a longer path cannot be connected to (sun_path is 108 bytes): say so rather than time out on a truncated one
    if (Buffer.byteLength(sock) > 107) throw systemError(`plugin socket path is too long for a unix socket (${Buffer.byteLength(sock)} bytes; --plugin-socket-dir must be shorter): ${sock}`);
    await this.stopTask(p);
    await this.mountRootfs(p);
    const sockDir = path.join(this.d.socketDir, p.Id);
    await fs.promises.mkdir(sockDir, { recursive: true, mode: 0o700 });
    await fs.promises.rm(sock, { force: true });
    const spec = toPluginSpec({ id: p.Id, config: p.Config, rootfs: this.rootfs(p), socketDir: sockDir, propagatedDir: p.Config.PropagatedMount ? path.join(this.dir(p), 'propagated-mount') : undefined, cgroupsPath: `${this.d.cgroupParent}/${id}` });
    const log = path.join(this.dir(p), 'plugin.log');
    await containerApi.create(this.d.ctr, { id, labels: { 'berth.plugin': p.Id }, spec });
    try {
      await taskApi.create(this.d.ctr, id, [], { stdin: '', stdout: `file://${log}`, stderr: `file://${log}`, terminal: false });
      const exited = taskApi.wait(this.d.ctr, id).then((w) => w.exitStatus, () => undefined);
      await taskApi.start(this.d.ctr, id);
      await this.waitSocket(sock, exited, p);
      const client = new PluginClient({ network: 'unix', address: sock }, this.timings);
      await client.call('Plugin.Activate', {}, { timeout: 'long', retry: true });
      this.clients.set(p.Id, client);
    } catch (err) {
      await this.stopTask(p);
      await this.unmountRootfs(p);
      throw err;
    }
  }

  /**
   * The engine's wait: 0.5 s, then a dial every 3 s, failing after the fourth; berth also stops waiting when the
   * task has exited (the same message, sooner), and logs what the plugin wrote.
   */
  private async waitSocket(sock: string, exited: Promise<number | undefined>, p: PluginRecord): Promise<void> {
    let gone = false;
    void exited.then(() => (gone = true));
    const sleep = (ms: number) => Promise.race([new Promise((r) => setTimeout(r, ms)), exited]);
    await sleep(500);
    for (let retries = 0; ; retries++) {
      const err = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        const c = net.connect(sock);
        c.once('connect', () => {
          c.destroy();
          resolve(undefined);
        });
        c.once('error', (e) => resolve(e));
      });
      if (!err) return;
      if (gone || retries >= 3) {
        const out = await fs.promises.readFile(path.join(this.dir(p), 'plugin.log'), 'utf8').catch(() => '');
        const code = gone ? await exited : undefined;
        this.d.logger.warn('plugin did not start', { plugin: p.Id, name: fullName(p), exitCode: code, output: out.slice(-2000) });
        throw systemError(`dial unix ${sock}: connect: ${err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'ECONNREFUSED' ? 'connection refused' : err.message}`);
      }
      await sleep(3000);
    }
  }

  async enable(ref: string): Promise<void> {
    const p = this.find(ref);
    if (p.Enabled || this.busy.has(p.Id)) throw systemError(`plugin already enabled: plugin ${fullName(p)} is enabled`);
    this.busy.add(p.Id);
    try {
      await this.startTask(p);
      p.Enabled = true;
      await this.save(p);
    } finally {
      this.busy.delete(p.Id);
    }
    this.d.events.publish('plugin', 'enable', p.Id, { name: ref });
  }

  async disable(ref: string): Promise<void> {
    const p = this.find(ref);
    if (!p.Enabled) throw systemError(`plugin is already disabled: plugin ${fullName(p)} found but disabled`);
    if (this.d.driverInUse(fullName(p))) throw conflict(`plugin ${fullName(p)} is in use`);
    if (this.busy.has(p.Id)) throw conflict(`plugin ${fullName(p)} is being changed`);
    this.busy.add(p.Id);
    try {
      p.Enabled = false;
      this.clients.delete(p.Id);
      await this.save(p);
      await this.stopTask(p);
      await this.unmountRootfs(p);
      await fs.promises.rm(path.join(this.d.socketDir, p.Id), { recursive: true, force: true });
    } finally {
      this.busy.delete(p.Id);
    }
    this.d.events.publish('plugin', 'disable', p.Id, { name: ref });
  }

  async remove(ref: string): Promise<void> {
    const p = this.find(ref);
    if (p.Enabled || this.busy.has(p.Id)) throw systemError(`plugin ${fullName(p)} is enabled`);
    this.plugins.delete(p.Id);
    await this.stopTask(p);
    await this.unmountRootfs(p);
    await this.dropStorage(p);
    this.d.events.publish('plugin', 'remove', p.Id, { name: ref });
  }

  /**
   * At start: enabled plugins run again. A task still running from before (berth was killed; containerd kept it)
   * is adopted, so the mounts it serves stay valid. A plugin that cannot start is left disabled, as the engine.
   * Leases and snapshots of installs that never finished are removed.
   */
  async restore(): Promise<void> {
    for (const lease of await leaseApi.ids(this.d.ctr)) {
      const m = /^berth-plugin-([a-f0-9]{64})$/.exec(lease);
      if (m && !this.plugins.has(m[1])) await this.dropStorage({ Id: m[1], Layers: Array.from({ length: 32 }, () => ({ mediaType: '', digest: '', size: 0 })) } as PluginRecord);
    }
    for (const p of this.plugins.values()) {
      if (!p.Enabled) continue;
      try {
        if ((await this.taskRunning(p)) && (await this.isMounted(this.rootfs(p)))) {
          this.clients.set(p.Id, new PluginClient({ network: 'unix', address: this.socketPath(p) }, this.timings));
          continue;
        }
        await this.startTask(p);
      } catch (err) {
        this.d.logger.warn('cannot start plugin; it is left disabled', { plugin: p.Id, name: fullName(p), err: String(err) });
        p.Enabled = false;
        await this.save(p).catch(() => undefined);
      }
    }
  }

  // ---- volume drivers ------------------------------------------------------------------------------------

  private isVolumeDriver(p: PluginRecord): boolean {
    return (p.Config.Interface?.Types ?? []).some((t) => /^docker\.volumedriver\/1\./.test(t));
  }

  findVolumeDriver(name: string) {
    const p = this.lookup(name);
    if (!p || !this.isVolumeDriver(p)) return undefined;
    const client = this.clients.get(p.Id) ?? new PluginClient({ network: 'unix', address: this.socketPath(p) }, this.timings);
    return { name: fullName(p), enabled: p.Enabled, client, scope: this.scope(p) };
  }

  enabledVolumeDrivers() {
    return [...this.plugins.values()].filter((p) => p.Enabled && this.isVolumeDriver(p)).map((p) => ({ name: fullName(p), client: this.clients.get(p.Id) ?? new PluginClient({ network: 'unix', address: this.socketPath(p) }, this.timings), scope: this.scope(p) }));
  }
}
