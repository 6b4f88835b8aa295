// The `changes` of commit and import: Dockerfile instruction lines (CMD, ENTRYPOINT, ENV, EXPOSE, LABEL, USER,
// VOLUME, WORKDIR, ONBUILD) applied to an image config, as the engine applies them — pure.
import { invalidParameter } from '../../errors';
import type { ImageRunConfig } from '../../types/image';

const ALLOWED = ['CMD', 'ENTRYPOINT', 'ENV', 'EXPOSE', 'LABEL', 'ONBUILD', 'USER', 'VOLUME', 'WORKDIR'];

/** A JSON array of strings, or undefined when the text is not one (then it is the shell form). */
export function jsonForm(s: string): string[] | undefined {
  if (!s.startsWith('[')) return undefined;
  try {
    const v = JSON.parse(s);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Splits words honouring double and single quotes and backslash escapes (ENV/LABEL key=value lists). */
export function splitWords(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = '';
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/** key=value pairs, or the legacy `KEY value with spaces` form. */
function pairs(rest: string, what: string): [string, string][] {
  const words = splitWords(rest);
  if (words.length === 0) throw invalidParameter(`${what} requires at least one argument`);
  if (!words[0].includes('=')) {
    const sp = rest.trim().search(/\s/);
    if (sp < 0) throw invalidParameter(`${what} must have two arguments`);
    return [[rest.trim().slice(0, sp), rest.trim().slice(sp).trim()]];
  }
  return words.map((w) => {
    const i = w.indexOf('=');
    if (i <= 0) throw invalidParameter(`Syntax error - can't find = in "${w}". Must be of the form: name=value`);
    return [w.slice(0, i), w.slice(i + 1)];
  });
}

export function applyChanges(config: ImageRunConfig, changes: string[]): ImageRunConfig {
  const c: ImageRunConfig = { ...config };
  for (const raw of changes) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(line)!;
    const cmd = m[1].toUpperCase();
    const rest = m[2].trim();
    // the reference names the command as given, lower-cased (bogus is not a valid change command)
    if (!ALLOWED.includes(cmd)) throw invalidParameter(`${m[1].toLowerCase()} is not a valid change command`);
    switch (cmd) {
      case 'CMD':
      case 'ENTRYPOINT': {
        const args = jsonForm(rest) ?? (rest ? ['/bin/sh', '-c', rest] : []);
        if (cmd === 'CMD') c.Cmd = args;
        else {
          c.Entrypoint = args.length ? args : null;
          c.Cmd = null; // ENTRYPOINT resets an inherited CMD, as a Dockerfile does
        }
        break;
      }
      case 'ENV': {
        const env = [...(c.Env ?? [])];
        for (const [k, v] of pairs(rest, 'ENV')) {
          const i = env.findIndex((e) => e.split('=')[0] === k);
          if (i >= 0) env[i] = `${k}=${v}`;
          else env.push(`${k}=${v}`);
        }
        c.Env = env;
        break;
      }
      case 'LABEL': {
        const labels = { ...(c.Labels ?? {}) };
        for (const [k, v] of pairs(rest, 'LABEL')) labels[k] = v;
        c.Labels = labels;
        break;
      }
      case 'EXPOSE': {
        const ports = { ...(c.ExposedPorts ?? {}) };
        for (const p of splitWords(rest)) {
          if (!/^\d+(-\d+)?(\/(tcp|udp|sctp))?$/i.test(p)) throw invalidParameter(`Invalid containerPort: ${p}`);
          ports[p.includes('/') ? p.toLowerCase() : `${p}/tcp`] = {};
        }
        c.ExposedPorts = ports;
        break;
      }
      case 'VOLUME': {
        const vols = { ...(c.Volumes ?? {}) };
        for (const v of jsonForm(rest) ?? splitWords(rest)) {
          if (!v) throw invalidParameter('VOLUME specified can not be an empty string');
          vols[v] = {};
        }
        c.Volumes = vols;
        break;
      }
      case 'USER':
        if (!rest) throw invalidParameter('USER requires exactly one argument');
        c.User = rest;
        break;
      case 'WORKDIR':
        if (!rest) throw invalidParameter('WORKDIR requires exactly one argument');
        c.WorkingDir = rest.startsWith('/') ? rest : `${(c.WorkingDir || '/').replace(/\/$/, '')}/${rest}`;
        break;
      case 'ONBUILD':
        if (!rest) throw invalidParameter('ONBUILD requires at least one argument');
        c.OnBuild = [...(c.OnBuild ?? []), rest];
        break;
    }
  }
  return c;
}
