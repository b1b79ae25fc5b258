import { FloeError } from '../../common/floe-error.js';

const cache = new Map<string, (s: string) => boolean>();

/**
 * Compiles a LIKE pattern (% and _, with an escape character; '' disables
 * escaping) into a matcher. Patterns are cached; values never become code —
 * every literal character is regex-escaped.
 */
export function likeMatcher(pattern: string, escape: string, caseInsensitive: boolean): (s: string) => boolean {
  const key = `${caseInsensitive ? 'i' : 's'}${escape.length}:${escape}${pattern}`;
  let m = cache.get(key);
  if (m) return m;
  if ([...escape].length > 1) {
    throw new FloeError('22019', 'invalid escape string', { hint: 'Escape string must be empty or one character.' });
  }
  let re = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (escape !== '' && ch === escape) {
      const next = chars[i + 1];
      if (next === undefined) throw new FloeError('22025', 'LIKE pattern must not end with escape character');
      re += next.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    } else if (ch === '%') re += '[\\s\\S]*';
    else if (ch === '_') re += '[\\s\\S]';
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  re += '$';
  const rx = new RegExp(re, caseInsensitive ? 'iu' : 'u');
  m = (s: string) => rx.test(s);
  if (cache.size > 1000) cache.clear();
  cache.set(key, m);
  return m;
}
