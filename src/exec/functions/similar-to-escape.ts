import { FloeError } from '../../common/floe-error.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';

/** Characters a regex must escape to match literally (JS's syntax characters; `\X` of any other is an error under /u). */
const REGEX_SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

function literal(c: string): string {
  return REGEX_SYNTAX.has(c) ? `\\${c}` : c;
}

/**
 * SQL's SIMILAR TO pattern as a regular expression anchored at both ends, by
 * PostgreSQL's rules (similar_escape_internal): `%` → `.*`, `_` → `.`, `(` opens a
 * non-capturing group, `. ^ $ \` match themselves, the escape character (default
 * `\`, none when empty) makes the next character literal, bracket expressions pass
 * through, and `| * + ? {m,n}` keep their regex meaning.
 */
export function similarToRegex(pattern: string, escape: string | null = '\\'): string {
  const esc = escape === null || escape === '' ? undefined : [...escape];
  if (esc !== undefined && esc.length !== 1) {
    throw new FloeError('22025', 'invalid escape string', { hint: 'Escape string must be empty or one character.' });
  }
  const escapeChar = esc?.[0];
  let out = '';
  let afterEscape = false;
  let classDepth = 0;
  let classStart = -1;
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (afterEscape) {
      // `"` after the escape marks the substring() bounds; as a match they group nothing.
      out += c === '"' && classDepth === 0 ? '' : literal(c);
      afterEscape = false;
    } else if (escapeChar !== undefined && c === escapeChar) {
      afterEscape = true;
    } else if (classDepth > 0) {
      if (c === '\\') out += '\\\\';
      else out += c;
      // `]` right after `[` or `[^` is a member, not the end.
      if (c === ']' && i > classStart + 1 && !(i === classStart + 2 && chars[classStart + 1] === '^')) classDepth = 0;
    } else if (c === '[') {
      classDepth = 1;
      classStart = i;
      out += c;
    } else if (c === '%') {
      out += '.*';
    } else if (c === '_') {
      out += '.';
    } else if (c === '(') {
      out += '(?:';
    } else if (c === '\\' || c === '.' || c === '^' || c === '$' || c === '/') {
      out += `\\${c}`;
    } else {
      out += c;
    }
  }
  return `^(?:${out})$`;
}

export function registerSimilarToEscape(): void {
  registerScalarFunction({ name: 'similar_to_escape', args: [T.text], returns: T.text, impl: ([p]) => similarToRegex(p as string) });
  registerScalarFunction({
    name: 'similar_to_escape', args: [T.text, T.text], returns: T.text, impl: ([p, e]) => similarToRegex(p as string, e as string),
  });
}
