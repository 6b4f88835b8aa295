// json-file log options (HostConfig.LogConfig.Config) as Docker Engine 20.10 checks and applies them — pure.
// The engine checks option *names* at create (400) and option *values* when the logging driver starts, at container
// start (500 "failed to initialize logging driver: ...", the container left created with ExitCode 128).
import { invalidParameter } from '../../errors';
import type { JsonFileOptions } from '../../types/io';


const JSON_FILE_OPTS = new Set(['max-file', 'max-size', 'compress', 'labels', 'labels-regex', 'env', 'env-regex', 'tag']);
/** Options every driver takes (logger.ValidateLogOpts: mode, max-buffer-size; the local cache's cache-*). */
const BUILT_IN_OPTS = new Set(['mode', 'max-buffer-size', 'cache-disabled', 'cache-max-size', 'cache-max-file', 'cache-compress']);

/** go-units' size pattern (v0.4): digits, an optional unit prefix, an optional i, an optional b. */
const SIZE = /^(\d+(\.\d+)*) ?([kKmMgGtTpP])?[iI]?[bB]?$/;
const PREFIXES = 'kmgtp';

/** go-units FromHumanSize (decimal: 1k = 1000) and RAMInBytes (binary: 1k = 1024); throws "invalid size: 'x'". */
export function parseSize(s: string, binary = false): number {
  const m = SIZE.exec(s);
  if (!m) throw new Error(`invalid size: '${s}'`);
  const n = /^\d+(\.\d+)?$/.test(m[1]) ? Number(m[1]) : 0; // Go ignores ParseFloat's error: "1.2.3" is 0
  const unit = m[3] ? (binary ? 1024 : 1000) ** (PREFIXES.indexOf(m[3].toLowerCase()) + 1) : 1;
  return Math.trunc(n * unit);
}

/** The create-time check (logger.ValidateLogOpts + json-file's ValidateLogOpt): 400 with the engine's message. */
export function validateLogOptions(type: string, config: Record<string, string> | null | undefined): void {
  if (type === 'none') return;
  const cfg = config ?? {};
  const mode = cfg.mode ?? '';
  if (!['', 'blocking', 'non-blocking'].includes(mode)) throw invalidParameter(`logger: logging mode not supported: ${mode}`);
  if ('max-buffer-size' in cfg) {
    if (mode !== 'non-blocking') throw invalidParameter(`logger: max-buffer-size option is only supported with 'mode=non-blocking'`);
    try {
      parseSize(cfg['max-buffer-size'], true);
    } catch (err) {
      throw invalidParameter(`error parsing option max-buffer-size: ${(err as Error).message}`);
    }
  }
  if ('cache-disabled' in cfg && parseBool(cfg['cache-disabled']) === undefined) throw invalidParameter(`invalid value for option cache-disabled: ${cfg['cache-disabled']}`);
  if (type !== 'json-file' && type !== '') return;
  // The engine walks a Go map (any unknown key may be named); berth names the first in the request's order.
  for (const k of Object.keys(cfg)) if (!JSON_FILE_OPTS.has(k) && !BUILT_IN_OPTS.has(k)) throw invalidParameter(`unknown log opt '${k}' for json-file log driver`);
}

/** Go's strconv.ParseBool. */
function parseBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** Go's strconv.Atoi, for the values a log option holds. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  return n;
}

const goQuote = (s: string): string => JSON.stringify(s);

/**
 * json-file's New(): the rotation options, or the engine's message (without "failed to initialize logging driver: ")
 * for a bad value, checked in the engine's order.
 */
export function parseJsonFileOptions(config: Record<string, string> | null | undefined): JsonFileOptions {
  const cfg = config ?? {};
  let maxSize = -1;
  if ('max-size' in cfg) {
    maxSize = parseSize(cfg['max-size']);
    if (maxSize <= 0) throw new Error('max-size must be a positive number');
  }
  let maxFiles = 1;
  if ('max-file' in cfg) {
    maxFiles = atoi(cfg['max-file']);
    if (maxFiles < 1) throw new Error('max-file cannot be less than 1');
  }
  let compress = false;
  if ('compress' in cfg) {
    const b = parseBool(cfg.compress);
    if (b === undefined) throw new Error(`strconv.ParseBool: parsing ${goQuote(cfg.compress)}: invalid syntax`);
    compress = b;
    if (compress && (maxFiles === 1 || maxSize === -1)) throw new Error('compress cannot be true when max-file is less than 2 or max-size is not set');
  }
  return { maxSize, maxFiles, compress };
}

/** What a log tag template and the labels/env options see of a container (the engine's logger.Info). */
export interface LogInfo {
  id: string;
  name: string; // with its leading slash
  imageId: string; // sha256:...
  imageName: string; // as the client gave it
  path: string;
  args: string[];
  env: string[];
  labels: Record<string, string>;
  logPath: string;
  hostname: string; // the daemon host's
}

function compile(re: string): RegExp {
  try {
    return new RegExp(re);
  } catch (err) {
    throw new Error(`error parsing regexp: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`); // Go's wording differs
  }
}

/** logger.Info.ExtraAttributes plus json-file's tag: the attributes each entry carries, undefined for none. */
export function logAttributes(config: Record<string, string> | null | undefined, info: LogInfo): Record<string, string> | undefined {
  const cfg = config ?? {};
  const extra: Record<string, string> = {};
  const labels = info.labels ?? {};
  if (cfg.labels) for (const l of cfg.labels.split(',')) if (Object.prototype.hasOwnProperty.call(labels, l)) extra[l] = labels[l];
  if (cfg['labels-regex']) {
    const re = compile(cfg['labels-regex']);
    for (const [k, v] of Object.entries(labels)) if (re.test(k)) extra[k] = v;
  }
  const env = new Map<string, string>();
  for (const e of info.env ?? []) {
    const i = e.indexOf('=');
    if (i >= 0) env.set(e.slice(0, i), e.slice(i + 1));
  }
  if (cfg.env) for (const k of cfg.env.split(',')) if (env.has(k)) extra[k] = env.get(k)!;
  if (cfg['env-regex']) {
    const re = compile(cfg['env-regex']);
    for (const [k, v] of env) if (re.test(k)) extra[k] = v;
  }
  // json-file has no default tag: one is written only when asked for.
  const tag = cfg.tag ? renderTag(cfg.tag, info) : '';
  if (tag) extra.tag = tag;
  return Object.keys(extra).length ? extra : undefined;
}

/** The fields and methods of logger.Info a tag template can name. */
function tagFields(info: LogInfo): Record<string, string> {
  return {
    ID: info.id.slice(0, 12),
    FullID: info.id,
    ContainerID: info.id,
    Name: info.name.replace(/^\//, ''),
    ContainerName: info.name,
    ImageID: info.imageId.slice(0, 12), // the engine cuts the "sha256:..." string: "sha256:f0c4c"
    ImageFullID: info.imageId,
    ContainerImageID: info.imageId,
    ImageName: info.imageName,
    ContainerImageName: info.imageName,
    Command: [info.path, ...info.args].join(' '),
    ContainerEntrypoint: info.path,
    DaemonName: 'docker',
    Hostname: info.hostname,
    LogPath: info.logPath,
  };
}

/**
 * A tag template: text with `{{.Field}}` actions (the Go template forms in use for tags). Other actions (functions,
 * pipelines) are not supported by berth and refused at start.
 */
export function renderTag(tmpl: string, info: LogInfo): string {
  const fields = tagFields(info);
  let out = '';
  let at = 0;
  for (;;) {
    const open = tmpl.indexOf('{{', at);
    if (open < 0) return out + tmpl.slice(at);
    out += tmpl.slice(at, open);
    const close = tmpl.indexOf('}}', open + 2);
    const line = 1 + (tmpl.slice(0, open).match(/\n/g)?.length ?? 0);
    if (close < 0) throw new Error(`template: log-tag:${line}: unclosed action`);
    const action = tmpl.slice(open + 2, close);
    const m = /^(-?\s*)\.([A-Za-z_]\w*)\s*-?$/.exec(action.replace(/^-\s/, '').replace(/\s-$/, ''));
    if (!m) throw new Error(`template: log-tag:${line}: berth supports only {{.Field}} actions in a log tag, not {{${action}}}`);
    const name = m[2];
    if (!(name in fields)) {
      const col = open + 2 + action.indexOf('.') - (tmpl.lastIndexOf('\n', open) + 1);
      throw new Error(`template: log-tag:${line}:${col}: executing "log-tag" at <.${name}>: can't evaluate field ${name} in type *logger.Info`);
    }
    out += fields[name];
    at = close + 2;
  }
}

/** Go's encoding/json string encoding (HTML-safe: <, >, & escaped; U+2028/9 escaped; invalid UTF-16 as U+FFFD). */
export function goJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16).padStart(4, '0');
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) out += s[i] + s[++i];
    else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += s[i];
  }
  return out + '"';
}

/** json.Marshal of a map[string]string: keys sorted. */
export function goJsonAttrs(attrs: Record<string, string>): string {
  const keys = Object.keys(attrs).sort();
  return '{' + keys.map((k) => `${goJsonString(k)}:${goJsonString(attrs[k])}`).join(',') + '}';
}
