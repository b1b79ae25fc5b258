import { createHash } from 'node:crypto';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { decodeUtf8Strict } from '../../common/utf8.js';
import { BuiltinTypes as T, regexCache, valueToText } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';

function reg(name: string, args: SqlType[], returns: SqlType, impl: (a: unknown[]) => unknown, strict = true): void {
  registerScalarFunction({ name, args, returns, impl, strict });
}

const chars = (s: string) => [...s];
const cpLen = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** PostgreSQL's substring(s from start for count): positions before 1 still consume the count. */
export function pgSubstring(s: string, start: number, count?: number): string {
  if (count !== undefined && count < 0) throw new FloeError('22011', 'negative substring length not allowed');
  // Without surrogate pairs code units are characters: no array of characters per call.
  const cs = SURROGATE.test(s) ? chars(s) : s;
  const from = Math.max(start, 1);
  const to = count === undefined ? cs.length + 1 : start + count;
  if (to <= from) return '';
  return typeof cs === 'string' ? cs.slice(from - 1, to - 1) : cs.slice(from - 1, to - 1).join('');
}

const SURROGATE = /[\uD800-\uDFFF]/;

function trimChars(s: string, set: string, left: boolean, right: boolean): string {
  const cs = chars(s);
  const del = new Set(chars(set));
  let a = 0; let b = cs.length;
  if (left) while (a < b && del.has(cs[a]!)) a++;
  if (right) while (b > a && del.has(cs[b - 1]!)) b--;
  return cs.slice(a, b).join('');
}

function pad(s: string, len: number, fill: string, left: boolean): string {
  const cs = chars(s);
  if (len <= 0) return '';
  if (cs.length >= len) return cs.slice(0, len).join('');
  const fc = chars(fill);
  if (fc.length === 0) return s;
  const need = len - cs.length;
  const padding: string[] = [];
  for (let i = 0; i < need; i++) padding.push(fc[i % fc.length]!);
  return left ? padding.join('') + s : s + padding.join('');
}

/** PostgreSQL regexp_replace replacement text: \1..\9 and \& refer to groups; $ is literal. */
function jsReplacement(rep: string): string {
  let out = '';
  for (let i = 0; i < rep.length; i++) {
    const ch = rep[i]!;
    if (ch === '$') { out += '$$'; continue; }
    if (ch === '\\' && i + 1 < rep.length) {
      const n = rep[i + 1]!;
      if (/[1-9]/.test(n)) { out += '$' + n; i++; continue; }
      if (n === '&') { out += '$&'; i++; continue; }
      if (n === '\\') { out += '\\'; i++; continue; }
    }
    out += ch;
  }
  return out;
}

export function quoteIdent(s: string): string {
  if (/^[a-z_][a-z0-9_$]*$/.test(s) && !RESERVED.has(s)) return s;
  return `"${s.replace(/"/g, '""')}"`;
}

const RESERVED = new Set(['all', 'analyse', 'analyze', 'and', 'any', 'array', 'as', 'asc', 'asymmetric', 'both', 'case', 'cast', 'check', 'collate', 'column', 'constraint', 'create', 'current_catalog', 'current_date', 'current_role', 'current_time', 'current_timestamp', 'current_user', 'default', 'deferrable', 'desc', 'distinct', 'do', 'else', 'end', 'except', 'false', 'fetch', 'for', 'foreign', 'from', 'grant', 'group', 'having', 'in', 'initially', 'intersect', 'into', 'lateral', 'leading', 'limit', 'localtime', 'localtimestamp', 'not', 'null', 'offset', 'on', 'only', 'or', 'order', 'placing', 'primary', 'references', 'returning', 'select', 'session_user', 'some', 'symmetric', 'table', 'then', 'to', 'trailing', 'true', 'union', 'unique', 'user', 'using', 'variadic', 'when', 'where', 'window', 'with']);

export function registerBuiltinStringFunctions(): void {
  const S = T.text; const I = T.int4;
  for (const n of ['length', 'char_length', 'character_length']) reg(n, [S], I, ([a]) => cpLen(a as string));
  reg('length', [T.bpchar], I, ([a]) => cpLen((a as string).replace(/ +$/, '')));
  reg('length', [T.bytea], I, ([a]) => (a as Uint8Array).length);
  reg('octet_length', [S], I, ([a]) => Buffer.byteLength(a as string, 'utf8'));
  reg('octet_length', [T.bytea], I, ([a]) => (a as Uint8Array).length);
  reg('bit_length', [S], I, ([a]) => Buffer.byteLength(a as string, 'utf8') * 8);
  reg('lower', [S], S, ([a]) => (a as string).toLowerCase());
  reg('upper', [S], S, ([a]) => (a as string).toUpperCase());
  reg('initcap', [S], S, ([a]) => (a as string).toLowerCase().replace(/(^|[^a-z0-9])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase()));
  for (const n of ['substring', 'substr']) {
    reg(n, [S, I], S, ([s, a]) => pgSubstring(s as string, a as number));
    reg(n, [S, I, I], S, ([s, a, c]) => pgSubstring(s as string, a as number, c as number));
  }
  reg('substring', [S, S], S, ([s, p]) => {
    const m = regexCache(p as string, '').exec(s as string);
    if (!m) return null;
    return m.length > 1 ? m[1] ?? null : m[0];
  });
  reg('substring', [T.bytea, I, I], T.bytea, ([s, a, c]) => {
    const b = s as Uint8Array; const start = a as number; const count = c as number;
    if (count < 0) throw new FloeError('22011', 'negative substring length not allowed');
    const from = Math.max(start, 1); const to = start + count;
    return to <= from ? new Uint8Array(0) : b.slice(from - 1, to - 1);
  });
  for (const n of ['position', 'strpos']) {
    reg(n, [S, S], I, ([s, sub]) => {
      const idx = (s as string).indexOf(sub as string);
      return idx < 0 ? 0 : cpLen((s as string).slice(0, idx)) + 1;
    });
  }
  reg('btrim', [S], S, ([s]) => trimChars(s as string, ' ', true, true));
  reg('btrim', [S, S], S, ([s, c]) => trimChars(s as string, c as string, true, true));
  reg('ltrim', [S], S, ([s]) => trimChars(s as string, ' ', true, false));
  reg('ltrim', [S, S], S, ([s, c]) => trimChars(s as string, c as string, true, false));
  reg('rtrim', [S], S, ([s]) => trimChars(s as string, ' ', false, true));
  reg('rtrim', [S, S], S, ([s, c]) => trimChars(s as string, c as string, false, true));
  reg('trim', [S], S, ([s]) => trimChars(s as string, ' ', true, true));
  reg('trim', [S, S], S, ([s, c]) => trimChars(s as string, c as string, true, true));
  reg('replace', [S, S, S], S, ([s, f, t]) => ((f as string) === '' ? s : (s as string).split(f as string).join(t as string)));
  reg('left', [S, I], S, ([s, n]) => {
    const cs = chars(s as string); const k = n as number;
    return (k >= 0 ? cs.slice(0, k) : cs.slice(0, Math.max(0, cs.length + k))).join('');
  });
  reg('right', [S, I], S, ([s, n]) => {
    const cs = chars(s as string); const k = n as number;
    return (k >= 0 ? cs.slice(Math.max(0, cs.length - k)) : cs.slice(Math.min(cs.length, -k))).join('');
  });
  reg('lpad', [S, I], S, ([s, n]) => pad(s as string, n as number, ' ', true));
  reg('lpad', [S, I, S], S, ([s, n, f]) => pad(s as string, n as number, f as string, true));
  reg('rpad', [S, I], S, ([s, n]) => pad(s as string, n as number, ' ', false));
  reg('rpad', [S, I, S], S, ([s, n, f]) => pad(s as string, n as number, f as string, false));
  reg('split_part', [S, S, I], S, ([s, d, n]) => {
    const k = n as number;
    if (k === 0) throw new FloeError(SqlState.invalidParameterValue, 'field position must not be zero');
    const parts = (d as string) === '' ? [s as string] : (s as string).split(d as string);
    const idx = k > 0 ? k - 1 : parts.length + k;
    return parts[idx] ?? '';
  });
  reg('starts_with', [S, S], T.bool, ([s, p]) => (s as string).startsWith(p as string));
  reg('regexp_replace', [S, S, S], S, ([s, p, r]) => (s as string).replace(regexCache(p as string, ''), jsReplacement(r as string)));
  reg('regexp_replace', [S, S, S, S], S, ([s, p, r, f]) => {
    const flags = f as string;
    const js = (flags.includes('g') ? 'g' : '') + (flags.includes('i') ? 'i' : '');
    return (s as string).replace(regexCache(p as string, js), jsReplacement(r as string));
  });
  reg('regexp_match', [S, S], { kind: 'array', element: S }, ([s, p]) => {
    const m = regexCache(p as string, '').exec(s as string);
    if (!m) return null;
    return m.length > 1 ? m.slice(1).map((x) => x ?? null) : [m[0]];
  });
  reg('repeat', [S, I], S, ([s, n]) => (s as string).repeat(Math.max(0, n as number)));
  reg('reverse', [S], S, ([s]) => chars(s as string).reverse().join(''));
  reg('md5', [S], S, ([s]) => createHash('md5').update(s as string, 'utf8').digest('hex'));
  reg('md5', [T.bytea], S, ([s]) => createHash('md5').update(s as Uint8Array).digest('hex'));
  reg('chr', [I], S, ([n]) => {
    const c = n as number;
    if (c === 0) throw new FloeError('54000', 'null character not permitted');
    return String.fromCodePoint(c);
  });
  reg('ascii', [S], I, ([s]) => ((s as string).length === 0 ? 0 : (s as string).codePointAt(0)!));
  reg('translate', [S, S, S], S, ([s, f, t]) => {
    const fc = chars(f as string); const tc = chars(t as string);
    return chars(s as string).map((ch) => {
      const i = fc.indexOf(ch);
      return i < 0 ? ch : i < tc.length ? tc[i]! : '';
    }).join('');
  });
  reg('to_hex', [I], S, ([n]) => ((n as number) >>> 0).toString(16));
  reg('to_hex', [T.int8], S, ([n]) => BigInt.asUintN(64, n as bigint).toString(16));
  reg('quote_ident', [S], S, ([s]) => quoteIdent(s as string));
  reg('quote_literal', [S], S, ([s]) => {
    const x = s as string;
    const q = `'${x.replace(/'/g, "''")}'`;
    return x.includes('\\') ? `E${q.replace(/\\/g, '\\\\')}` : q;
  });
  registerScalarFunction({
    name: 'quote_nullable', args: [S], returns: S, strict: false,
    impl: ([s]) => (s === null ? 'NULL' : `'${(s as string).replace(/'/g, "''")}'`),
  });
  registerScalarFunction({
    name: 'concat', args: ['any'], variadic: true, returns: S, strict: false, id: 'concat(any...)',
    impl: ([...a], ctx) => a.filter((x) => x !== null).map((x) => valueToText(x, { kind: 'text' }, ctx)).join(''),
    implFor: (types) => (a, ctx) => a.map((x, i) => (x === null ? '' : valueToText(x, types[i]!, ctx))).join(''),
  });
  registerScalarFunction({
    name: 'concat_ws', args: [S, 'any'], variadic: true, returns: S, strict: false, id: 'concat_ws(text,any...)',
    impl: ([sep, ...a], ctx) => (sep === null ? null : a.filter((x) => x !== null).map((x) => valueToText(x, { kind: 'text' }, ctx)).join(sep as string)),
    implFor: (types) => ([sep, ...a], ctx) => (sep === null ? null
      : a.map((x, i) => (x === null ? null : valueToText(x, types[i + 1]!, ctx))).filter((x) => x !== null).join(sep as string)),
  });
  reg('string_to_array', [S, S], { kind: 'array', element: S }, ([s, d]) =>
    ((s as string) === '' ? [] : (d as string) === '' ? [s] : (s as string).split(d as string)));
  registerScalarFunction({
    name: 'array_to_string', args: ['anyarray', S], returns: S, id: 'array_to_string(anyarray,text)',
    impl: ([a, d], ctx) => (a as unknown[]).filter((x) => x !== null).map((x) => valueToText(x, { kind: 'text' }, ctx)).join(d as string),
    implFor: (types) => ([a, d], ctx) => {
      const el = types[0]!.kind === 'array' ? (types[0] as { element: SqlType }).element : types[0]!;
      return (a as unknown[]).filter((x) => x !== null).map((x) => valueToText(x, el, ctx)).join(d as string);
    },
  });
  registerScalarFunction({
    name: 'array_to_string', args: ['anyarray', S, S], returns: S, id: 'array_to_string(anyarray,text,text)',
    impl: ([a, d, n], ctx) => (a as unknown[]).map((x) => (x === null ? n : valueToText(x, { kind: 'text' }, ctx))).join(d as string),
  });
  registerScalarFunction({
    name: 'array_append', args: ['anyarray', 'anyelement'], returns: (t) => t[0]!, strict: false,
    impl: ([a, e]) => [...((a as unknown[] | null) ?? []), e],
  });
  registerScalarFunction({
    name: 'array_cat', args: ['anyarray', 'anyarray'], returns: (t) => t[0]!, strict: false,
    impl: ([a, b]) => (a === null ? b : b === null ? a : [...(a as unknown[]), ...(b as unknown[])]),
  });
  registerScalarFunction({
    name: 'array_position', args: ['anyarray', 'anyelement'], returns: I,
    impl: ([a, e]) => { const i = (a as unknown[]).indexOf(e); return i < 0 ? null : i + 1; },
  });
  registerScalarFunction({ name: 'gen_random_uuid', args: [], returns: T.uuid, volatile: true, impl: () => crypto.randomUUID() });
  reg('encode', [T.bytea, S], S, ([b, f]) => {
    const fmt = (f as string).toLowerCase();
    const buf = Buffer.from(b as Uint8Array);
    if (fmt === 'hex') return buf.toString('hex');
    if (fmt === 'base64') return buf.toString('base64');
    if (fmt === 'escape') return [...buf].map((c) => (c === 92 ? '\\\\' : c < 32 || c > 126 ? '\\' + c.toString(8).padStart(3, '0') : String.fromCharCode(c))).join('');
    throw new FloeError(SqlState.invalidParameterValue, `unrecognized encoding: "${f as string}"`);
  });
  reg('convert_from', [T.bytea, S], S, ([b, e]) => {
    const bytes = b as Uint8Array;
    switch (encodingOf(e as string, 'source')) {
      case 'UTF8': case 'SQL_ASCII': return decodeUtf8Strict(bytes);
      case 'LATIN1': return Buffer.from(bytes).toString('latin1');
    }
  });
  reg('convert_to', [S, S], T.bytea, ([s, e]) => {
    switch (encodingOf(e as string, 'destination')) {
      case 'UTF8': case 'SQL_ASCII': return new Uint8Array(Buffer.from(s as string, 'utf8'));
      case 'LATIN1': {
        for (const ch of s as string) {
          if (ch.codePointAt(0)! > 0xff) {
            throw new FloeError(SqlState.untranslatableCharacter,
              `character with byte sequence ${[...Buffer.from(ch, 'utf8')].map((x) => `0x${x.toString(16).padStart(2, '0')}`).join(' ')} in encoding "UTF8" has no equivalent in encoding "LATIN1"`);
          }
        }
        return new Uint8Array(Buffer.from(s as string, 'latin1'));
      }
    }
  });
  reg('decode', [S, S], T.bytea, ([s, f]) => {
    const fmt = (f as string).toLowerCase();
    if (fmt === 'hex') return new Uint8Array(Buffer.from(s as string, 'hex'));
    if (fmt === 'base64') return new Uint8Array(Buffer.from(s as string, 'base64'));
    throw new FloeError(SqlState.invalidParameterValue, `unrecognized encoding: "${f as string}"`);
  });
}

/** The encodings convert_from/convert_to know, by PostgreSQL's lenient spelling (case and punctuation ignored). */
function encodingOf(name: string, role: 'source' | 'destination'): 'UTF8' | 'LATIN1' | 'SQL_ASCII' {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (key === 'utf8' || key === 'unicode') return 'UTF8';
  if (key === 'latin1' || key === 'iso88591') return 'LATIN1';
  if (key === 'sqlascii') return 'SQL_ASCII';
  throw new FloeError(SqlState.invalidParameterValue, `invalid ${role} encoding name "${name}"`);
}
