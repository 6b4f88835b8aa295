// The Dockerfile as the classic builder reads it — pure. dockerfile-ast splits the text into instructions (parser
// directives, the escape character, line continuations, comments); berth parses each instruction's arguments with
// the engine's rules (JSON or shell form, key=value pairs, --flags) and expands $VAR, ${VAR}, ${VAR:-x}, ${VAR:+x}
// with the engine's shell-word rules (quotes removed, escapes kept literal).
import { invalidParameter } from '../errors';

export interface Instruction {
  /** Upper-case keyword. */
  cmd: string;
  /** The line as the engine prints it in `Step i/n : …` (keyword as written, continuations joined). */
  original: string;
  /** The arguments' text after the keyword and the flags. */
  rest: string;
  flags: Record<string, string>;
  /** 1-based line of the keyword. */
  line: number;
  /** A LABEL made from the request's `labels` (not parsed: a value may hold spaces or quotes). */
  labels?: [string, string][];
}

export interface Stage {
  /** FROM's image text (unexpanded). */
  from: Instruction;
  name: string;
  steps: Instruction[];
}

export interface ParsedDockerfile {
  /** ARG instructions before the first FROM. */
  metaArgs: Instruction[];
  stages: Stage[];
  escape: string;
}

const KNOWN = new Set(['ADD', 'ARG', 'CMD', 'COPY', 'ENTRYPOINT', 'ENV', 'EXPOSE', 'FROM', 'HEALTHCHECK', 'LABEL', 'MAINTAINER', 'ONBUILD', 'RUN', 'SHELL', 'STOPSIGNAL', 'USER', 'VOLUME', 'WORKDIR']);

const parseError = (line: number, msg: string) => invalidParameter(`dockerfile parse error line ${line}: ${msg}`);

/** Splits leading `--name=value` flags off an instruction's arguments. */
function splitFlags(text: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = text;
  for (;;) {
    const m = /^--([A-Za-z0-9-]+)(?:=(\S*))?(?:\s+|$)/.exec(rest);
    if (!m) break;
    flags[m[1]] = m[2] ?? '';
    rest = rest.slice(m[0].length);
  }
  return { flags, rest: rest.trim() };
}

/** One instruction from its keyword and argument text (also used for ONBUILD triggers). */
export function parseInstruction(keyword: string, args: string, line: number): Instruction {
  const cmd = keyword.toUpperCase();
  if (!KNOWN.has(cmd)) throw parseError(line, `unknown instruction: ${cmd}`);
  const text = args.trim();
  const withFlags = ['ADD', 'COPY', 'FROM', 'HEALTHCHECK', 'RUN'].includes(cmd);
  const { flags, rest } = withFlags ? splitFlags(text) : { flags: {}, rest: text };
  const original = text ? `${keyword} ${text}` : keyword;
  const ins: Instruction = { cmd, original, rest, flags, line };
  validate(ins);
  return ins;
}

const allowedFlags: Record<string, string[]> = { ADD: ['chown'], COPY: ['chown', 'from'], FROM: ['platform'], HEALTHCHECK: ['interval', 'timeout', 'start-period', 'retries'], RUN: [] };

function validate(i: Instruction): void {
  for (const f of Object.keys(i.flags)) {
    if (!(allowedFlags[i.cmd] ?? []).includes(f)) throw parseError(i.line, `Unknown flag: ${f}`);
  }
  const needsArgs = !['HEALTHCHECK'].includes(i.cmd);
  if (needsArgs && !i.rest) {
    const atLeastOne = ['ENV', 'LABEL', 'EXPOSE', 'VOLUME', 'ONBUILD', 'SHELL', 'MAINTAINER'];
    const two = ['ADD', 'COPY'];
    if (two.includes(i.cmd)) throw parseError(i.line, `${i.cmd} requires at least two arguments`);
    if (atLeastOne.includes(i.cmd)) throw parseError(i.line, `${i.cmd} requires at least one argument`);
    if (['RUN', 'CMD', 'ENTRYPOINT'].includes(i.cmd)) return;
    throw parseError(i.line, `${i.cmd} requires exactly one argument`);
  }
  if (i.cmd === 'ENV' || i.cmd === 'LABEL') parseKeyValues(i);
}

export function parseDockerfile(text: string): ParsedDockerfile {
  // loaded with the first build (idle memory)
  const doc = (require('dockerfile-ast') as typeof import('dockerfile-ast')).DockerfileParser.parse(text);
  const escape = doc.getEscapeCharacter();
  const metaArgs: Instruction[] = [];
  const stages: Stage[] = [];
  for (const raw of doc.getInstructions()) {
    const keyword = raw.getInstruction();
    const line = raw.getRange().start.line + 1;
    // dockerfile-ast gives the flags apart from the arguments; the instruction's text is put back together.
    const flags = 'getFlags' in raw ? (raw as unknown as { getFlags(): { getName(): string; getValue(): string | null }[] }).getFlags() : [];
    const flagText = flags.map((f) => (f.getValue() === null ? `--${f.getName()}` : `--${f.getName()}=${f.getValue()}`));
    const ins = parseInstruction(keyword, [...flagText, raw.getArgumentsContent() ?? ''].join(' '), line);
    if (ins.cmd === 'FROM') {
      const words = ins.rest.split(/\s+/).filter(Boolean);
      let name = '';
      if (words.length === 3 && words[1].toUpperCase() === 'AS') name = words[2].toLowerCase();
      else if (words.length !== 1) throw parseError(line, 'FROM requires either one or three arguments');
      if (name && !/^[a-z][a-z0-9-_.]*$/.test(name)) throw invalidParameter(`invalid name for build stage: "${name}", name can't start with a number or contain symbols`);
      stages.push({ from: ins, name, steps: [] });
    } else if (stages.length === 0) {
      if (ins.cmd !== 'ARG') throw invalidParameter('no build stage in current context');
      metaArgs.push(ins);
    } else stages[stages.length - 1].steps.push(ins);
  }
  if (stages.length === 0) throw invalidParameter('the Dockerfile (Dockerfile) cannot be empty');
  return { metaArgs, stages, escape };
}

/** Words split on whitespace, quotes and escapes kept (the engine's parseWords), for later expansion. */
export function splitRawWords(s: string, escape = '\\'): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (!quote && /\s/.test(c)) {
      if (cur) out.push(cur);
      cur = '';
      continue;
    }
    if (c === escape && i + 1 < s.length) {
      cur += c + s[++i];
      continue;
    }
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

/** ENV/LABEL pairs, still unexpanded: `k=v k2="v 2"` or the legacy `KEY value with spaces`. */
export function parseKeyValues(i: Instruction): [string, string][] {
  const words = splitRawWords(i.rest);
  if (words.length === 0) throw parseError(i.line, `${i.cmd} requires at least one argument`);
  if (!words[0].includes('=')) {
    const m = /^(\S+)\s+([\s\S]*)$/.exec(i.rest);
    if (!m || !m[2].trim()) throw parseError(i.line, `${i.cmd} must have two arguments`);
    return [[m[1], m[2].trim()]];
  }
  return words.map((w) => {
    const eq = w.indexOf('=');
    if (eq <= 0) throw parseError(i.line, `Syntax error - can't find = in "${w}". Must be of the form: name=value`);
    return [w.slice(0, eq), w.slice(eq + 1)];
  });
}

/**
 * Expands one shell word the way the engine's ProcessWord does: single quotes literal, double quotes expanded,
 * the escape character keeps the next character, quotes removed; unset variables expand to ''.
 */
export function expandWord(word: string, env: (name: string) => string | undefined, escape = '\\'): string {
  let out = '';
  let i = 0;
  const n = word.length;
  const readVar = (): string => {
    // at '$'
    i++;
    if (i >= n) return '$';
    if (word[i] === '{') {
      const close = findClose(word, i);
      const body = word.slice(i + 1, close);
      i = close + 1;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::([-+?])([\s\S]*))?$/.exec(body);
      if (!m) throw invalidParameter(`failed to process "${word}": bad substitution`);
      const v = env(m[1]);
      if (m[2] === '-') return v ? v : expandWord(m[3], env, escape);
      if (m[2] === '+') return v ? expandWord(m[3], env, escape) : '';
      if (m[2] === '?') {
        if (!v) throw invalidParameter(`failed to process "${word}": ${m[1]}: ${m[3] || 'is not allowed to be unset'}`);
        return v;
      }
      return v ?? '';
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.slice(i));
    if (!m) return '$';
    i += m[0].length;
    return env(m[0]) ?? '';
  };
  while (i < n) {
    const c = word[i];
    if (c === "'") {
      const end = word.indexOf("'", i + 1);
      const stop = end < 0 ? n : end;
      out += word.slice(i + 1, stop);
      i = stop + 1;
    } else if (c === '"') {
      i++;
      while (i < n && word[i] !== '"') {
        if (word[i] === escape && i + 1 < n) {
          const next = word[i + 1];
          // inside double quotes the escape keeps $, ", the escape itself; otherwise it stays
          if (next === '$' || next === '"' || next === escape) out += next;
          else out += word[i] + next;
          i += 2;
        } else if (word[i] === '$') out += readVar();
        else out += word[i++];
      }
      i++;
    } else if (c === escape) {
      if (i + 1 < n) out += word[i + 1];
      i += 2;
    } else if (c === '$') out += readVar();
    else out += word[i++];
  }
  return out;
}

function findClose(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    if (s[j] === '{') depth++;
    else if (s[j] === '}' && --depth === 0) return j;
  }
  throw invalidParameter(`failed to process "${s}": missing '}'`);
}

/** Expands each word of a whitespace-separated list (EXPOSE, VOLUME, COPY sources, USER, WORKDIR ...). */
export function expandWords(text: string, env: (name: string) => string | undefined, escape = '\\'): string[] {
  return splitRawWords(text, escape).map((w) => expandWord(w, env, escape));
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuoteList(xs: string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}

/** Go's time.Duration String() for whole nanoseconds. */
export function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  if (u < 1e9) {
    const [unit, div] = u < 1e3 ? ['ns', 1] : u < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${neg ? '-' : ''}${trimFrac(u / (div as number))}${unit}`;
  }
  const h = Math.floor(u / 3.6e12);
  u -= h * 3.6e12;
  const m = Math.floor(u / 6e10);
  u -= m * 6e10;
  const s = trimFrac(u / 1e9);
  return `${neg ? '-' : ''}${h ? `${h}h${m}m` : m ? `${m}m` : ''}${s}s`;
}

function trimFrac(x: number): string {
  return String(Number(x.toFixed(9)));
}

/** Go's %q of an int (a quoted rune): 2 → '\x02', 48 → '0'. */
export function goQuoteRune(n: number): string {
  if (n >= 0x20 && n < 0x7f) return n === 0x27 ? "'\\''" : n === 0x5c ? "'\\\\'" : `'${String.fromCharCode(n)}'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  if (named[n]) return `'${named[n]}'`;
  if (n < 0x100) return `'\\x${n.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCodePoint(n)}'`;
}

/** Go's duration syntax (HEALTHCHECK flags): 1h2m3.5s, 500ms ... → nanoseconds. */
export function parseGoDuration(s: string): number {
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    total += Number(m[1]) * unit[m[2]];
    pos = re.lastIndex;
  }
  if (!s || pos !== s.length) throw invalidParameter(`time: invalid duration "${s}"`);
  return Math.round(total);
}
