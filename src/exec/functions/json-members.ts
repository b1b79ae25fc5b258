import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/**
 * The top-level members of a JSON text, each value as its own text, in
 * document order (duplicate keys kept): json_each must return a json value's
 * text as written, and jsonb's stored text is already canonical, so no value
 * is parsed and printed again (1.50 stays 1.50).
 */
export type JsonShape =
  | { readonly kind: 'object'; readonly members: readonly (readonly [key: string, value: string])[] }
  | { readonly kind: 'array'; readonly elements: readonly string[] }
  | { readonly kind: 'scalar' };

export function jsonMembers(text: string): JsonShape {
  let i = skipSpace(text, 0);
  const open = text[i];
  if (open !== '{' && open !== '[') return { kind: 'scalar' };
  i = skipSpace(text, i + 1);
  const close = open === '{' ? '}' : ']';
  const members: [string, string][] = [];
  const elements: string[] = [];
  if (text[i] === close) return open === '{' ? { kind: 'object', members } : { kind: 'array', elements };
  for (;;) {
    let key: string | undefined;
    if (open === '{') {
      const end = valueEnd(text, i);
      key = JSON.parse(text.slice(i, end)) as string;
      i = skipSpace(text, end);
      if (text[i] !== ':') throw invalid();
      i = skipSpace(text, i + 1);
    }
    const end = valueEnd(text, i);
    const value = text.slice(i, end);
    if (key === undefined) elements.push(value); else members.push([key, value]);
    i = skipSpace(text, end);
    if (text[i] === ',') { i = skipSpace(text, i + 1); continue; }
    if (text[i] === close) break;
    throw invalid();
  }
  return open === '{' ? { kind: 'object', members } : { kind: 'array', elements };
}

/** A member's value as text (the _text variants): a string unquoted, null as SQL NULL, anything else as written. */
export function jsonValueAsText(value: string): string | null {
  if (value === 'null') return null;
  return value.startsWith('"') ? (JSON.parse(value) as string) : value;
}

function invalid(): FloeError {
  return new FloeError(SqlState.invalidTextRepresentation, 'invalid input syntax for type json');
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\t' || s[i] === '\r')) i++;
  return i;
}

/** Where the JSON value starting at `i` ends. */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') {
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] === '\\') { j++; continue; }
      if (s[j] === '"') return j + 1;
    }
    throw invalid();
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') { j = valueEnd(s, j) - 1; continue; }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') { depth--; if (depth === 0) return j + 1; }
    }
    throw invalid();
  }
  let j = i;
  while (j < s.length && !',]} \n\t\r'.includes(s[j]!)) j++;
  if (j === i) throw invalid();
  return j;
}
