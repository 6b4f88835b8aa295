// The archive endpoints' wire shapes: the X-Docker-Container-Path-Stat header (base64 of the engine's
// ContainerPathStat JSON, with Go's os.FileMode bits and RFC 3339 nano mtime) and the changes list.
import { rfc3339Nano } from '../time';

export interface PathStatInput {
  name: string;
  size: number;
  /** st_mode as lstat gives it (type bits and permissions). */
  mode: number;
  mtimeNs: bigint;
  /** Absolute path in the container a symlink resolves to; '' for anything else. */
  linkTarget: string;
}

export interface ContainerPathStat {
  name: string;
  size: number;
  mode: number;
  mtime: string;
  linkTarget: string;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const S_IFIFO = 0o010000;
const S_IFSOCK = 0o140000;
const S_IFBLK = 0o060000;
const S_IFCHR = 0o020000;

// Go's os.FileMode bits.
const MODE_DIR = 2 ** 31;
const MODE_SYMLINK = 2 ** 27;
const MODE_DEVICE = 2 ** 26;
const MODE_NAMED_PIPE = 2 ** 25;
const MODE_SOCKET = 2 ** 24;
const MODE_SETUID = 2 ** 23;
const MODE_SETGID = 2 ** 22;
const MODE_CHAR_DEVICE = 2 ** 21;
const MODE_STICKY = 2 ** 20;

/** A unix st_mode as Go's os.FileMode (what the engine puts in `mode`). */
export function toGoFileMode(mode: number): number {
  let m = mode & 0o777;
  switch (mode & S_IFMT) {
    case S_IFDIR:
      m += MODE_DIR;
      break;
    case S_IFLNK:
      m += MODE_SYMLINK;
      break;
    case S_IFIFO:
      m += MODE_NAMED_PIPE;
      break;
    case S_IFSOCK:
      m += MODE_SOCKET;
      break;
    case S_IFBLK:
      m += MODE_DEVICE;
      break;
    case S_IFCHR:
      m += MODE_DEVICE + MODE_CHAR_DEVICE;
      break;
  }
  if (mode & 0o4000) m += MODE_SETUID;
  if (mode & 0o2000) m += MODE_SETGID;
  if (mode & 0o1000) m += MODE_STICKY;
  return m;
}

export function toPathStat(s: PathStatInput): ContainerPathStat {
  const ns = s.mtimeNs;
  const seconds = Number(ns / 1_000_000_000n) - (ns < 0n && ns % 1_000_000_000n !== 0n ? 1 : 0);
  const nanos = Number(ns - BigInt(seconds) * 1_000_000_000n);
  return { name: s.name, size: s.size, mode: toGoFileMode(s.mode), mtime: rfc3339Nano({ seconds, nanos }), linkTarget: s.linkTarget };
}

/** The header value: base64 (standard, padded) of the stat JSON. */
export function pathStatHeader(stat: ContainerPathStat): string {
  return Buffer.from(JSON.stringify(stat)).toString('base64');
}
