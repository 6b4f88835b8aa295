// BuildService: the engine's classic builder on containerd. Each instruction is one step whose result is an
// untagged image (parent: the step's base), found again by the cache; RUN runs in a container made by
// ContainerService and committed by CommitService; COPY/ADD write into an active snapshot of the base through
// fs/extract; the other instructions change the config only (in a container that is created and removed, as the
// engine's). The output is the engine's stream of `stream` messages.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { Containerd } from '../containerd/client';
import * as snapshotApi from '../containerd/snapshots';
import * as leaseApi from '../containerd/leases';
import * as imageApi from '../containerd/images';
import { BerthError, invalidParameter } from '../errors';
import { extractTar } from '../fs/extract';
import { mountReadOnly, mountSnapshot, unmount } from '../fs/mounts';
import { cleanPath, resolveInScope, Scope } from '../fs/resolve';
import { danglingName, fullName, parseReference, withDefaultTag } from '../translate/reference';
import type { Logger } from '../log';
import type { BuildRequest } from '../types/build';
import type { CommitService } from '../services/commit';
import type { ContainerService } from '../services/containers';
import { hostProbe } from '../services/filesystem';
import { shortId } from '../services/image-format';
import { ImageService, SNAPSHOTTER } from '../services/images';
import type { RegistryService } from '../services/registry';
import { readLayered, resolveUser } from '../services/rootfs';
import type { ImageRunConfig } from '../types/image';
import type { ResolvedImage } from '../types/image';
import type { EventPublisher } from '../types/event';
import { jsonForm } from '../translate/request/changes';
import { BuildContext, ContextStore, removeIgnoredDockerfile, saveTo } from './context';
import { openTar } from '../fs/decompress';
import { CopySource, packEntries, planCopy, resolveSources, SourceRoot, writeEntries } from './copy';
import { expandWord, expandWords, goDuration, goQuoteList, goQuoteRune, Instruction, parseDockerfile, parseGoDuration, parseInstruction, parseKeyValues, ParsedDockerfile, splitRawWords } from './dockerfile';
import { fetchRemote } from './remote';
import { hostFs } from './source-fs';

export type BuildOutput = (msg: Record<string, unknown>) => void;

/** A build whose context is on disk and whose Dockerfile parsed: errors after this point go into the stream. */
export interface PreparedBuild {
  request: BuildRequest;
  context: BuildContext;
  dockerfile: ParsedDockerfile;
  /** Full names to tag. */
  names: string[];
  dispose(): Promise<void>;
}

export interface BuildServiceDeps {
  ctr: Containerd;
  images: ImageService;
  containers: ContainerService;
  commits: CommitService;
  registry: RegistryService;
  events: EventPublisher;
  dataRoot: string;
  logger: Logger;
}

const DEFAULT_SHELL = ['/bin/sh', '-c'];
const PROXY_ARGS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'FTP_PROXY', 'ftp_proxy', 'NO_PROXY', 'no_proxy'];

/** A failure during the build, reported in the stream (code: a RUN's exit status). */
class StepError extends Error {
  constructor(message: string, readonly code?: number) {
    super(message);
  }
}

interface StageState {
  image: ResolvedImage | undefined;
  config: ImageRunConfig;
  /** ARGs declared in this stage, with their value in effect (undefined: declared without a value). */
  args: Map<string, string | undefined>;
  name: string;
  /** MAINTAINER so far (every image of the stage after it carries it). */
  author?: string;
  /** A CMD was given in this stage (an ENTRYPOINT after it keeps it). */
  cmdSet?: boolean;
}

/** The engine's field order of an image's run config. */
function ordered(c: ImageRunConfig): ImageRunConfig {
  const keys = ['Hostname', 'Domainname', 'User', 'AttachStdin', 'AttachStdout', 'AttachStderr', 'ExposedPorts', 'Tty', 'OpenStdin', 'StdinOnce', 'Env', 'Cmd', 'Healthcheck', 'ArgsEscaped', 'Image', 'Volumes', 'WorkingDir', 'Entrypoint', 'NetworkDisabled', 'MacAddress', 'OnBuild', 'Labels', 'StopSignal', 'StopTimeout', 'Shell'];
  const out: ImageRunConfig = {};
  for (const k of keys) if (k in c && c[k] !== undefined) out[k] = c[k];
  for (const k of ['ExposedPorts', 'Healthcheck', 'ArgsEscaped', 'StopSignal', 'Shell', 'NetworkDisabled', 'MacAddress', 'StopTimeout']) if (out[k] === null || out[k] === '') delete out[k];
  return out;
}

function emptyConfig(): ImageRunConfig {
  return { Hostname: '', Domainname: '', User: '', AttachStdin: false, AttachStdout: false, AttachStderr: false, Tty: false, OpenStdin: false, StdinOnce: false, Env: null, Cmd: null, Image: '', Volumes: null, WorkingDir: '', Entrypoint: null, OnBuild: null, Labels: null };
}

/** What the cache compares: the run config without the fields a step does not decide. */
function cacheKey(c: ImageRunConfig): string {
  const { Hostname: _h, Image: _i, ...rest } = ordered(c);
  const norm = (v: unknown) => (v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0) ? null : v);
  return JSON.stringify(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, norm(v)])));
}

export class BuildService {
  readonly contexts: ContextStore;

  constructor(private readonly d: BuildServiceDeps) {
    this.contexts = new ContextStore(d.dataRoot);
  }

  /** The context on disk and the Dockerfile parsed; throws (a status code) before any output. */
  async prepare(req: BuildRequest, signal: AbortSignal): Promise<PreparedBuild> {
    const names = req.tags.map((t) => {
      const r = parseReference(t);
      if (r.digest) throw invalidParameter(`invalid reference format`);
      return fullName(withDefaultTag(r));
    });
    const t0 = performance.now();
    const context = req.remote ? await fetchRemote(this.contexts, req.remote, req.dockerfile, signal) : await this.contexts.fromTar(req.body);
    this.d.logger.debug('build context received', { ms: Math.round(performance.now() - t0), prehash: (context.fs as { prehash?: unknown }).prehash });
    try {
      const dfName = req.dockerfile || 'Dockerfile';
      const readText = (p: string) => {
        try {
          return context.fs.readFile(resolveInScope(context.scope, p).hostPath)?.toString('utf8');
        } catch {
          return undefined;
        }
      };
      let text = readText(cleanPath(`/${dfName}`));
      if (text === undefined && !req.dockerfile) text = readText('/dockerfile');
      if (text === undefined) throw invalidParameter(`Cannot locate specified Dockerfile: ${dfName}`);
      if (!text.trim()) throw invalidParameter(`the Dockerfile (${dfName}) cannot be empty`);
      const dockerfile = parseDockerfile(text);
      removeIgnoredDockerfile(context, dfName);
      return { request: req, context, dockerfile, names, dispose: () => context.remove() };
    } catch (err) {
      await context.remove();
      throw err;
    }
  }

  /** Runs the build; returns the image id. Errors are thrown as messages for the stream. */
  async run(b: PreparedBuild, out: BuildOutput, signal: AbortSignal): Promise<string> {
    const req = b.request;
    const say = (s: string) => {
      if (!req.quiet) out({ stream: s });
    };
    const df = b.dockerfile;
    // As the engine: the request's labels are steps of their own at the end of the last stage, one LABEL per key in
    // key order, counted and shown like the Dockerfile's (docker-py's `FROM scratch` with labels builds an image).
    const labelSteps: Instruction[] = Object.keys(req.labels)
      .sort()
      .map((k) => ({ cmd: 'LABEL', original: `LABEL ${k}=${req.labels[k]}`, rest: '', flags: {}, line: 0, labels: [[k, req.labels[k]]] }));
    const total = df.metaArgs.length + df.stages.reduce((n, s) => n + 1 + s.steps.length, 0) + labelSteps.length;
    let stepNo = 0;
    const usedArgs = new Set<string>();
    const metaArgs = new Map<string, string | undefined>();
    // Timing spans of the build's parts (debug log): a step's time runs until the next one starts.
    const spans: [string, number][] = [];
    let spanStart = performance.now();
    const span = (label: string) => {
      const t = performance.now();
      spans.push([label, Math.round((t - spanStart) * 10) / 10]);
      spanStart = t;
    };
    const step = (i: Instruction) => {
      if (stepNo) span(`step ${stepNo}`);
      stepNo++;
      say(`Step ${stepNo}/${total} : ${i.original}`);
      say('\n');
    };
    for (const a of df.metaArgs) {
      step(a);
      const [name, dflt] = splitArg(a);
      const given = Object.prototype.hasOwnProperty.call(req.buildArgs, name) ? req.buildArgs[name] ?? undefined : undefined;
      metaArgs.set(name, given ?? (dflt === undefined ? undefined : expandWord(dflt, (k) => metaArgs.get(k), df.escape)));
      if (given !== undefined) usedArgs.add(name);
    }
    const stages: StageState[] = [];
    const ctx: RunCtx = { b, say, out, signal, usedArgs, stages, escape: df.escape };
    let last: StageState | undefined;
    for (const [si, stage] of df.stages.entries()) {
      step(stage.from);
      const fromText = expandWord(stage.from.rest.split(/\s+/)[0], (k) => metaArgs.get(k), df.escape);
      const st = await this.from(ctx, fromText, stage.name || String(si));
      for (const ins of si === df.stages.length - 1 ? [...stage.steps, ...labelSteps] : stage.steps) {
        if (signal.aborted) throw new StepError('the build was cancelled');
        step(ins);
        await this.dispatch(ctx, st, ins);
      }
      stages.push(st);
      last = st;
      if (!st.image) throw new StepError('No image was generated. Is your Dockerfile empty?');
    }
    const unused = Object.keys(req.buildArgs).filter((k) => !usedArgs.has(k) && !PROXY_ARGS.includes(k)).sort();
    if (unused.length) say(`[Warning] One or more build-args [${unused.join(' ')}] were not consumed\n`);
    span(`step ${stepNo}`);
    const id = last!.image!.id;
    out({ aux: { ID: id } });
    if (req.quiet) out({ stream: `${id}\n` });
    else say(`Successfully built ${shortId(id)}\n`);
    // The last step's image as this build resolved it (a cache hit's records carry every name it has).
    const img = last!.image!;
    for (const n of b.names) {
      await this.d.images.tag(img, parseReference(n));
      say(`Successfully tagged ${familiar(n)}\n`);
    }
    span('tag');
    this.d.logger.debug('build timings', { ms: Object.fromEntries(spans) });
    return id;
  }

  // ---- FROM -------------------------------------------------------------------------------------------------

  private async from(ctx: RunCtx, ref: string, name: string): Promise<StageState> {
    const stageRef = ctx.stages.find((s) => s.name === ref.toLowerCase());
    let image: ResolvedImage | undefined;
    if (stageRef) image = stageRef.image;
    else if (ref !== 'scratch') image = await this.baseImage(ctx, ref);
    // The reference prints the line for `FROM scratch` too, with no id.
    ctx.say(` ---> ${image ? shortId(image.id) : ''}\n`);
    const config = image ? { ...emptyConfig(), ...(image.config.config ?? {}) } : emptyConfig();
    const st: StageState = { image, config, args: new Map(), name };
    // ONBUILD triggers of the base run first, as the engine runs them.
    const triggers = (image?.config.config?.OnBuild as string[] | null) ?? [];
    if (triggers.length) {
      ctx.say(`# Executing ${triggers.length} build trigger${triggers.length > 1 ? 's' : ''}\n`);
      st.config.OnBuild = null;
      for (const t of triggers) {
        const m = /^\s*(\S+)\s*([\s\S]*)$/.exec(t);
        if (!m) continue;
        const ins = parseInstruction(m[1], m[2], 0);
        if (['ONBUILD', 'FROM', 'MAINTAINER'].includes(ins.cmd)) throw new StepError(`${ins.cmd} isn't allowed as an ONBUILD trigger`);
        await this.dispatch(ctx, st, ins);
      }
    } else if (image) st.config.OnBuild = null;
    return st;
  }

  private async baseImage(ctx: RunCtx, ref: string): Promise<ResolvedImage> {
    let parsed;
    try {
      parsed = withDefaultTag(parseReference(ref));
    } catch (err) {
      throw new StepError((err as Error).message);
    }
    const name = fullName(parsed);
    if (!ctx.b.request.pull) {
      const found = await this.d.images.resolve(name).catch((err: unknown) => {
        if (err instanceof BerthError && err.kind === 'NotFound') return undefined;
        throw err;
      });
      if (found) return found;
    }
    const creds = ctx.b.request.registryConfig[parsed.domain] ?? ctx.b.request.registryConfig[`https://${parsed.domain}`] ?? (parsed.domain === 'docker.io' ? ctx.b.request.registryConfig['https://index.docker.io/v1/'] : undefined) ?? {};
    await this.d.registry.pull(name, undefined, creds, (msg) => ctx.out(msg), ctx.signal);
    return this.d.images.resolve(name);
  }

  // ---- the instructions -------------------------------------------------------------------------------------

  private envLookup(st: StageState, ctx: RunCtx): (k: string) => string | undefined {
    return (k) => {
      const env = (st.config.Env as string[] | null) ?? [];
      for (let i = env.length - 1; i >= 0; i--) if (env[i].startsWith(`${k}=`)) return env[i].slice(k.length + 1);
      if (st.args.has(k)) {
        ctx.usedArgs.add(k);
        return st.args.get(k);
      }
      return undefined;
    };
  }

  private async dispatch(ctx: RunCtx, st: StageState, ins: Instruction): Promise<void> {
    const ex = (w: string) => expandWord(w, this.envLookup(st, ctx), ctx.escape);
    const exWords = (t: string) => expandWords(t, this.envLookup(st, ctx), ctx.escape);
    const c = st.config;
    switch (ins.cmd) {
      case 'ENV': {
        const env = [...((c.Env as string[] | null) ?? [])];
        const pairs = parseKeyValues(ins).map(([k, v]) => [ex(k), ex(v)] as const);
        for (const [k, v] of pairs) {
          const i = env.findIndex((e) => e.split('=')[0] === k);
          if (i >= 0) env[i] = `${k}=${v}`;
          else env.push(`${k}=${v}`);
        }
        c.Env = env;
        return this.commitConfig(ctx, st, `ENV ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`);
      }
      case 'LABEL': {
        const pairs = ins.labels ?? parseKeyValues(ins).map(([k, v]) => [ex(k), ex(v)] as const);
        c.Labels = { ...((c.Labels as Record<string, string> | null) ?? {}) };
        for (const [k, v] of pairs) (c.Labels as Record<string, string>)[k] = v;
        return this.commitConfig(ctx, st, `LABEL ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`);
      }
      case 'MAINTAINER':
        st.author = ins.rest;
        return this.commitConfig(ctx, st, `MAINTAINER ${ins.rest}`);
      case 'EXPOSE': {
        const ports = exWords(ins.rest);
        const exposed = { ...((c.ExposedPorts as Record<string, object> | null) ?? {}) };
        for (const p of ports) {
          const m = /^(\d+)(?:-(\d+))?(?:\/(tcp|udp|sctp))?$/i.exec(p);
          if (!m) throw new StepError(`Invalid containerPort: ${p}`);
          const proto = (m[3] ?? 'tcp').toLowerCase();
          for (let n = Number(m[1]); n <= Number(m[2] ?? m[1]); n++) exposed[`${n}/${proto}`] = {};
        }
        c.ExposedPorts = exposed;
        return this.commitConfig(ctx, st, `EXPOSE ${[...ports].sort().join(' ')}`);
      }
      case 'VOLUME': {
        const vols = jsonForm(ins.rest) ?? exWords(ins.rest);
        c.Volumes = { ...((c.Volumes as Record<string, object> | null) ?? {}) };
        for (const v of vols) {
          if (!v.trim()) throw new StepError('VOLUME specified can not be an empty string');
          (c.Volumes as Record<string, object>)[v] = {};
        }
        return this.commitConfig(ctx, st, `VOLUME [${vols.join(' ')}]`);
      }
      case 'USER':
        c.User = ex(ins.rest);
        return this.commitConfig(ctx, st, `USER ${c.User}`);
      case 'STOPSIGNAL': {
        const sig = ex(ins.rest);
        if (!/^(SIG)?[A-Z0-9+-]+$/i.test(sig) || (/^\d+$/.test(sig) && Number(sig) === 0)) throw new StepError(`Invalid signal: ${sig}`);
        c.StopSignal = sig;
        return this.commitConfig(ctx, st, `STOPSIGNAL ${sig}`);
      }
      case 'WORKDIR': {
        const dir = ex(ins.rest);
        const wd = dir.startsWith('/') ? cleanPath(dir) : cleanPath(`${(c.WorkingDir as string) || '/'}/${dir}`);
        c.WorkingDir = wd;
        return this.commitConfig(ctx, st, `WORKDIR ${wd}`, true);
      }
      case 'ARG': {
        const [name, dflt] = splitArg(ins);
        const given = Object.prototype.hasOwnProperty.call(ctx.b.request.buildArgs, name) ? ctx.b.request.buildArgs[name] ?? undefined : undefined;
        const value = given ?? (dflt === undefined ? undefined : ex(dflt));
        st.args.set(name, value);
        if (given !== undefined) ctx.usedArgs.add(name);
        return this.commitConfig(ctx, st, `ARG ${dflt === undefined ? name : `${name}=${dflt}`}`);
      }
      case 'ONBUILD': {
        const m = /^\s*(\S+)\s*([\s\S]*)$/.exec(ins.rest)!;
        const trig = m[1].toUpperCase();
        if (trig === 'ONBUILD') throw new StepError('Chaining ONBUILD via `ONBUILD ONBUILD` isn\'t allowed');
        if (trig === 'MAINTAINER' || trig === 'FROM') throw new StepError(`${trig} isn't allowed as an ONBUILD trigger`);
        parseInstruction(m[1], m[2], ins.line);
        const expr = `${trig} ${m[2]}`.trim();
        c.OnBuild = [...((c.OnBuild as string[] | null) ?? []), ins.rest.replace(/^\S+/, trig)];
        return this.commitConfig(ctx, st, `ONBUILD ${expr}`);
      }
      case 'SHELL': {
        const sh = jsonForm(ins.rest);
        if (!sh || sh.length === 0) throw new StepError('SHELL requires the arguments to be in JSON form');
        c.Shell = sh;
        return this.commitConfig(ctx, st, `SHELL [${sh.join(' ')}]`);
      }
      case 'CMD': {
        const cmd = jsonForm(ins.rest) ?? [...shellOf(c), ins.rest];
        c.Cmd = cmd;
        c.ArgsEscaped = undefined;
        st.cmdSet = true;
        return this.commitConfig(ctx, st, `CMD ${goQuoteList(cmd)}`);
      }
      case 'ENTRYPOINT': {
        const j = jsonForm(ins.rest);
        const ep = j ?? (ins.rest ? [...shellOf(c), ins.rest] : null);
        c.Entrypoint = ep;
        if (!st.cmdSet) c.Cmd = null;
        return this.commitConfig(ctx, st, `ENTRYPOINT ${goQuoteList(ep ?? [])}`);
      }
      case 'HEALTHCHECK': {
        const words = /^(\S+)\s*([\s\S]*)$/.exec(ins.rest);
        if (!words) throw new StepError('HEALTHCHECK requires at least one argument');
        const type = words[1].toUpperCase();
        if (type === 'NONE') {
          if (words[2] || Object.keys(ins.flags).length) throw new StepError('HEALTHCHECK NONE takes no arguments');
          c.Healthcheck = { Test: ['NONE'] };
        } else if (type === 'CMD') {
          const j = jsonForm(words[2]);
          const test = j ? ['CMD', ...j] : ['CMD-SHELL', words[2]];
          const dur = (f: string) => {
            const v = ins.flags[f];
            if (v === undefined || v === '') return 0;
            const ns = parseGoDuration(v);
            if (ns !== 0 && ns < 1e6) throw new StepError(`Interval "${f}" cannot be less than 1ms`);
            if (ns < 0) throw new StepError(`Interval "${f}" cannot be negative`);
            return ns;
          };
          const hc: Record<string, unknown> = { Test: test };
          const interval = dur('interval');
          const timeout = dur('timeout');
          const start = dur('start-period');
          const retries = ins.flags.retries ? Number(ins.flags.retries) : 0;
          if (!Number.isInteger(retries) || retries < 0) throw new StepError('--retries cannot be negative');
          if (interval) hc.Interval = interval;
          if (timeout) hc.Timeout = timeout;
          if (start) hc.StartPeriod = start;
          if (retries) hc.Retries = retries;
          c.Healthcheck = hc;
          return this.commitConfig(ctx, st, `HEALTHCHECK &{${goQuoteList(test)} "${goDuration(interval)}" "${goDuration(timeout)}" "${goDuration(start)}" ${goQuoteRune(retries)}}`);
        } else throw new StepError(`Unknown type "${type}" in HEALTHCHECK (try CMD)`);
        return this.commitConfig(ctx, st, `HEALTHCHECK &{["NONE"] "0s" "0s" "0s" '\\x00'}`);
      }
      case 'RUN':
        return this.runStep(ctx, st, ins);
      case 'COPY':
      case 'ADD':
        return this.copyStep(ctx, st, ins, ex);
      default:
        throw new StepError(`unknown instruction: ${ins.cmd}`);
    }
  }

  // ---- steps that make images -----------------------------------------------------------------------------

  /** The image that the cache holds for this step: a child of the current image with the same run config. */
  private async probeCache(ctx: RunCtx, st: StageState, containerConfig: ImageRunConfig): Promise<ResolvedImage | undefined> {
    if (ctx.b.request.nocache || !st.image) return undefined;
    const key = cacheKey(containerConfig);
    const children = await this.d.images.children(st.image.id);
    const hit = children.find((i) => cacheKey((i.config.container_config ?? {}) as ImageRunConfig) === key && cacheKey({ ...(i.config.config ?? {}), Cmd: null }) === cacheKey({ ...st.config, Cmd: null }));
    if (!hit) return undefined;
    ctx.say(' ---> Using cache\n');
    ctx.say(` ---> ${shortId(hit.id)}\n`);
    st.image = hit;
    st.config = { ...emptyConfig(), ...(hit.config.config ?? {}) };
    return hit;
  }

  /**
   * A step without a command (config-only, or WORKDIR with `diff`): a container is made with the step's config
   * and removed, as the engine makes one, so that the output's ` ---> Running in <id>` and the container events are
   * true; the image gets the new config and, for WORKDIR, the container's layer (the working directory, made by the
   * create as the engine's create makes it), else an empty layer (the engine's `#(nop)` commit).
   */
  private async commitConfig(ctx: RunCtx, st: StageState, msg: string, diff = false): Promise<void> {
    const cmd = diff ? [...shellOf(st.config), `#(nop) ${msg}`] : [...shellOf(st.config), '#(nop) ', msg];
    const config = ordered({ ...st.config, Image: st.image?.id ?? '' });
    const containerConfig = ordered({ ...config, Cmd: cmd });
    if (await this.probeCache(ctx, st, containerConfig)) return;
    const base = await this.containerBase(st);
    let kept = false;
    try {
      const container = await this.createStepContainer(st, base.image, cmd, { NetworkMode: 'none' });
      kept = true;
      ctx.say(` ---> Running in ${shortId(container)}\n`);
      let ok = false;
      try {
        const id = await this.d.commits.commitBuildStep({
          base: st.image,
          changes: diff ? { key: container, parent: `${container}-init` } : undefined,
          container,
          config,
          containerConfig: { ...containerConfig, Hostname: container.slice(0, 12) },
          createdBy: cmd.join(' '),
          author: st.author,
        });
        ok = true;
        kept = !(await this.finishStep(ctx, st, id, container, true));
      } finally {
        if (!ok) kept = !(await this.removeStepContainer(ctx, container, false));
      }
    } finally {
      if (kept) base.keep();
      else await base.release();
    }
  }

  /**
   * The image a step's container is made from: the current one, or after `FROM scratch`, before any step made
   * one, an image of no layers made for it (the engine makes that container from no image at all: an empty root).
   * `release` removes such an image (its record only: no event), once no container uses it.
   */
  private async containerBase(st: StageState): Promise<{ image: ResolvedImage; release: () => Promise<void>; keep: () => void }> {
    if (st.image) return { image: st.image, release: async () => undefined, keep: () => undefined };
    const config = ordered({ ...st.config, Image: '' });
    const id = await this.d.commits.commitBuildStep({ base: undefined, container: '', config, containerConfig: config, createdBy: '' });
    // Recorded while it exists for the step alone, as step containers are: a build killed meanwhile leaves it to init().
    const marker = path.join(this.d.dataRoot, 'builder', 'images', id.replace(/^sha256:/, ''));
    fs.writeFileSync(marker, '');
    const keep = () => fs.rmSync(marker, { force: true });
    const release = async () => {
      await imageApi.remove(this.d.ctr, danglingName(id)).catch(() => undefined);
      keep();
    };
    try {
      return { image: await this.d.images.resolve(id), release, keep };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** Whether the step's container was removed. */
  private async finishStep(ctx: RunCtx, st: StageState, id: string, container: string, ok: boolean): Promise<boolean> {
    const removed = container ? await this.removeStepContainer(ctx, container, ok) : false;
    st.image = await this.d.images.resolve(id);
    st.config = { ...emptyConfig(), ...(st.image.config.config ?? {}) };
    ctx.say(` ---> ${shortId(id)}\n`);
    return removed;
  }

  private async createStepContainer(st: StageState, image: ResolvedImage, cmd: string[], hc: Record<string, unknown>, env?: string[]): Promise<string> {
    const c = st.config;
    const { id } = await this.d.containers.create(
      {
        config: {
          ...(c as Record<string, unknown>),
          Image: image.id,
          Cmd: cmd,
          Entrypoint: [''],
          Env: env ?? (c.Env as string[] | null) ?? [],
          Healthcheck: { Test: ['NONE'] },
          Labels: (c.Labels as Record<string, string> | null) ?? {},
          AttachStdout: true,
          AttachStderr: true,
        } as never,
        hostConfig: hc as never,
        networkingConfig: { EndpointsConfig: {} } as never,
      },
      undefined,
    );
    fs.writeFileSync(path.join(this.d.dataRoot, 'builder', 'containers', id), '');
    return id;
  }

  /** Removes a step's container as the engine does (rm, forcerm; a failed step's is kept unless forcerm); whether it was. */
  private async removeStepContainer(ctx: RunCtx, id: string, ok: boolean): Promise<boolean> {
    const req = ctx.b.request;
    const marker = path.join(this.d.dataRoot, 'builder', 'containers', id);
    // A cancelled build (the client went away) removes its containers whatever rm says.
    if (!(req.forcerm || (req.rm && ok) || ctx.signal.aborted)) {
      fs.rmSync(marker, { force: true });
      return false;
    }
    const removed = await this.d.containers.remove(id, { force: true, volumes: true }).then(
      () => true,
      (err) => {
        this.d.logger.warn('cannot remove a build container', { id, err: String(err) });
        return false;
      },
    );
    fs.rmSync(marker, { force: true });
    ctx.say(`Removing intermediate container ${shortId(id)}\n`);
    return removed;
  }

  private async runStep(ctx: RunCtx, st: StageState, ins: Instruction): Promise<void> {
    const c = st.config;
    const j = jsonForm(ins.rest);
    const cmd = j ?? [...shellOf(c), ins.rest];
    // Build-args in effect: the stage's ARGs with a value, passed as environment, and named in the cached Cmd.
    const envKeys = new Set(((c.Env as string[] | null) ?? []).map((e) => e.split('=')[0]));
    const argEnv: string[] = [];
    for (const [k, v] of [...st.args.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (v === undefined) continue;
      argEnv.push(`${k}=${v}`);
      ctx.usedArgs.add(k);
    }
    for (const k of PROXY_ARGS) {
      const v = ctx.b.request.buildArgs[k];
      if (v !== undefined && v !== null && !st.args.has(k)) argEnv.push(`${k}=${v}`);
    }
    const saved = argEnv.length ? [`|${argEnv.length}`, ...argEnv, ...cmd] : cmd;
    const config = ordered({ ...c, Image: st.image?.id ?? '' });
    const containerConfig = ordered({ ...config, Cmd: saved });
    if (await this.probeCache(ctx, st, containerConfig)) return;
    const env = [...((c.Env as string[] | null) ?? []), ...argEnv.filter((e) => !envKeys.has(e.split('=')[0]))];
    const r = ctx.b.request.resources;
    // After `FROM scratch` the container has an empty root: its start fails (no shell) with runc's message, as the reference's.
    const base = await this.containerBase(st);
    let container: string;
    try {
      container = await this.createStepContainer(st, base.image, cmd, { ...r, NetworkMode: 'default' }, env);
    } catch (err) {
      await base.release();
      throw err;
    }
    ctx.say(` ---> Running in ${shortId(container)}\n`);
    let ok = false;
    let kept = true;
    try {
      const ended = new Promise<void>((resolve) => {
        const unsub = this.d.containers.subscribeOutput(
          container,
          (stream, chunk) => {
            if (ctx.b.request.quiet) return;
            const text = chunk.toString('utf8');
            ctx.out({ stream: stream === 'stderr' ? `\u001b[91m${text}\u001b[0m` : text });
          },
          () => {
            unsub();
            resolve();
          },
        );
      });
      const abort = () => void this.d.containers.kill(container, 'SIGKILL').catch(() => undefined);
      ctx.signal.addEventListener('abort', abort);
      let code: number;
      try {
        if (ctx.signal.aborted) throw new StepError('the build was cancelled');
        // The engine attaches to the step's output before starting it (its `attach` event).
        this.d.containers.attached(this.d.containers.find(container));
        await this.d.containers.start(container);
        // Cancelled while the task was starting: the abort's kill found nothing to kill yet.
        if (ctx.signal.aborted) await this.d.containers.kill(container, 'SIGKILL').catch(() => undefined);
        code = await this.d.containers.wait(container);
        await Promise.race([ended, new Promise((r2) => setTimeout(r2, 2000))]);
      } finally {
        ctx.signal.removeEventListener('abort', abort);
      }
      if (ctx.signal.aborted) throw new StepError('the build was cancelled');
      if (code !== 0) throw new StepError(`The command '${cmd.join(' ')}' returned a non-zero code: ${code}`, code);
      const id = await this.d.commits.commitBuildStep({
        base: st.image,
        changes: { key: container, parent: `${container}-init` },
        container,
        config,
        containerConfig: { ...containerConfig, Hostname: container.slice(0, 12) },
        createdBy: saved.join(' '),
        author: st.author,
      });
      ok = true;
      kept = !(await this.finishStep(ctx, st, id, container, true));
    } finally {
      if (!ok) kept = !(await this.removeStepContainer(ctx, container, false));
      if (kept) base.keep();
      else await base.release();
    }
  }

  /**
   * A step that changes the filesystem without running anything (COPY, ADD, WORKDIR): an active snapshot of the
   * current image is mounted, changed by `apply`, diffed and committed.
   */
  private async snapshotStep(ctx: RunCtx, st: StageState, cmd: string[], apply: (scope: Scope) => Promise<number | undefined>, owner?: string): Promise<void> {
    void owner;
    const config = ordered({ ...st.config, Image: st.image?.id ?? '' });
    const containerConfig = ordered({ ...config, Cmd: cmd });
    if (await this.probeCache(ctx, st, containerConfig)) return;
    const key = `berth-build-${crypto.randomBytes(8).toString('hex')}`;
    const { dir: mnt, remove } = this.contexts.makeDir('mnt');
    try {
      const id = await leaseApi.withLease(this.d.ctr, 'berth-build', async (lease) => {
        const parent = st.image?.chainId ?? '';
        const prep = { mounts: await snapshotApi.prepare(this.d.ctr, SNAPSHOTTER, key, parent, { lease }) };
        try {
          await mountSnapshot(mnt, prep.mounts[0] as never);
          let filesSize: number | undefined;
          try {
            filesSize = await apply({ root: mnt, mounts: [], probe: hostProbe });
          } finally {
            await unmount(mnt);
          }
          return await this.d.commits.commitBuildStep({ base: st.image, changes: { key, parent, adopt: true, filesSize }, container: '', config, containerConfig, createdBy: cmd.join(' '), author: st.author });
        } finally {
          await snapshotApi.remove(this.d.ctr, SNAPSHOTTER, key).catch(() => undefined);
        }
      });
      await this.finishStep(ctx, st, id, '', true);
    } finally {
      await remove();
    }
  }

  private async copyStep(ctx: RunCtx, st: StageState, ins: Instruction, ex: (w: string) => string): Promise<void> {
    const words = jsonForm(ins.rest) ?? splitRawWords(ins.rest, ctx.escape).map(ex);
    if (words.length < 2) throw new StepError(`${ins.cmd} requires at least two arguments`);
    const destRaw = words[words.length - 1];
    const srcs = words.slice(0, -1);
    const wd = (st.config.WorkingDir as string) || '/';
    let dest = destRaw.startsWith('/') ? destRaw : `${wd.replace(/\/$/, '')}/${destRaw}`;
    const destIsDir = destRaw.endsWith('/') || destRaw.endsWith('/.') || destRaw === '.';
    if (destIsDir && !dest.endsWith('/')) dest += '/';
    let root: SourceRoot;
    let release = async () => undefined as void;
    const from = ins.flags.from;
    if (from !== undefined && ins.cmd === 'COPY') {
      const stage = ctx.stages.find((s) => s.name === from.toLowerCase());
      const img = stage ? stage.image : await this.baseImage(ctx, from);
      const view = await this.viewOf(img!);
      root = { scope: view.scope, fs: hostFs, isContext: false };
      release = view.release;
    } else root = { scope: ctx.b.context.scope, fs: ctx.b.context.fs, isContext: true };
    try {
      const urls = srcs.filter((s) => /^https?:\/\//.test(s));
      if (urls.length && ins.cmd === 'COPY') throw new StepError('COPY failed: source can\'t be a URL for COPY');
      const local = srcs.filter((s) => !/^https?:\/\//.test(s));
      let sources: CopySource[];
      try {
        sources = local.flatMap((s) => resolveSources(root, s, ins.cmd));
      } catch (err) {
        throw new StepError((err as Error).message);
      }
      // ADD of a URL: downloaded into the build's temporary folder (mode 0600, mtime from Last-Modified), never extracted.
      const downloaded: CopySource[] = [];
      if (urls.length) {
        const dl = this.contexts.makeDir('url');
        const prev = release;
        release = async () => {
          await dl.remove();
          await prev();
        };
        for (const [i, u] of urls.entries()) downloaded.push(await downloadSource(u, path.join(dl.dir, String(i)), ctx.signal));
      }
      sources = [...sources, ...downloaded];
      const plan = await planCopy(sources, destIsDir || sources.length > 1, ins.cmd);
      // ADD of a local archive extracts it instead of copying it.
      const archives = ins.cmd === 'ADD' ? sources.filter((s) => !s.isDir && !downloaded.includes(s) && isArchive(s.fs.head(s.hostPath, 512))) : [];
      const cmd = [...shellOf(st.config), `#(nop) ${ins.cmd} ${plan.checksum} in ${dest} `];
      const chown = ins.flags.chown;
      await this.snapshotStep(ctx, st, cmd, async (scope) => {
        const owner = chown ? resolveChown(scope, ex(chown)) : { uid: 0, gid: 0 };
        const destClean = cleanPath(dest);
        let prefixIsDir = dest.endsWith('/') || sources.length > 1 || sources[0].isDir;
        if (!prefixIsDir) {
          // A single file to an existing directory goes inside it.
          try {
            const r = resolveInScope(scope, destClean);
            if (fs.statSync(r.hostPath).isDirectory()) prefixIsDir = true;
          } catch {
            /* a new file */
          }
        }
        const nonArchive = plan.entries.filter((e) => !archives.some((a) => a.fs === e.fs && a.hostPath === e.hostPath));
        const target = prefixIsDir ? destClean : destClean.slice(0, destClean.lastIndexOf('/')) || '/';
        if (prefixIsDir) mkdirInScope(scope, destClean, owner);
        else mkdirInScope(scope, target);
        const named = nonArchive.map((e) => ({ ...e, name: prefixIsDir ? (sources.length === 1 && !sources[0].isDir && !dest.endsWith('/') ? sources[0].base : e.name) : path.basename(destClean) }));
        // The bytes written, when only the planned entries were (the layer's size without counting its files).
        let filesSize: number | undefined = named.reduce((n, e) => n + (e.st.isFile() || e.st.isSymbolicLink() ? e.st.size : 0), 0);
        if (!(await writeEntries(scope, target, named, owner))) {
          filesSize = undefined;
          await extractTar(scope, target, packEntries(named, '', owner), { noOverwriteDirNonDir: false, readonlyRootfs: false });
        }
        for (const a of archives) {
          filesSize = undefined;
          await extractTar(scope, destClean, await openTar(a.fs.open(a.hostPath, a.fs.lstat(a.hostPath)!)), { noOverwriteDirNonDir: false, readonlyRootfs: false });
        }
        return filesSize;
      });
    } finally {
      await release();
    }
  }

  /** An image's filesystem, read-only (COPY --from). */
  private async viewOf(img: ResolvedImage): Promise<{ scope: Scope; release: () => Promise<void> }> {
    const { dir, remove } = this.contexts.makeDir('from');
    const key = `berth-build-view-${crypto.randomBytes(8).toString('hex')}`;
    const mounts = await snapshotApi.view(this.d.ctr, SNAPSHOTTER, key, img.chainId);
    try {
      await mountReadOnly(dir, mounts[0] as never);
    } catch (err) {
      await snapshotApi.remove(this.d.ctr, SNAPSHOTTER, key).catch(() => undefined);
      await remove();
      throw err;
    }
    return {
      scope: { root: dir, mounts: [], probe: hostProbe },
      release: async () => {
        await unmount(dir).catch(() => undefined);
        await snapshotApi.remove(this.d.ctr, SNAPSHOTTER, key).catch(() => undefined);
        await remove();
      },
    };
  }
}

interface RunCtx {
  b: PreparedBuild;
  say: (s: string) => void;
  out: BuildOutput;
  signal: AbortSignal;
  usedArgs: Set<string>;
  stages: StageState[];
  escape: string;
}

function shellOf(c: ImageRunConfig): string[] {
  const sh = c.Shell as string[] | undefined;
  return sh && sh.length ? sh : DEFAULT_SHELL;
}

function splitArg(i: Instruction): [string, string | undefined] {
  const t = i.rest.trim();
  const eq = t.indexOf('=');
  if (/\s/.test(t)) throw invalidParameter(`dockerfile parse error line ${i.line}: ARG requires exactly one argument`);
  return eq < 0 ? [t, undefined] : [t.slice(0, eq), t.slice(eq + 1)];
}

function familiar(name: string): string {
  const r = parseReference(name);
  const path_ = r.domain === 'docker.io' ? r.path.replace(/^library\//, '') : `${r.domain}/${r.path}`;
  return `${path_}:${r.tag ?? 'latest'}`;
}

/** Creates a directory (and its parents, 0755 root) inside the scope; the last one owned by `owner`. */
function mkdirInScope(scope: Scope, p: string, owner?: { uid: number; gid: number }): void {
  const parts = cleanPath(p).split('/').filter(Boolean);
  let cur = '';
  for (const [i, part] of parts.entries()) {
    cur += `/${part}`;
    const r = resolveInScope(scope, cur);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(r.hostPath);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) continue;
    if (st) throw new StepError(`mkdir ${cur}: not a directory`);
    fs.mkdirSync(r.hostPath, { mode: 0o755 });
    const o = i === parts.length - 1 && owner ? owner : { uid: 0, gid: 0 };
    fs.chownSync(r.hostPath, o.uid, o.gid);
  }
}

function resolveChown(scope: Scope, spec: string): { uid: number; gid: number } {
  const read = (f: string) => {
    try {
      return fs.readFileSync(resolveInScope(scope, f).hostPath, 'utf8');
    } catch {
      return undefined;
    }
  };
  void readLayered;
  const [u, g] = spec.split(':');
  try {
    const r = resolveUser(g === undefined ? u : `${u}:${g}`, read('/etc/passwd'), read('/etc/group'));
    return { uid: r.uid, gid: g === undefined && /^\d+$/.test(u) ? r.uid : r.gid };
  } catch (err) {
    throw new StepError(`unable to convert uid/gid chown string to host mapping: ${(err as Error).message}`);
  }
}

/** Downloads an ADD source URL into `dir`, named after the URL's last path element. */
async function downloadSource(url: string, dir: string, signal: AbortSignal): Promise<CopySource> {
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: 'follow' });
  } catch (err) {
    throw new StepError(`Get "${url}": ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
  }
  if (!res.ok || !res.body) throw new StepError(`failed to GET ${url} with status ${res.status} ${res.statusText}: `);
  let base = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  if (!base || base === '.' || base === '..') base = '__unnamed__';
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, base);
  await saveTo(Readable.fromWeb(res.body as never), file);
  fs.chmodSync(file, 0o600);
  const lm = res.headers.get('last-modified');
  const mtime = lm ? new Date(lm) : undefined;
  if (mtime && !Number.isNaN(mtime.getTime())) fs.utimesSync(file, mtime, mtime);
  return { fs: hostFs, hostPath: file, rel: base, isDir: false, base, fromWildcard: false };
}

function isArchive(head: Buffer): boolean {
  const n = head.length;
  if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  if (n >= 3 && head.subarray(0, 3).toString() === 'BZh') return true;
  if (n >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return true;
  return n >= 262 && head.subarray(257, 262).toString() === 'ustar';
}

export { StepError };
