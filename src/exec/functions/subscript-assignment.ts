import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { isJsonObject, jsonbText, parseJsonb, type JsonValue } from '../types/json-value.js';
import { registerScalarFunction } from './function-registry.js';

/**
 * `UPDATE t SET col[…] = v`: the column's new value, as PostgreSQL's subscripting
 * assignment computes it. The binder builds calls to these ids (they are not meant to
 * be called by name): (container, new value, subscript, …).
 */
export const JSONB_SUBSCRIPT_ASSIGN = 'jsonb subscript assignment';
export const ARRAY_SUBSCRIPT_ASSIGN = 'array subscript assignment';

const JSONB: SqlType = { kind: 'jsonb' };

export function registerSubscriptAssignment(): void {
  registerScalarFunction({
    id: JSONB_SUBSCRIPT_ASSIGN, name: JSONB_SUBSCRIPT_ASSIGN, args: ['any', 'any', 'any'], variadic: true, strict: false, returns: JSONB,
    impl: ([container, value, ...subscripts]) => {
      const path = subscripts.map((s) => {
        if (s === null || s === undefined) throw new FloeError(SqlState.nullValueNotAllowed, 'jsonb subscript in assignment must not be null');
        return String(s);
      });
      const root = container === null ? undefined : parseJsonb(container as string);
      return jsonbText(assignJsonb(root, path, 0, value === null ? null : parseJsonb(value as string)));
    },
  });
  registerScalarFunction({
    id: ARRAY_SUBSCRIPT_ASSIGN, name: ARRAY_SUBSCRIPT_ASSIGN, args: ['any', 'any', 'any'], strict: false,
    returns: (types) => types[0]!,
    impl: ([array, value, subscript]) => assignArrayElement(array as unknown[] | null, subscript as number | null, value),
  });
}

const isIntegerText = (s: string) => /^\s*[+-]?\d+$/.test(s);

/**
 * PostgreSQL's setPath with JB_PATH_CREATE | FILL_GAPS | CONSISTENT_POSITION: missing
 * levels are created (an array when the subscript is an integer, else an object), arrays
 * are padded with nulls up to the index, and a scalar in the way is an error.
 * `v` undefined: nothing there yet (a NULL column or a missing key).
 */
function assignJsonb(v: JsonValue | undefined, path: readonly string[], level: number, value: JsonValue): JsonValue {
  const key = path[level]!;
  const last = level === path.length - 1;
  const container = v === undefined ? (isIntegerText(key) ? [] : new Map<string, JsonValue>()) : v;
  if (Array.isArray(container)) {
    if (!isIntegerText(key)) throw new FloeError(SqlState.invalidTextRepresentation, `path element at position ${level + 1} is not an integer: "${key}"`);
    let index = Number(key);
    if (index < 0) {
      if (-index > container.length) throw new FloeError(SqlState.invalidParameterValue, `path element at position ${level + 1} is out of range: ${index}`);
      index += container.length;
    }
    const out: JsonValue[] = [...container];
    while (out.length < index) out.push(null);
    out[index] = last ? value : assignJsonb(index < container.length ? container[index] : undefined, path, level + 1, value);
    return out;
  }
  if (isJsonObject(container)) {
    const out = new Map(container);
    out.set(key, last ? value : assignJsonb(container.get(key), path, level + 1, value));
    return out;
  }
  throw new FloeError(SqlState.invalidParameterValue, 'cannot replace existing key', {
    detail: 'The path assumes key is a composite object, but it is a scalar value.',
  });
}

/**
 * `arr[i] = v` on a one-dimensional array: past the end pads with NULLs. Floe's arrays
 * all start at 1, so assignments PostgreSQL answers with another lower bound (`[3:3]={x}`
 * for a NULL or empty array, `[0:…]` before the start) are refused.
 */
function assignArrayElement(array: unknown[] | null, index: number | null, value: unknown): unknown[] {
  if (index === null) throw new FloeError(SqlState.nullValueNotAllowed, 'array subscript in assignment must not be null');
  const current = array ?? [];
  if (index < 1 || (current.length === 0 && index !== 1)) {
    throw new FloeError(SqlState.featureNotSupported, 'array subscript assignment that moves the lower bound from 1 is not supported', {
      hint: 'Floe arrays start at index 1.',
    });
  }
  const out = [...current];
  while (out.length < index - 1) out.push(null);
  out[index - 1] = value;
  return out;
}
