// Container commands that write lines to stdout as fast as they can, for the log benchmarks (busybox only).
// Lines of 63 bytes (the worst case: the json-file format costs per line) and of 1000 bytes.
const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const line = (lineBytes: number) => ALNUM.repeat(Math.ceil(lineBytes / 62)).slice(0, lineBytes - 1);

/**
 * `bytes` of `lineBytes`-byte lines. The slow writer: `yes | head`, a few KiB per write (on a 2-core machine the
 * raw FIFO read of it stays well under 200 MB/s). The fast writer: the same lines in 64 KiB writes (a 1 MiB block of
 * whole lines, written again and again), so that the log path, not the writer, is what is measured.
 */
export const writer = (lineBytes: number, fast: boolean, bytes: number): string[] => [
  '/bin/busybox',
  'sh',
  '-c',
  fast
    ? `/bin/busybox yes ${line(lineBytes)} | /bin/busybox head -c ${Math.floor((1 << 20) / lineBytes) * lineBytes} > /block; while /bin/busybox cat /block; do :; done | /bin/busybox dd bs=65536 count=${bytes >> 16} iflag=fullblock 2>/dev/null`
    : `/bin/busybox yes ${line(lineBytes)} | /bin/busybox head -c ${bytes}`,
];
