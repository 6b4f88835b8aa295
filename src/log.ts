// berthd's log: one JSON object a line on stderr, `{"level", "message", "timestamp", ...the fields}` with the keys
// sorted, at or above the level set (npm's levels: error, warn, info, http, verbose, debug, silly): the lines winston's
// json and timestamp formats wrote before. Not winston: it, its formats, colours and streams cost idle memory
// (issue 20, goal 5; docs/performance.md, "Idle memory") for four levels and a JSON line.

const LEVELS: Record<string, number> = { error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  /** The lowest level written (settable: a reload changes it). */
  level: string;
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

/** Objects with their keys sorted, at every depth (arrays keep their order). */
function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = (value as Record<string, unknown>)[k];
  return out;
}

/** A log line: the fields, then the level and the message (a field `message` is appended to it), and the time unless
 *  a field gives one. */
export function logLine(level: string, message: string, fields: LogFields | undefined, now = new Date()): string {
  const entry: LogFields = { ...fields, level, message: fields?.message !== undefined ? `${message} ${String(fields.message)}` : message };
  if (entry.timestamp === undefined) entry.timestamp = now.toISOString();
  try {
    return JSON.stringify(entry, sortedKeys) + '\n';
  } catch (err) {
    // a field that does not serialize (a cycle, a BigInt) costs its fields, never the line
    return JSON.stringify({ level, message, timestamp: entry.timestamp, logError: String(err) }) + '\n';
  }
}

class JsonLogger implements Logger {
  constructor(
    public level: string,
    private readonly silent: boolean,
  ) {}

  private write(level: string, message: string, fields?: LogFields): void {
    if (this.silent || LEVELS[level] > (LEVELS[this.level] ?? LEVELS.info)) return;
    process.stderr.write(logLine(level, message, fields));
  }

  error(message: string, fields?: LogFields): void {
    this.write('error', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }

  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }
}

export function createLogger(level = 'info'): Logger {
  return new JsonLogger(level === 'warn' ? 'warn' : level === 'fatal' ? 'error' : level, false);
}

/** A logger that drops everything (tests). */
export function silentLogger(): Logger {
  return new JsonLogger('info', true);
}
