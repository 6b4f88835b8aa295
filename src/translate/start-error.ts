// A container start that the runtime refused, told as the engine tells it (asked on the 20.10 reference): the
// runtime's message as it is, and an exit code and status by what the message says. A command that cannot be found
// (the message names it: "no such file or directory", "executable file not found") is 127, one that cannot be run
// ("permission denied") 126, a mount of a file onto a directory or the reverse ("not a directory") 127 with the
// engine's hint added; those three are the client's mistake (400), as is a Blkio*Device path the kernel refuses as no
// block device (128; the engine's 500). Anything else is 128 and a 500. Pure.

export interface StartFailure {
  message: string;
  exitCode: number;
  /** the client's mistake (400), not the daemon's (500) */
  invalid: boolean;
}

const MOUNT_HINT = ': Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type';

export function startFailure(cmd: string, message: string): StartFailure {
  const low = message.toLowerCase();
  let out: StartFailure = { message, exitCode: 128, invalid: false };
  // each rule in turn, a later one deciding over an earlier one, as the engine applies them
  if (low.includes(cmd.toLowerCase()) && (low.includes('no such file or directory') || low.includes('executable file not found'))) out = { message, exitCode: 127, invalid: true };
  if (low.includes('permission denied')) out = { message, exitCode: 126, invalid: true };
  if (low.includes('not a directory')) out = { message: message + MOUNT_HINT, exitCode: 127, invalid: true };
  // a Blkio*Device path that is no block device, refused by the kernel when the runtime writes it: the client's
  // mistake (400, where the engine answers 500; its words and exit code 128 all the same)
  if (/\/blkio\.[a-z_.]*device: no such device/.test(low)) out = { message, exitCode: 128, invalid: true };
  return out;
}
