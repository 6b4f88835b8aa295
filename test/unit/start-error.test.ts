import { startFailure } from '../../src/translate/start-error';

// messages as runc and containerd give them (asked on the 20.10 reference, with its exit codes and statuses)
const SHIM = 'failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: ';

test('the exit code and status by what the runtime says, as the engine decides them', () => {
  expect(startFailure('/no/such', `${SHIM}exec: "/no/such": stat /no/such: no such file or directory: unknown`)).toEqual({ message: `${SHIM}exec: "/no/such": stat /no/such: no such file or directory: unknown`, exitCode: 127, invalid: true });
  expect(startFailure('nosuch', `${SHIM}exec: "nosuch": executable file not found in $PATH: unknown`).exitCode).toBe(127);
  expect(startFailure('/etc/passwd', `${SHIM}exec: "/etc/passwd": permission denied: unknown`)).toEqual(expect.objectContaining({ exitCode: 126, invalid: true }));
  const mount = `${SHIM}error during container init: error mounting "/f" to rootfs at "/etc": mount /f:/etc (via /proc/self/fd/6), flags: 0x5000: not a directory: unknown`;
  expect(startFailure('true', mount)).toEqual({ message: `${mount}: Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type`, exitCode: 127, invalid: true });
  expect(startFailure('true', `${SHIM}error during container init: sethostname: invalid argument: unknown`)).toEqual(expect.objectContaining({ exitCode: 128, invalid: false }));
  // a Blkio*Device path that is no block device (/dev/null 1:3 here): the engine's 500, berth's 400
  const blkio = `${SHIM}error during container init: error setting cgroup config for procHooks process: failed to write "1:3 1048576": write /sys/fs/cgroup/blkio/berth/x/blkio.throttle.read_bps_device: no such device: unknown`;
  expect(startFailure('true', blkio)).toEqual({ message: blkio, exitCode: 128, invalid: true });
  // a missing file the message does not tie to the command is no 127
  expect(startFailure('true', `${SHIM}error during container init: open /x: no such file or directory: unknown`)).toEqual(expect.objectContaining({ exitCode: 128, invalid: false }));
});
