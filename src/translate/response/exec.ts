// Exec inspect per API version — pure.
import type { ExecState } from '../../types/exec';

export function toExecInspect(e: ExecState, container?: Record<string, unknown>): Record<string, unknown> {
  const [entrypoint, ...args] = e.config.Cmd;
  const out: Record<string, unknown> = {
    ID: e.id,
    Running: e.running,
    ExitCode: e.exitCode,
    ProcessConfig: { tty: !!e.config.Tty, entrypoint, arguments: args, privileged: !!e.config.Privileged, ...(e.config.User ? { user: e.config.User } : {}) },
    OpenStdin: !!e.config.AttachStdin,
    OpenStderr: !!e.config.AttachStderr,
    OpenStdout: !!e.config.AttachStdout,
    CanRemove: false,
    ContainerID: e.containerId,
    DetachKeys: e.config.DetachKeys ?? '',
  };
  if (container) out.Container = container;
  return out;
}
