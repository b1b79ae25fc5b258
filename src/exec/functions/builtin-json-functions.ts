import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';
import {
  isJsonObject, jsonbContains, jsonbEquals, jsonbPrettyText, jsonbText, jsonString, jsonTypeName,
  nodeToValue, parseJsonb, parseJsonNode, sortedKeys, type JsonNode, type JsonObject, type JsonValue,
} from '../types/json-value.js';
import { BuiltinTypes as T, valueToText } from './builtin-operators.js';
import { toJsonText } from './builtin-misc-functions.js';
import { registerAggregateFunction, registerScalarFunction, registerSetFunction } from './function-registry.js';
import { applyJsonbPath } from './jsonb-set-path.js';

const JB = T.jsonb; const J = T.json; const S = T.text; const I = T.int4; const B = T.bool;
const TEXT_ARRAY: SqlType = { kind: 'array', element: S };

type Path = readonly (string | null)[];

/** A path element as an array subscript: an integer, negative from the end; undefined when it is not one. */
function arrayIndex(key: string | number, length: number): number | undefined {
  let i: number;
  if (typeof key === 'number') i = key;
  else {
    if (!/^\s*[+-]?\d+$/.test(key)) return undefined;
    i = Number(key);
    if (!Number.isSafeInteger(i) || i > 2147483647 || i < -2147483648) return undefined;
  }
  if (i < 0) i += length;
  return i >= 0 && i < length ? i : undefined;
}

/** `->` on a jsonb value: an object's field by name, an array's element by index. */
function jsonbField(v: JsonValue, key: string | number): JsonValue | undefined {
  if (isJsonObject(v)) return typeof key === 'string' ? v.get(key) : undefined;
  if (Array.isArray(v)) {
    if (typeof key === 'string') return undefined;
    const i = arrayIndex(key, v.length);
    return i === undefined ? undefined : v[i];
  }
  // A top-level scalar is a one-element array to `-> int`, as in PostgreSQL.
  return typeof key === 'number' && arrayIndex(key, 1) === 0 ? v : undefined;
}

/** `#>`: follows a path; text elements index arrays when they are integers. */
function jsonbAtPath(v: JsonValue, path: Path): JsonValue | undefined {
  let cur: JsonValue | undefined = v;
  for (const p of path) {
    if (p === null || cur === undefined) return undefined;
    if (isJsonObject(cur)) cur = cur.get(p);
    else if (Array.isArray(cur)) {
      const i = arrayIndex(p, cur.length);
      cur = i === undefined ? undefined : cur[i];
    } else return undefined;
  }
  return cur;
}

/** The same walk over json's source text: the last of duplicate keys wins, as in PostgreSQL. */
function jsonNodeAtPath(node: JsonNode, path: readonly (string | number | null)[]): JsonNode | undefined {
  let cur: JsonNode | undefined = node;
  for (const p of path) {
    if (p === null || cur === undefined) return undefined;
    if (cur.kind === 'object') {
      if (typeof p !== 'string') return undefined;
      const i: number = cur.keys.lastIndexOf(p);
      cur = i < 0 ? undefined : cur.values[i];
    } else if (cur.kind === 'array') {
      const i = arrayIndex(p, cur.items.length);
      cur = i === undefined ? undefined : cur.items[i];
    } else return undefined;
  }
  return cur;
}

/** `->>`'s text: a string without quotes, JSON null as SQL NULL, anything else as jsonb text. */
function jsonbAsText(v: JsonValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  return jsonbText(v);
}

function jsonNodeText(text: string, n: JsonNode | undefined): string | null {
  return n === undefined ? null : text.slice(n.start, n.end);
}

function jsonNodeAsText(text: string, n: JsonNode | undefined): string | null {
  if (n === undefined || (n.kind === 'literal' && n.value === null)) return null;
  if (n.kind === 'string') return n.value;
  return text.slice(n.start, n.end);
}

function jsonbOut(v: JsonValue | undefined): string | null {
  return v === undefined ? null : jsonbText(v);
}

function invalid(message: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message);
}

/** jsonb `-` text: drops an object's key, or an array's string elements equal to it. */
function deleteKeys(v: JsonValue, keys: readonly (string | null)[]): JsonValue {
  if (isJsonObject(v)) {
    const out: JsonObject = new Map(v);
    for (const k of keys) if (k !== null) out.delete(k);
    return out;
  }
  if (Array.isArray(v)) return v.filter((e) => typeof e !== 'string' || !keys.includes(e));
  throw invalid('cannot delete from scalar');
}

/** jsonb `||`: two objects merge (the right wins), anything else concatenates as arrays. */
function concat(a: JsonValue, b: JsonValue): JsonValue {
  if (isJsonObject(a) && isJsonObject(b)) return new Map([...a, ...b]);
  const left = Array.isArray(a) ? a : [a];
  const right = Array.isArray(b) ? b : [b];
  return [...left, ...right];
}

function stripNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (isJsonObject(v)) {
    const out: JsonObject = new Map();
    for (const [k, x] of v) if (x !== null) out.set(k, stripNulls(x));
    return out;
  }
  return v;
}

function topLevelHas(v: JsonValue, key: string): boolean {
  if (isJsonObject(v)) return v.has(key);
  if (Array.isArray(v)) return v.some((e) => e === key);
  return v === key;
}

function jsonbArrayLength(v: JsonValue): number {
  if (Array.isArray(v)) return v.length;
  throw invalid(isJsonObject(v) ? 'cannot get array length of a non-array' : 'cannot get array length of a scalar');
}

function jsonArrayLength(n: JsonNode): number {
  if (n.kind === 'array') return n.items.length;
  throw invalid(n.kind === 'object' ? 'cannot get array length of a non-array' : 'cannot get array length of a scalar');
}

/** SQL values as jsonb: what to_json would write, in jsonb's canonical form. */
function toJsonb(v: unknown, t: SqlType, ctx: EvalContext): string {
  return jsonbText(parseJsonb(toJsonText(v, t, ctx)));
}

const AGG_CTX: EvalContext = {
  settings: new Map(), user: '', database: '', searchPath: [], warehouse: undefined, virtualTables: undefined,
  transactionStartMicros: 0n, statementStartMicros: 0n,
};

export function registerBuiltinJsonFunctions(): void {
  const jb = (x: unknown): JsonValue => parseJsonb(x as string);
  const node = (x: unknown): JsonNode => parseJsonNode(x as string);

  // ---- field and path access, on json (source text) and jsonb ----
  for (const key of [S, I]) {
    registerScalarFunction({ name: '->', args: [JB, key], returns: JB, impl: ([j, k]) => jsonbOut(jsonbField(jb(j), k as string | number)) });
    registerScalarFunction({ name: '->>', args: [JB, key], returns: S, impl: ([j, k]) => jsonbAsText(jsonbField(jb(j), k as string | number)) });
    registerScalarFunction({ name: '->', args: [J, key], returns: J, impl: ([j, k]) => jsonNodeText(j as string, jsonNodeAtPath(node(j), [k as string | number])) });
    registerScalarFunction({ name: '->>', args: [J, key], returns: S, impl: ([j, k]) => jsonNodeAsText(j as string, jsonNodeAtPath(node(j), [k as string | number])) });
  }
  registerScalarFunction({ name: '#>', args: [JB, TEXT_ARRAY], returns: JB, impl: ([j, p]) => jsonbOut(jsonbAtPath(jb(j), p as Path)) });
  registerScalarFunction({ name: '#>>', args: [JB, TEXT_ARRAY], returns: S, impl: ([j, p]) => jsonbAsText(jsonbAtPath(jb(j), p as Path)) });
  registerScalarFunction({ name: '#>', args: [J, TEXT_ARRAY], returns: J, impl: ([j, p]) => jsonNodeText(j as string, jsonNodeAtPath(node(j), p as Path)) });
  registerScalarFunction({ name: '#>>', args: [J, TEXT_ARRAY], returns: S, impl: ([j, p]) => jsonNodeAsText(j as string, jsonNodeAtPath(node(j), p as Path)) });
  registerScalarFunction({ name: 'jsonb_extract_path', args: [JB, S], variadic: true, returns: JB, impl: ([j, ...p]) => jsonbOut(jsonbAtPath(jb(j), p as Path)), id: 'jsonb_extract_path(jsonb,text...)' });
  registerScalarFunction({ name: 'jsonb_extract_path_text', args: [JB, S], variadic: true, returns: S, impl: ([j, ...p]) => jsonbAsText(jsonbAtPath(jb(j), p as Path)), id: 'jsonb_extract_path_text(jsonb,text...)' });
  registerScalarFunction({ name: 'json_extract_path', args: [J, S], variadic: true, returns: J, impl: ([j, ...p]) => jsonNodeText(j as string, jsonNodeAtPath(node(j), p as Path)), id: 'json_extract_path(json,text...)' });
  registerScalarFunction({ name: 'json_extract_path_text', args: [J, S], variadic: true, returns: S, impl: ([j, ...p]) => jsonNodeAsText(j as string, jsonNodeAtPath(node(j), p as Path)), id: 'json_extract_path_text(json,text...)' });

  // ---- containment, existence, equality ----
  registerScalarFunction({ name: '@>', args: [JB, JB], returns: B, impl: ([a, b]) => jsonbContains(jb(a), jb(b)) });
  registerScalarFunction({ name: '<@', args: [JB, JB], returns: B, impl: ([a, b]) => jsonbContains(jb(b), jb(a)) });
  registerScalarFunction({ name: '?', args: [JB, S], returns: B, impl: ([a, k]) => topLevelHas(jb(a), k as string) });
  registerScalarFunction({ name: '?|', args: [JB, TEXT_ARRAY], returns: B, impl: ([a, ks]) => { const v = jb(a); return (ks as (string | null)[]).some((k) => k !== null && topLevelHas(v, k)); } });
  registerScalarFunction({ name: '?&', args: [JB, TEXT_ARRAY], returns: B, impl: ([a, ks]) => { const v = jb(a); return (ks as (string | null)[]).every((k) => k === null || topLevelHas(v, k)); } });
  registerScalarFunction({ name: '=', args: [JB, JB], returns: B, impl: ([a, b]) => a === b || jsonbEquals(jb(a), jb(b)) });
  registerScalarFunction({ name: '<>', args: [JB, JB], returns: B, impl: ([a, b]) => a !== b && !jsonbEquals(jb(a), jb(b)) });

  // ---- building and editing ----
  registerScalarFunction({ name: '||', args: [JB, JB], returns: JB, impl: ([a, b]) => jsonbText(concat(jb(a), jb(b))) });
  registerScalarFunction({ name: '-', args: [JB, S], returns: JB, impl: ([a, k]) => jsonbText(deleteKeys(jb(a), [k as string])) });
  registerScalarFunction({ name: '-', args: [JB, TEXT_ARRAY], returns: JB, impl: ([a, ks]) => jsonbText(deleteKeys(jb(a), ks as (string | null)[])) });
  registerScalarFunction({
    name: '-', args: [JB, I], returns: JB,
    impl: ([a, k]) => {
      const v = jb(a);
      if (isJsonObject(v)) throw invalid('cannot delete from object using integer index');
      if (!Array.isArray(v)) throw invalid('cannot delete from scalar');
      const i = arrayIndex(k as number, v.length);
      return jsonbText(i === undefined ? v : v.filter((_e, j) => j !== i));
    },
  });
  registerScalarFunction({ name: '#-', args: [JB, TEXT_ARRAY], returns: JB, impl: ([a, p]) => jsonbText(applyJsonbPath(jb(a), p as Path, null, 'delete')) });
  registerScalarFunction({
    name: 'jsonb_set', args: [JB, TEXT_ARRAY, JB, B], returns: JB,
    impl: ([a, p, nv, create]) => jsonbText(applyJsonbPath(jb(a), p as Path, jb(nv), create ? 'create' : 'replace')),
  });
  registerScalarFunction({
    name: 'jsonb_set', args: [JB, TEXT_ARRAY, JB], returns: JB,
    impl: ([a, p, nv]) => jsonbText(applyJsonbPath(jb(a), p as Path, jb(nv), 'create')),
  });
  registerScalarFunction({
    name: 'jsonb_insert', args: [JB, TEXT_ARRAY, JB, B], returns: JB,
    impl: ([a, p, nv, after]) => jsonbText(applyJsonbPath(jb(a), p as Path, jb(nv), after ? 'insertAfter' : 'insertBefore')),
  });
  registerScalarFunction({
    name: 'jsonb_insert', args: [JB, TEXT_ARRAY, JB], returns: JB,
    impl: ([a, p, nv]) => jsonbText(applyJsonbPath(jb(a), p as Path, jb(nv), 'insertBefore')),
  });
  registerScalarFunction({ name: 'jsonb_strip_nulls', args: [JB], returns: JB, impl: ([a]) => jsonbText(stripNulls(jb(a))) });
  registerScalarFunction({ name: 'jsonb_pretty', args: [JB], returns: S, impl: ([a]) => jsonbPrettyText(jb(a)) });
  registerScalarFunction({
    name: 'jsonb_build_array', args: ['any'], variadic: true, returns: JB, strict: false, id: 'jsonb_build_array(any...)',
    impl: (a, ctx) => jsonbText(a.map((v) => parseJsonb(toJsonText(v, S, ctx)))),
    implFor: (types) => (a, ctx) => jsonbText(a.map((v, i) => parseJsonb(toJsonText(v, types[i]!, ctx)))),
  });

  registerScalarFunction({
    name: 'to_jsonb', args: ['anyelement'], returns: JB,
    impl: ([v], ctx) => toJsonb(v, S, ctx),
    implFor: (types) => ([v], ctx) => toJsonb(v, types[0]!, ctx),
  });

  // ---- inspection ----
  registerScalarFunction({ name: 'jsonb_typeof', args: [JB], returns: S, impl: ([a]) => jsonTypeName(jb(a)) });
  registerScalarFunction({ name: 'json_typeof', args: [J], returns: S, impl: ([a]) => jsonTypeName(nodeToValue(node(a), false)) });
  registerScalarFunction({ name: 'jsonb_array_length', args: [JB], returns: I, impl: ([a]) => jsonbArrayLength(jb(a)) });
  registerScalarFunction({ name: 'json_array_length', args: [J], returns: I, impl: ([a]) => jsonArrayLength(node(a)) });
  registerSetFunction({
    name: 'jsonb_object_keys', args: [JB], returns: S,
    impl: ([a]) => {
      const v = jb(a);
      if (isJsonObject(v)) return sortedKeys(v);
      throw invalid(`cannot call jsonb_object_keys on ${Array.isArray(v) ? 'an array' : 'a scalar'}`);
    },
  });
  registerSetFunction({
    name: 'json_object_keys', args: [J], returns: S,
    impl: ([a]) => {
      const n = node(a);
      if (n.kind === 'object') return n.keys;
      throw invalid(`cannot call json_object_keys on ${n.kind === 'array' ? 'an array' : 'a scalar'}`);
    },
  });

  // ---- aggregates ----
  registerAggregateFunction({
    name: 'jsonb_agg', args: ['anyelement'], returns: JB, strict: false,
    impl: (types) => ({
      init: () => ({ items: [] as JsonValue[] }),
      step: (s, [v]) => { (s as { items: JsonValue[] }).items.push(parseJsonb(toJsonText(v, types[0]!, AGG_CTX))); return s; },
      combine: (a, b) => ({ items: [...(a as { items: JsonValue[] }).items, ...(b as { items: JsonValue[] }).items] }),
      final: (s) => ((s as { items: JsonValue[] }).items.length === 0 ? null : jsonbText((s as { items: JsonValue[] }).items)),
    }),
  });
  for (const [name, forJsonb] of [['jsonb_object_agg', true], ['json_object_agg', false]] as const) {
    registerAggregateFunction({
      name, args: ['any', 'any'], returns: forJsonb ? JB : J, strict: false, id: `${name}(any,any)`,
      impl: (types) => ({
        init: () => ({ pairs: [] as [string, string][] }),
        step: (s, [k, v]) => {
          if (k === null) throw new FloeError(SqlState.invalidParameterValue, 'field name must not be null');
          (s as { pairs: [string, string][] }).pairs.push([valueToText(k, types[0]!, AGG_CTX), toJsonText(v, types[1]!, AGG_CTX)]);
          return s;
        },
        combine: (a, b) => ({ pairs: [...(a as { pairs: [string, string][] }).pairs, ...(b as { pairs: [string, string][] }).pairs] }),
        final: (s) => {
          const pairs = (s as { pairs: [string, string][] }).pairs;
          if (pairs.length === 0) return null;
          if (forJsonb) return jsonbText(new Map(pairs.map(([k, v]) => [k, parseJsonb(v)])));
          return `{ ${pairs.map(([k, v]) => `${jsonString(k)} : ${v}`).join(', ')} }`;
        },
      }),
    });
  }
}
