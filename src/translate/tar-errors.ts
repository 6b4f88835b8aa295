// Tar failures in the engine's words. The engine reads archives with Go's archive/tar (in its re-exec'd untar, whose
// failure it reports as "Error processing tar file(exit status 1): ..."); berth reads them with tar-stream, and
// containerd's diff service (Go) reports a layer it cannot apply as "mount callback failed on DIR: ...". Pure.

/** The engine's prefix for an archive its untar could not read. */
export const UNTAR_FAILED = 'Error processing tar file(exit status 1): ';

const TAR_STREAM_TO_GO: [RegExp, string][] = [
  [/^Unexpected end of data$/, 'unexpected EOF'],
  [/^Invalid tar header\b/, 'archive/tar: invalid tar header'],
];

/** Go's archive/tar message for one of tar-stream's (as it is when there is none). */
export function goTarMessage(msg: string): string {
  for (const [re, go] of TAR_STREAM_TO_GO) if (re.test(msg)) return go;
  return msg;
}

/** The tar's own failure when containerd could not apply a layer because its tar is broken; undefined otherwise. */
export function applyTarFailure(msg: string): string | undefined {
  const m = /^mount callback failed on \S+: (unexpected EOF|archive\/tar: .*)$/.exec(msg);
  return m?.[1];
}
