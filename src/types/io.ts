// A container's standard streams and its json-file log settings — types only.

export interface IOPaths {
  stdin: string; // '' when the container has no stdin
  stdout: string;
  stderr: string; // '' for a TTY
  terminal: boolean;
}

/** What json-file does with its options (parsed by translate/request/log-options). */
export interface JsonFileOptions {
  /** Bytes; -1 = no rotation. */
  maxSize: number;
  /** Files kept: the current one plus maxFiles-1 rotated ones (1 = the previous file is overwritten, never read). */
  maxFiles: number;
  compress: boolean;
}

/** A container's output streams. */
export type StreamName = 'stdout' | 'stderr';

/** Bytes for a container's stdin from an attached client, held until the run's stdin is open. */
export interface StdinFeed {
  write(chunk: Buffer): void;
  /** Closes the container's stdin once everything written reached it (StdinOnce). */
  endAfterFlush(): void;
  /** The client is gone: nothing more is delivered. */
  cancel(): void;
}
