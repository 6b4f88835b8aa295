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
