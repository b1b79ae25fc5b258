import { FloeError } from '../../common/floe-error.js';

const cache = new Map<string, (s: string) => boolean>();

// The caller asks once per row, nearly always with the same pattern: the last
// answer is checked first, without building the cache key.
let lastPattern: string | undefined;
let lastEscape: string | undefined;
let lastCaseInsensitive = false;
let lastMatcher: ((s: string) => boolean) | undefined;

/**
 * Compiles a LIKE pattern (% and _, with an escape character; '' disables
 * escaping) into a matcher. Patterns are cached; values never become code —
 * every literal character is regex-escaped. Case-sensitive patterns without `_`
 * (`abc%`, `%abc`, `%a%b%`) match by prefix/suffix checks and indexOf instead.
 */
export function likeMatcher(pattern: string, escape: string, caseInsensitive: boolean): (s: string) => boolean {
  if (pattern === lastPattern && escape === lastEscape && caseInsensitive === lastCaseInsensitive) return lastMatcher!;
  const key = `${caseInsensitive ? 'i' : 's'}${escape.length}:${escape}${pattern}`;
  let m = cache.get(key);
  if (!m) {
    m = compileLike(pattern, escape, caseInsensitive);
    if (cache.size > 1000) cache.clear();
    cache.set(key, m);
  }
  lastPattern = pattern;
  lastEscape = escape;
  lastCaseInsensitive = caseInsensitive;
  lastMatcher = m;
  return m;
}

/** A pattern element: literal text, `%` (any run of characters) or `_` (one character). */
type Token = { kind: 'text'; text: string } | { kind: '%' } | { kind: '_' };

function tokenize(pattern: string, escape: string): Token[] {
  if ([...escape].length > 1) {
    throw new FloeError('22019', 'invalid escape string', { hint: 'Escape string must be empty or one character.' });
  }
  const tokens: Token[] = [];
  let text = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (escape !== '' && ch === escape) {
      const next = chars[i + 1];
      if (next === undefined) throw new FloeError('22025', 'LIKE pattern must not end with escape character');
      text += next;
      i++;
    } else if (ch === '%' || ch === '_') {
      if (text !== '') { tokens.push({ kind: 'text', text }); text = ''; }
      // Adjacent %s mean the same as one.
      if (ch === '_' || tokens[tokens.length - 1]?.kind !== '%') tokens.push({ kind: ch });
    } else text += ch;
  }
  if (text !== '') tokens.push({ kind: 'text', text });
  return tokens;
}

function compileLike(pattern: string, escape: string, caseInsensitive: boolean): (s: string) => boolean {
  const tokens = tokenize(pattern, escape);
  if (!caseInsensitive && tokens.every((t) => t.kind !== '_')) return segmentMatcher(tokens);
  let re = '^';
  for (const t of tokens) {
    if (t.kind === '%') re += '[\\s\\S]*';
    else if (t.kind === '_') re += '[\\s\\S]';
    else re += t.text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  re += '$';
  const rx = new RegExp(re, caseInsensitive ? 'iu' : 'u');
  return (s: string) => rx.test(s);
}

/**
 * Literal text separated by `%`: the first piece is a prefix (unless the pattern
 * starts with %), the last a suffix (unless it ends with %), and the middle ones
 * occur in order without overlapping — taking each at its leftmost place leaves
 * the most room for the rest, so leftmost is never wrong.
 */
function segmentMatcher(tokens: readonly Token[]): (s: string) => boolean {
  const pieces: string[] = [];
  for (const t of tokens) if (t.kind === 'text') pieces.push(t.text);
  if (tokens.length === 0) return (s) => s.length === 0;
  const anchoredStart = tokens[0]!.kind === 'text';
  const anchoredEnd = tokens[tokens.length - 1]!.kind === 'text';
  if (pieces.length === 0) return () => true; // only %
  if (pieces.length === 1 && anchoredStart && anchoredEnd) { const p = pieces[0]!; return (s) => s === p; }
  const first = anchoredStart ? pieces[0]! : undefined;
  const last = anchoredEnd ? pieces[pieces.length - 1]! : undefined;
  const middle = pieces.slice(first === undefined ? 0 : 1, last === undefined ? pieces.length : pieces.length - 1);
  const minLength = pieces.reduce((n, p) => n + p.length, 0);
  if (middle.length === 1 && first === undefined && last === undefined) {
    const p = middle[0]!;
    return (s) => s.includes(p);
  }
  return (s) => {
    if (s.length < minLength) return false;
    let from = 0;
    let to = s.length;
    if (first !== undefined) {
      if (!s.startsWith(first)) return false;
      from = first.length;
    }
    if (last !== undefined) {
      if (!s.endsWith(last)) return false;
      to -= last.length;
    }
    for (const p of middle) {
      const at = s.indexOf(p, from);
      if (at < 0 || at + p.length > to) return false;
      from = at + p.length;
    }
    return from <= to;
  };
}

/**
 * A case-sensitive pattern of `%` and ASCII text only, as a matcher over a value's
 * UTF-8 bytes [start, end): no string is decoded (a NOT LIKE over 1.5M comment values).
 * Exact because UTF-8 writes every non-ASCII character with bytes >= 0x80 only, so
 * ASCII text occurs in the bytes exactly where it occurs in the characters.
 * Undefined for any other pattern, or one that does not compile (the string path
 * raises its error where PostgreSQL would).
 */
export function likeBytesMatcher(pattern: string, escape: string): ((bytes: Uint8Array, start: number, end: number) => boolean) | undefined {
  let tokens: Token[];
  try {
    tokens = tokenize(pattern, escape);
  } catch {
    return undefined;
  }
  if (tokens.some((t) => t.kind === '_' || (t.kind === 'text' && ![...t.text].every((ch) => ch.charCodeAt(0) < 128)))) return undefined;
  const pieces = tokens.filter((t): t is { kind: 'text'; text: string } => t.kind === 'text').map((t) => Uint8Array.from(t.text, (ch) => ch.charCodeAt(0)));
  const anchoredStart = tokens.length > 0 && tokens[0]!.kind === 'text';
  const anchoredEnd = tokens.length > 0 && tokens[tokens.length - 1]!.kind === 'text';
  const first = anchoredStart ? pieces[0] : undefined;
  const last = anchoredEnd && !(anchoredStart && pieces.length === 1) ? pieces[pieces.length - 1] : undefined;
  const middle = pieces.slice(first === undefined ? 0 : 1, last === undefined ? pieces.length : pieces.length - 1);
  if (tokens.length === 0) return (_b, start, end) => end === start;
  // A lone anchored piece with no % at all is equality.
  if (anchoredStart && anchoredEnd && tokens.length === 1) {
    const p = pieces[0]!;
    return (b, start, end) => end - start === p.length && occursAt(b, start, p);
  }
  return (b, start, end) => {
    let from = start;
    let to = end;
    if (first !== undefined) {
      if (to - from < first.length || !occursAt(b, from, first)) return false;
      from += first.length;
    }
    if (last !== undefined) {
      if (to - from < last.length || !occursAt(b, to - last.length, last)) return false;
      to -= last.length;
    }
    // Leftmost is never wrong (see segmentMatcher).
    for (let m = 0; m < middle.length; m++) {
      const at = indexIn(b, middle[m]!, from, to);
      if (at < 0) return false;
      from = at + middle[m]!.length;
    }
    return true;
  };
}

/**
 * The longest literal piece (at least 3 bytes) a value must hold to match a
 * pattern likeBytesMatcher accepts: rows without it cannot match, so a column
 * can be searched for it first (utf8-search.ts). Undefined when there is none.
 */
export function likeRequiredBytes(pattern: string, escape: string): Uint8Array | undefined {
  let tokens: Token[];
  try {
    tokens = tokenize(pattern, escape);
  } catch {
    return undefined;
  }
  let best: string | undefined;
  for (const t of tokens) {
    if (t.kind === '_') return undefined;
    if (t.kind === 'text') {
      if (![...t.text].every((ch) => ch.charCodeAt(0) < 128)) return undefined;
      if (t.text.length >= 3 && (best === undefined || t.text.length > best.length)) best = t.text;
    }
  }
  return best === undefined ? undefined : Uint8Array.from(best, (ch) => ch.charCodeAt(0));
}

function occursAt(b: Uint8Array, at: number, p: Uint8Array): boolean {
  for (let k = 0; k < p.length; k++) if (b[at + k] !== p[k]) return false;
  return true;
}

/** First position in [from, to - p.length] where p occurs, or -1. */
function indexIn(b: Uint8Array, p: Uint8Array, from: number, to: number): number {
  const n = p.length;
  if (n === 0) return from <= to ? from : -1;
  const c0 = p[0]!;
  const last = to - n;
  outer: for (let i = from; i <= last; i++) {
    if (b[i] !== c0) continue;
    for (let k = 1; k < n; k++) if (b[i + k] !== p[k]) continue outer;
    return i;
  }
  return -1;
}
