// A request's query as Go's net/url reads it (url.ParseQuery, Go 1.17 and later), which is what the engine's handlers
// see: a pair with an invalid %-escape in its key or value, or with a ';' in it, is dropped, and the error kept is the
// one Go's ParseForm returns (the first escape error; a ';' error replaces any earlier error). Handlers that call
// ParseForm answer that error as a 400 (http/form.ts); the others just never see the dropped pairs.

export interface GoQuery {
  /** The query with the pairs Go drops left out ('&'-joined; the same string when none is dropped). */
  kept: string;
  /** ParseForm's error message, when a pair was dropped. */
  error?: string;
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Go's url.EscapeError for the first invalid escape of `s` (its '%' and at most two bytes after it), or undefined. */
function escapeError(s: string): string | undefined {
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', i + 3)) {
    if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
      // (strconv.Quote of the bytes: JSON's quoting is the same for printable ASCII)
      return `invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`;
    }
  }
  return undefined;
}

export function goQuery(raw: string): GoQuery {
  if (!raw.includes('%') && !raw.includes(';')) return { kept: raw };
  const kept: string[] = [];
  let error: string | undefined;
  let dropped = false;
  for (const pair of raw.split('&')) {
    if (pair.includes(';')) {
      error = 'invalid semicolon separator in query';
      dropped = true;
      continue;
    }
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const bad = escapeError(eq < 0 ? pair : pair.slice(0, eq)) ?? (eq < 0 ? undefined : escapeError(pair.slice(eq + 1)));
    if (bad) {
      error ??= bad;
      dropped = true;
      continue;
    }
    kept.push(pair);
  }
  return dropped ? { kept: kept.join('&'), error } : { kept: raw };
}
