import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { BuiltinTypes as T, regexCache } from './builtin-operators.js';
import { registerScalarFunction, registerSetFunction } from './function-registry.js';

/**
 * regexp_matches, regexp_count, regexp_substr and regexp_instr over
 * JavaScript regular expressions (the POSIX classes translated as elsewhere).
 * Positions and `start` count characters, as PostgreSQL does, not UTF-16 units.
 */

interface Flags { readonly js: string; readonly global: boolean }

/** PostgreSQL's regexp flags as JavaScript ones: by default `.` matches a newline; n (or m) makes newlines special. */
function parseFlags(flags: string): Flags {
  let ignoreCase = false; let newline = false; let global = false;
  for (const c of flags) {
    switch (c) {
      case 'g': global = true; break;
      case 'i': ignoreCase = true; break;
      case 'c': ignoreCase = false; break;
      case 'n': case 'm': newline = true; break;
      case 's': newline = false; break;
      case 'b': case 'e': case 'p': case 'q': case 'w': case 'x':
        throw new FloeError(SqlState.featureNotSupported, `regular expression option "${c}" is not supported`);
      default:
        throw new FloeError(SqlState.invalidParameterValue, `invalid regular expression option: "${c}"`);
    }
  }
  return { js: `g${ignoreCase ? 'i' : ''}${newline ? 'm' : 's'}`, global };
}

function noGlobal(fn: string, f: Flags): void {
  if (f.global) throw new FloeError(SqlState.invalidParameterValue, `${fn} does not support the "global" option`);
}

function invalidParameter(name: string, value: number): FloeError {
  return new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": ${value}`);
}

/** The UTF-16 offset of character `cp` (0-based) of `s`, or s.length past the end. */
function unitOffset(s: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += s.codePointAt(i)! > 0xffff ? 2 : 1;
  return i;
}

function charCount(s: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i += s.codePointAt(i)! > 0xffff ? 2 : 1) n++;
  return n;
}

/** Non-overlapping matches from character `start` (1-based) on; an empty match moves on by one character. */
function* matches(s: string, pattern: string, flags: Flags, start = 1): Generator<RegExpExecArray> {
  if (start < 1) throw invalidParameter('start', start);
  const base = regexCache(pattern, flags.js);
  // 'd' gives each group's offsets, for regexp_instr's subexpr.
  const re = new RegExp(base.source, `${base.flags}d`);
  re.lastIndex = unitOffset(s, start - 1);
  if (re.lastIndex > s.length) return;
  for (;;) {
    const m = re.exec(s);
    if (!m) return;
    yield m;
    if (m[0].length === 0) {
      if (re.lastIndex >= s.length) return;
      re.lastIndex += s.codePointAt(re.lastIndex)! > 0xffff ? 2 : 1;
    }
  }
}

function nth(s: string, pattern: string, flags: Flags, start: number, n: number): RegExpExecArray | undefined {
  if (n <= 0) throw invalidParameter('n', n);
  let k = 0;
  for (const m of matches(s, pattern, flags, start)) if (++k === n) return m;
  return undefined;
}

/** A match's groups as regexp_matches returns them (the whole match when the pattern has none). */
function groupsOf(m: RegExpExecArray): (string | null)[] {
  return m.length > 1 ? m.slice(1).map((x) => x ?? null) : [m[0]];
}

export function registerBuiltinRegexpFunctions(): void {
  const S = T.text; const I = T.int4;
  const SA: SqlType = { kind: 'array', element: S };
  const rows = (s: string, p: string, f: string): (string | null)[][] => {
    const flags = parseFlags(f);
    const out: (string | null)[][] = [];
    for (const m of matches(s, p, flags)) {
      out.push(groupsOf(m));
      if (!flags.global) break;
    }
    return out;
  };
  registerSetFunction({ name: 'regexp_matches', args: [S, S], returns: SA, impl: ([s, p]) => rows(s as string, p as string, '') });
  registerSetFunction({ name: 'regexp_matches', args: [S, S, S], returns: SA, impl: ([s, p, f]) => rows(s as string, p as string, f as string) });

  const count = (s: string, p: string, start: number, f: string): number => {
    const flags = parseFlags(f);
    noGlobal('regexp_count()', flags);
    let n = 0;
    for (const _m of matches(s, p, flags, start)) n++;
    return n;
  };
  registerScalarFunction({ name: 'regexp_count', args: [S, S], returns: I, impl: ([s, p]) => count(s as string, p as string, 1, '') });
  registerScalarFunction({ name: 'regexp_count', args: [S, S, I], returns: I, impl: ([s, p, st]) => count(s as string, p as string, st as number, '') });
  registerScalarFunction({ name: 'regexp_count', args: [S, S, I, S], returns: I, impl: ([s, p, st, f]) => count(s as string, p as string, st as number, f as string) });

  const substr = (a: unknown[]): string | null => {
    const [s, p, start = 1, n = 1, f = '', sub = 0] = a as [string, string, number?, number?, string?, number?];
    const flags = parseFlags(f);
    noGlobal('regexp_substr()', flags);
    if (sub < 0) throw invalidParameter('subexpr', sub);
    const m = nth(s, p, flags, start, n);
    return m === undefined || sub >= m.length ? null : m[sub] ?? null;
  };
  const substrArgs: SqlType[] = [S, S, I, I, S, I];
  for (let k = 2; k <= 6; k++) registerScalarFunction({ name: 'regexp_substr', args: substrArgs.slice(0, k), returns: S, impl: substr });

  const instr = (a: unknown[]): number => {
    const [s, p, start = 1, n = 1, endOption = 0, f = '', sub = 0] = a as [string, string, number?, number?, number?, string?, number?];
    const flags = parseFlags(f);
    noGlobal('regexp_instr()', flags);
    if (endOption !== 0 && endOption !== 1) throw invalidParameter('endoption', endOption);
    if (sub < 0) throw invalidParameter('subexpr', sub);
    const m = nth(s, p, flags, start, n);
    const span = m?.indices?.[sub];
    if (span === undefined) return 0;
    return charCount(s, endOption === 1 ? span[1] : span[0]) + 1;
  };
  const instrArgs: SqlType[] = [S, S, I, I, I, S, I];
  for (let k = 2; k <= 7; k++) registerScalarFunction({ name: 'regexp_instr', args: instrArgs.slice(0, k), returns: I, impl: instr });
}
