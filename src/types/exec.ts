// An exec's configuration and state — types only.

export interface ExecConfig {
  Cmd: string[];
  User?: string;
  Privileged?: boolean;
  Tty?: boolean;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  DetachKeys?: string;
}

/** What an exec is, apart from its live streams (kept by the exec service). */
export interface ExecState {
  id: string;
  containerId: string;
  config: ExecConfig;
  running: boolean;
  exitCode: number | null;
  pid: number;
  started: boolean;
}
