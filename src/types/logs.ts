// Reading a container's log: what to read, how the logs endpoint formats it, where the bytes go — types only.
import type { StreamName } from './io';

export interface LogEntry {
  stream: StreamName;
  log: string;
  time: string;
  attrs?: Record<string, string>;
}

export interface LogReadOptions {
  stdout: boolean;
  stderr: boolean;
  sinceNs?: bigint;
  tail?: number; // undefined = all
  /** Logical range of the log to read (a follow that resumes, a catch-up that stops where live data begins): see
   *  LogFileRef.base. */
  from?: number;
  until?: number;
}

export interface LogStreamFormat {
  /** Multiplexed 8-byte frames (false for a TTY container: raw bytes). */
  framed: boolean;
  timestamps: boolean;
  /** `details` (1.24): the entry's attributes as `k=v,k=v ` before the text. */
  details: boolean;
}

export interface LogSink {
  /** Hands bytes on; false when the destination is saturated (then wait for `drained`). `done` (if given) is called
   *  once the destination no longer needs `b`. */
  write(b: Buffer, done?: () => void): boolean;
  drained(): Promise<void>;
  signal: AbortSignal;
}

/** GET /containers/(id)/logs, parsed: the entries wanted, their format, and whether to follow a running container. */
export interface LogQuery {
  read: LogReadOptions;
  format: LogStreamFormat;
  follow: boolean;
}
