// Create-request bodies normalised per API version and validated with the engine's messages — pure.
import { decodeCreateConfig } from './bodies';
import { invalidParameter } from '../../errors';
import { ApiVersion, supports } from '../version/features';
import { ALL_CAPS, normalizeCap } from '../spec';
import { validateLogOptions } from './log-options';
import type { ContainerConfig, HealthConfig, HostConfig, MountSpec } from '../../types/config';
import type { NetworkingConfig } from '../../types/network';

export interface CreateRequest {
  config: ContainerConfig;
  hostConfig: HostConfig;
  networkingConfig: NetworkingConfig;
}

const toArray = (v: unknown): string[] | null | undefined => {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map(String);
  throw invalidParameter(`json: cannot unmarshal ${typeof v} into Go value of type []string`);
};

/** Resource fields that 1.18 clients send in the top-level Config. */
const LEGACY_RESOURCE_FIELDS: [string, keyof HostConfig][] = [
  ['Memory', 'Memory'],
  ['MemorySwap', 'MemorySwap'],
  ['CpuShares', 'CpuShares'],
  ['Cpuset', 'CpusetCpus'],
  ['CpusetCpus', 'CpusetCpus'],
];

/** The most `Config.Volumes` entries (anonymous volumes) one create may ask for. */
export const MAX_CREATE_VOLUMES = 1000;

export function normaliseCreateBody(body: unknown, v: ApiVersion): CreateRequest {
  if (body === undefined || body === null) throw invalidParameter('Config cannot be empty in order to create a container');
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('json: cannot unmarshal into Go value of type container.Config');
  decodeCreateConfig(body); // wrong JSON types answered with the engine's decoder message before anything reads them
  const raw = { ...(body as Record<string, unknown>) };
  // One anonymous volume per key: a list or a string must not become one volume per element or character (found by
  // fuzzing: ~150,000 volumes from one create). The engine's decoder refuses them (500 there, 400 here).
  const vols = raw.Volumes;
  if (vols !== undefined && vols !== null && (typeof vols !== 'object' || Array.isArray(vols))) {
    const kind = Array.isArray(vols) ? 'array' : typeof vols === 'boolean' ? 'bool' : typeof vols;
    throw invalidParameter(`json: cannot unmarshal ${kind} into Go struct field ContainerConfigWrapper.Volumes of type map[string]struct {}`);
  }
  if (vols && typeof vols === 'object') {
    const keys = Object.keys(vols);
    for (const k of keys) {
      const e = (vols as Record<string, unknown>)[k];
      if (e !== null && (typeof e !== 'object' || Array.isArray(e))) {
        const kind = Array.isArray(e) ? 'array' : typeof e === 'boolean' ? 'bool' : typeof e;
        throw invalidParameter(`json: cannot unmarshal ${kind} into Go struct field ContainerConfigWrapper.Volumes of type struct {}`);
      }
    }
    // berth's own bound on what one create makes (the engine has none): checked before anything is made.
    if (keys.length > MAX_CREATE_VOLUMES) throw invalidParameter(`too many volumes in one create: ${keys.length} (berth accepts at most ${MAX_CREATE_VOLUMES})`);
  }
  const hostConfig = { ...((raw.HostConfig as HostConfig | null) ?? {}) } as HostConfig & Record<string, unknown>;
  const networkingConfig = (supports(v, 'CustomNetworks') ? (raw.NetworkingConfig as NetworkingConfig | null) : null) ?? {};
  delete raw.HostConfig;
  delete raw.NetworkingConfig;
  if (supports(v, 'CreateResourcesInConfig')) {
    for (const [from, to] of LEGACY_RESOURCE_FIELDS) {
      if (raw[from] !== undefined && raw[from] !== null && (hostConfig[to] === undefined || hostConfig[to] === 0 || hostConfig[to] === '')) (hostConfig as Record<string, unknown>)[to] = raw[from];
    }
  }
  for (const f of ['Memory', 'MemorySwap', 'CpuShares', 'Cpuset']) delete raw[f];
  const config = raw as ContainerConfig & Record<string, unknown>;
  config.Cmd = toArray(config.Cmd);
  config.Entrypoint = toArray(config.Entrypoint);
  if (typeof config.StopSignal === 'number') config.StopSignal = String(config.StopSignal);
  if (!supports(v, 'StopSignal')) delete config.StopSignal;
  if (!supports(v, 'Healthcheck')) delete config.Healthcheck;
  else if (config.Healthcheck) config.Healthcheck = withoutZeroDurations(config.Healthcheck);
  if (!hostConfig.NetworkMode || hostConfig.NetworkMode === 'default') hostConfig.NetworkMode = 'default';
  // A body without HostConfig: the reference keeps the engine's zero values for it (no restart policy name, no
  // runtime named) and its daemon-wide IPC default, where a sent HostConfig gets the per-API-version defaults.
  if (hostConfigAbsent(body)) Object.assign(hostConfig, { IpcMode: 'private', Runtime: '' });
  hostConfig.RestartPolicy ??= { Name: '', MaximumRetryCount: 0 };
  // The engine stores "no preference" for these (the CLI sends -1 and 0).
  if (hostConfig.MemorySwappiness === -1) hostConfig.MemorySwappiness = null;
  if (hostConfig.PidsLimit !== undefined && hostConfig.PidsLimit !== null && hostConfig.PidsLimit <= 0) hostConfig.PidsLimit = null;
  return { config, hostConfig, networkingConfig };
}

/**
 * A Healthcheck's 0 or null Interval/Timeout/StartPeriod/Retries mean "the default" (docker-py sends
 * `StartPeriod: null`): dropped, as the engine's decoding and its omitempty output do.
 */
function withoutZeroDurations(h: HealthConfig): HealthConfig {
  const out = { ...h } as HealthConfig & Record<string, unknown>;
  for (const k of ['Interval', 'Timeout', 'StartPeriod', 'Retries']) if (out[k] === null || out[k] === 0) delete out[k];
  return out;
}

const hostConfigAbsent = (body: unknown): boolean => (body as { HostConfig?: unknown }).HostConfig === undefined || (body as { HostConfig?: unknown }).HostConfig === null;

const RFC1123 = /^(?=.{1,255}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
export const NAME_PATTERN = /^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;
const RESTART_POLICIES = ['', 'no', 'always', 'on-failure', 'unless-stopped'];
const LOG_DRIVERS = ['json-file', 'none', 'syslog', 'journald', 'gelf', 'fluentd', 'awslogs', 'splunk', 'etwlogs', 'gcplogs', 'logentries', 'local'];
const SUPPORTED_LOG_DRIVERS = ['json-file', 'none', ''];

export function validateName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw invalidParameter(`Invalid container name (${name}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`);
}

function validateHealth(h: HealthConfig | null | undefined): void {
  if (!h) return;
  const check = (name: string, val: number | undefined) => {
    if (val !== undefined && val !== 0 && val < 1_000_000) throw invalidParameter(`${name} in Healthcheck cannot be less than 1ms`);
    if (val !== undefined && val < 0) throw invalidParameter(`${name} in Healthcheck cannot be negative`);
  };
  check('Interval', h.Interval);
  check('Timeout', h.Timeout);
  check('StartPeriod', h.StartPeriod);
  if (h.Retries !== undefined && h.Retries < 0) throw invalidParameter('Retries in Healthcheck cannot be negative');
}

/**
 * A Binds entry split into its parts; throws the engine's messages for malformed ones. With the request's version
 * (create), volume names are refused before `NamedVolumeBinds`; without one (the service, once create checked them)
 * they are taken.
 */
export function parseBind(spec: string, v?: ApiVersion): { source: string; destination: string; mode: string; named: boolean } {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) throw invalidParameter(`invalid volume specification: '${spec}'`);
  const [source, destination, mode = ''] = parts;
  if (!destination.startsWith('/')) throw invalidParameter(`invalid volume specification: '${spec}': invalid mount config for type "bind": invalid mount path: '${destination}' mount path must be absolute`);
  for (const m of mode ? mode.split(',') : []) {
    if (!['ro', 'rw', 'z', 'Z', 'nocopy', 'shared', 'rshared', 'slave', 'rslave', 'private', 'rprivate', 'delegated', 'cached', 'consistent'].includes(m)) throw invalidParameter(`invalid mode: ${mode}`);
  }
  const named = !source.startsWith('/');
  if (named) {
    if ((v !== undefined && !supports(v, 'NamedVolumeBinds')) || !/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/.test(source))
      throw invalidParameter(`create ${source}: "${source}" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path`);
  }
  return { source, destination, mode, named };
}

/** The runtimes the engine offers (its /info Runtimes): runc is containerd's runc v2 shim; the v1 one is deprecated. */
export const RUNTIME_V1 = 'io.containerd.runtime.v1.linux';
export const RUNTIMES = ['runc', 'io.containerd.runc.v2', RUNTIME_V1];

const SIGNAL_NAMES = new Set(
  'ABRT ALRM BUS CHLD CLD CONT FPE HUP ILL INT IO IOT KILL PIPE POLL PROF PWR QUIT SEGV STKFLT STOP SYS TERM TRAP TSTP TTIN TTOU URG USR1 USR2 VTALRM WINCH XCPU XFSZ RTMIN RTMAX'.split(' '),
);
for (let n = 1; n <= 15; n++) SIGNAL_NAMES.add(`RTMIN+${n}`);
for (let n = 1; n <= 14; n++) SIGNAL_NAMES.add(`RTMAX-${n}`);

/**
 * A stop signal the engine accepts at create (its ParseSignal): any integer but 0 (the reference took -1, 65 and 99),
 * or a name of its table with or without SIG in any case (RTMIN+1..15, RTMAX-14..1; not UNUSED, RTMIN+16).
 */
export function isEngineSignal(raw: string): boolean {
  if (/^[+-]?\d+$/.test(raw)) return Number(raw) !== 0;
  const up = raw.toUpperCase();
  return SIGNAL_NAMES.has(up.startsWith('SIG') ? up.slice(3) : up);
}

export function validateCreate(req: CreateRequest, v: ApiVersion): string[] {
  const { config: c, hostConfig: hc } = req;
  const warnings: string[] = [];
  if (c.Hostname && supports(v, 'CreateHostnameRFC1123') && !RFC1123.test(c.Hostname)) throw invalidParameter(`invalid hostname format: ${c.Hostname}`);
  // the engine's order (validateContainerConfig): working directory, stop signal, environment, health check
  if (c.WorkingDir && !c.WorkingDir.startsWith('/')) throw invalidParameter(`the working directory '${c.WorkingDir}' is invalid, it needs to be an absolute path`);
  if (c.StopSignal && !isEngineSignal(c.StopSignal)) throw invalidParameter(`Invalid signal: ${c.StopSignal}`);
  for (const e of c.Env ?? []) if (e === '' || e.startsWith('=')) throw invalidParameter(`invalid environment variable: ${e}`);
  validateHealth(c.Healthcheck);
  // (the blkio weight's range is checked with the host's support: adaptResources)
  if (hc.MemorySwappiness !== undefined && hc.MemorySwappiness !== null && hc.MemorySwappiness !== -1 && (hc.MemorySwappiness < 0 || hc.MemorySwappiness > 100))
    throw invalidParameter(`Invalid value: ${hc.MemorySwappiness}, valid memory swappiness range is 0-100`);
  if (hc.ShmSize !== undefined && hc.ShmSize < 0) throw invalidParameter('SHM size can not be less than 0');
  if (hc.Memory && hc.Memory > 0 && hc.Memory < 6 * 1024 * 1024) throw invalidParameter('Minimum memory limit allowed is 6MB');
  if (hc.MemorySwap && hc.MemorySwap > 0 && !hc.Memory) throw invalidParameter('You should always set the Memory limit when using Memoryswap limit, see usage');
  if (hc.MemorySwap && hc.MemorySwap > 0 && hc.Memory && hc.MemorySwap < hc.Memory) throw invalidParameter('Minimum memoryswap limit should be larger than memory limit, see usage');
  if (hc.MemoryReservation && hc.Memory && hc.MemoryReservation > hc.Memory) throw invalidParameter('Minimum memory limit can not be less than memory reservation limit, see usage');
  if (hc.CpuPeriod && (hc.CpuPeriod < 1000 || hc.CpuPeriod > 1_000_000)) throw invalidParameter('CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)');
  if (hc.CpuQuota && hc.CpuQuota > 0 && hc.CpuQuota < 1000) throw invalidParameter('CPU cfs quota can not be less than 1ms (i.e. 1000)');
  if (hc.OomScoreAdj !== undefined && (hc.OomScoreAdj < -1000 || hc.OomScoreAdj > 1000)) throw invalidParameter(`Invalid value ${hc.OomScoreAdj}, range for oom score adj is [-1000, 1000]`);
  for (const [field, list] of [['CapAdd', hc.CapAdd], ['CapDrop', hc.CapDrop]] as const) {
    for (const cap of list ?? []) {
      const n = normalizeCap(cap);
      if (n !== 'ALL' && !ALL_CAPS.includes(n)) throw invalidParameter(`invalid ${field}: unknown capability: "${n}"`);
    }
  }
  const rp = hc.RestartPolicy;
  if (rp) {
    if (!RESTART_POLICIES.includes(rp.Name ?? '')) throw invalidParameter(`invalid restart policy '${rp.Name}'`);
    if (rp.Name === 'unless-stopped' && !supports(v, 'UnlessStopped')) throw invalidParameter(`invalid restart policy '${rp.Name}'`);
    if (rp.MaximumRetryCount && rp.Name !== 'on-failure') throw invalidParameter(`maximum retry count cannot be used with restart policy '${rp.Name}'`);
    if (rp.MaximumRetryCount < 0) throw invalidParameter('maximum retry count cannot be negative');
  }
  if (hc.Runtime && !RUNTIMES.includes(hc.Runtime)) throw invalidParameter(`Unknown runtime specified ${hc.Runtime}`);
  if (hc.Runtime === RUNTIME_V1) warnings.push(`Configured runtime "${RUNTIME_V1}" is deprecated and will be removed in the next release.`);
  const log = hc.LogConfig?.Type ?? '';
  if (!SUPPORTED_LOG_DRIVERS.includes(log)) {
    if (LOG_DRIVERS.includes(log)) throw invalidParameter(`logging driver "${log}" is not supported by berth (json-file and none are)`);
    throw invalidParameter(`error looking up logging plugin ${log}: plugin "${log}" not found`);
  }
  validateLogOptions(log, hc.LogConfig?.Config);
  const nm = hc.NetworkMode ?? '';
  if (nm.startsWith('container:') && nm.length === 'container:'.length) throw invalidParameter('Invalid network mode: invalid container format container:<name|id>');
  if (nm && !['default', 'bridge', 'host', 'none'].includes(nm) && !nm.startsWith('container:') && !supports(v, 'CustomNetworks'))
    throw invalidParameter(`invalid --net: ${nm}`);
  for (const b of hc.Binds ?? []) parseBind(b, v);
  for (const u of hc.Ulimits ?? []) {
    if (!/^(core|cpu|data|fsize|locks|memlock|msgqueue|nice|nofile|nproc|rss|rtprio|rttime|sigpending|stack)$/.test(u.Name)) throw invalidParameter(`invalid ulimit type: ${u.Name}`);
    if (u.Soft > u.Hard) throw invalidParameter(`ulimit soft limit must be less than or equal to hard limit: ${u.Soft} > ${u.Hard}`);
  }
  return warnings;
}

const PROPAGATIONS = ['private', 'rprivate', 'shared', 'rshared', 'slave', 'rslave'];

/**
 * HostConfig.Mounts checked as the engine checks them (its ValidateMount, mount by mount, in order), with its
 * messages; `exists` answers whether a bind source is on the host (the caller's look).
 */
export function validateMounts(mounts: MountSpec[] | null | undefined, binds: string[] | null | undefined, exists: (p: string) => boolean): void {
  const seen = new Set((binds ?? []).map((b) => parseBind(b).destination.replace(/\/+$/, '') || '/'));
  for (const m of mounts ?? []) {
    const type = m.Type ?? '';
    const bad = (msg: string) => invalidParameter(`invalid mount config for type "${type}": ${msg}`);
    if (!['bind', 'volume', 'tmpfs'].includes(type)) throw bad('mount type unknown');
    if (!m.Target) throw bad('field Target must not be empty');
    if (!m.Target.startsWith('/')) throw bad(`invalid mount path: '${m.Target}' mount path must be absolute`);
    if (type === 'bind') {
      if (m.VolumeOptions) throw bad('field VolumeOptions must not be specified');
      if (m.TmpfsOptions) throw bad('field TmpfsOptions must not be specified');
      if (!m.Source) throw bad('field Source must not be empty');
      if (!m.Source.startsWith('/')) throw bad(`invalid mount path: '${m.Source}' mount path must be absolute`);
      if (m.BindOptions?.Propagation && !PROPAGATIONS.includes(m.BindOptions.Propagation)) throw bad(`invalid propagation mode: ${m.BindOptions.Propagation}`);
      if (!exists(m.Source)) throw bad(`bind source path does not exist: ${m.Source}`);
    } else if (type === 'volume') {
      if (m.BindOptions) throw bad('field BindOptions must not be specified');
      if (m.TmpfsOptions) throw bad('field TmpfsOptions must not be specified');
    } else {
      if (m.BindOptions) throw bad('field BindOptions must not be specified');
      if (m.Source) throw bad('field Source must not be specified');
    }
    const dest = m.Target.replace(/\/+$/, '') || '/';
    if (seen.has(dest)) throw invalidParameter(`Duplicate mount point: ${dest}`);
    seen.add(dest);
  }
}

/** What this host's cgroups offer, as the engine's sysinfo finds it (the service asks the host; this is pure). */
export interface CgroupSupport {
  swapLimit: boolean;
  memorySwappiness: boolean;
  kernelMemory: boolean;
  oomKillDisable: boolean;
  blkioWeight: boolean;
  blkioWeightDevice: boolean;
}

/**
 * The engine's resource checks that depend on the host (verifyPlatformContainerResources), in its order: what the
 * kernel lacks is discarded from the HostConfig that is stored, with the engine's warning; the OOM-killer warning
 * and the kernel-memory deprecation are the engine's too. Throws where the engine refuses.
 */
export function adaptResources(given: HostConfig, k: CgroupSupport): { hostConfig: HostConfig; warnings: string[] } {
  const hc: HostConfig = { ...given };
  const warnings: string[] = [];
  if (hc.Memory && hc.Memory > 0 && hc.MemorySwap !== -1 && !k.swapLimit) {
    warnings.push('Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.');
    hc.MemorySwap = -1;
  }
  if (hc.MemorySwappiness !== undefined && hc.MemorySwappiness !== null && hc.MemorySwappiness !== -1 && !k.memorySwappiness) {
    warnings.push('Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.');
    hc.MemorySwappiness = null;
  }
  if (hc.KernelMemory && hc.KernelMemory > 0) {
    warnings.push('Specifying a kernel memory limit is deprecated and will be removed in a future release.');
    if (!k.kernelMemory) {
      warnings.push('Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.');
      hc.KernelMemory = 0;
    } else if (hc.KernelMemory < 6 * 1024 * 1024) throw invalidParameter('Minimum kernel memory limit allowed is 6MB');
  }
  if (hc.OomKillDisable && !k.oomKillDisable) {
    warnings.push('Your kernel does not support OomKillDisable. OomKillDisable discarded.');
    hc.OomKillDisable = false;
  }
  if (hc.OomKillDisable && !hc.Memory) warnings.push('OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.');
  if (hc.BlkioWeight && hc.BlkioWeight > 0 && !k.blkioWeight) {
    // the reference: discarded (inspect shows 0), and a weight out of range is then no error
    warnings.push('Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.');
    hc.BlkioWeight = 0;
  }
  if (hc.BlkioWeight && (hc.BlkioWeight < 10 || hc.BlkioWeight > 1000)) throw invalidParameter('Range of blkio weight is from 10 to 1000');
  if (hc.BlkioWeightDevice?.length && !k.blkioWeightDevice) {
    warnings.push('Your kernel does not support Block I/O weight_device or the cgroup is not mounted. Weight-device discarded.');
    hc.BlkioWeightDevice = [];
  }
  return { hostConfig: hc, warnings };
}

/** The engine's image-config merge (merge.go): request wins, Env merged by key, Cmd/Entrypoint rules. */
export function mergeImageConfig(c: ContainerConfig, img: Record<string, any> | undefined): ContainerConfig {
  const i = img ?? {};
  const out: ContainerConfig = { ...c };
  if (!out.User) out.User = i.User ?? '';
  if (!out.ExposedPorts || Object.keys(out.ExposedPorts).length === 0) out.ExposedPorts = i.ExposedPorts ?? out.ExposedPorts;
  else if (i.ExposedPorts) out.ExposedPorts = { ...i.ExposedPorts, ...out.ExposedPorts };
  const env = [...(out.Env ?? [])];
  for (const e of i.Env ?? []) {
    const k = e.split('=')[0];
    if (!env.some((x) => x.split('=')[0] === k)) env.push(e);
  }
  out.Env = env.length ? env : (i.Env ?? out.Env ?? null);
  if (out.Env && out.Env.length === 0) out.Env = null;
  if (!out.Labels) out.Labels = i.Labels ?? null;
  else if (i.Labels) out.Labels = { ...i.Labels, ...out.Labels };
  // Entrypoint: only an unset (null/undefined) request entrypoint inherits; then Cmd inherits too when unset.
  if (out.Entrypoint === undefined || out.Entrypoint === null) {
    out.Entrypoint = i.Entrypoint ?? null;
    if (!out.Cmd || out.Cmd.length === 0) out.Cmd = i.Cmd ?? null;
  } else if (out.Entrypoint.length === 1 && out.Entrypoint[0] === '') {
    out.Entrypoint = null; // "" resets the image's entrypoint
    if (!out.Cmd || out.Cmd.length === 0) out.Cmd = null;
  }
  if (out.Entrypoint && out.Entrypoint.length === 0) out.Entrypoint = null;
  if (!out.WorkingDir) out.WorkingDir = i.WorkingDir ?? '';
  if (!out.Volumes || Object.keys(out.Volumes).length === 0) out.Volumes = i.Volumes ?? out.Volumes ?? null;
  else if (i.Volumes) out.Volumes = { ...i.Volumes, ...out.Volumes };
  if (!out.StopSignal && i.StopSignal) out.StopSignal = i.StopSignal;
  if (!out.OnBuild || out.OnBuild.length === 0) out.OnBuild = i.OnBuild ?? null;
  const h = out.Healthcheck;
  if (i.Healthcheck) {
    if (!h) out.Healthcheck = i.Healthcheck;
    else {
      out.Healthcheck = {
        Test: h.Test?.length ? h.Test : i.Healthcheck.Test,
        Interval: h.Interval || i.Healthcheck.Interval,
        Timeout: h.Timeout || i.Healthcheck.Timeout,
        Retries: h.Retries || i.Healthcheck.Retries,
        StartPeriod: h.StartPeriod || i.Healthcheck.StartPeriod,
      };
    }
  }
  return out;
}
