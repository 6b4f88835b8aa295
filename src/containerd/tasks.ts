// The task facade: a container's process and its execs, in the terms services use (ids, signals, the OCI process
// and resources as objects). The process and resources specs are packed as protobuf Anys here, the metrics
// unpacked here; services never see a request message.
import type { Containerd } from './client';
import { OCI_PROCESS_URL, OCI_RESOURCES_URL, packJSON } from './any';
import { ignoreNotFound } from './errors';
import type { Mount } from './gen/containerd/types/Mount';
import type { Process__Output } from './gen/containerd/v1/types/Process';
import type { IOPaths } from '../types/io';

/** The I/O a task or exec is created with: its FIFOs (stdin '' when none, stderr '' on a TTY). */
type TaskIO = Pick<IOPaths, 'stdin' | 'stdout' | 'stderr' | 'terminal'>;

/** A protobuf Timestamp as containerd sends it. */
export interface ProtoTime {
  seconds?: string | number | null;
  nanos?: number | null;
}

/** Creates the task (its init process made, not started); returns its pid. */
export async function create(ctr: Containerd, id: string, rootfs: Mount[], io: TaskIO): Promise<number> {
  return (await ctr.tasks.Create({ container_id: id, rootfs, stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, terminal: io.terminal })).pid;
}

/** Starts the task (or the exec `execId`); returns its pid. */
export async function start(ctr: Containerd, id: string, execId = ''): Promise<number> {
  return (await ctr.tasks.Start({ container_id: id, exec_id: execId })).pid;
}

/** Signals the task's init process (all: every process of it), or the exec `execId`. */
export async function kill(ctr: Containerd, id: string, signal: number, o: { all?: boolean; execId?: string } = {}): Promise<void> {
  await ctr.tasks.Kill({ container_id: id, exec_id: o.execId ?? '', signal, all: !!o.all });
}

/** Deletes the task; one that is gone already is fine. */
export async function remove(ctr: Containerd, id: string): Promise<void> {
  await ignoreNotFound(() => ctr.tasks.Delete({ container_id: id }));
}

/** Deletes an exec's process; one that is gone already is fine. */
export async function removeProcess(ctr: Containerd, id: string, execId: string): Promise<void> {
  await ignoreNotFound(() => ctr.tasks.DeleteProcess({ container_id: id, exec_id: execId }));
}

/** Resolves when the task (or exec) exits. */
export async function wait(ctr: Containerd, id: string, execId = ''): Promise<{ exitStatus: number; exitedAt: ProtoTime | null | undefined }> {
  const w = await ctr.tasks.Wait({ container_id: id, exec_id: execId });
  return { exitStatus: w.exit_status, exitedAt: w.exited_at };
}

export async function pause(ctr: Containerd, id: string): Promise<void> {
  await ctr.tasks.Pause({ container_id: id });
}

export async function resume(ctr: Containerd, id: string): Promise<void> {
  await ctr.tasks.Resume({ container_id: id });
}

/** Applies OCI LinuxResources to the running task. */
export async function updateResources(ctr: Containerd, id: string, resources: unknown): Promise<void> {
  await ctr.tasks.Update({ container_id: id, resources: packJSON(OCI_RESOURCES_URL, resources) });
}

/** The cgroup metrics (the cgroups stats message, as an object) of several tasks in one call (containerd reads them one after the other); by task id. */
export async function metricsOf(ctr: Containerd, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
  const { metrics: m } = await ctr.tasks.Metrics({ filters: ids.map((id) => `id==${id}`) });
  const out = new Map<string, Record<string, unknown>>();
  for (const x of m) {
    const v = ctr.any.unpack<Record<string, unknown>>(x.data as never);
    if (v) out.set(x.id, v);
  }
  return out;
}

/** Adds an exec: the OCI process `process` with its FIFOs. */
export async function exec(ctr: Containerd, id: string, execId: string, process: unknown, io: TaskIO): Promise<void> {
  await ctr.tasks.Exec({ container_id: id, exec_id: execId, stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, terminal: io.terminal, spec: packJSON(OCI_PROCESS_URL, process) });
}

export async function resizePty(ctr: Containerd, id: string, width: number, height: number, execId = ''): Promise<void> {
  await ctr.tasks.ResizePty({ container_id: id, exec_id: execId, width, height });
}

/** Closes the task's (or exec's) stdin. */
export async function closeStdin(ctr: Containerd, id: string, execId = ''): Promise<void> {
  await ctr.tasks.CloseIO({ container_id: id, exec_id: execId, stdin: true });
}

/** The pids of the task's processes. */
export async function pids(ctr: Containerd, id: string): Promise<number[]> {
  return (await ctr.tasks.ListPids({ container_id: id })).processes.map((p) => p.pid);
}

/** The task's status (RUNNING, STOPPED, ...); throws (NotFound) when there is no task. */
export async function status(ctr: Containerd, id: string): Promise<string> {
  return String((await ctr.tasks.Get({ container_id: id })).process?.status ?? '');
}

/** Every task of the namespace. */
export async function list(ctr: Containerd): Promise<Process__Output[]> {
  return (await ctr.tasks.List({ filter: '' })).tasks;
}
