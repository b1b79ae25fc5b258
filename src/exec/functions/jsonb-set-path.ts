import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../types/json-value.js';

/** What applyJsonbPath does at the path's end: PostgreSQL's setPath modes. */
export type JsonbPathOp =
  /** jsonb_set(…, create_missing => false): replace an existing value only. */
  | 'replace'
  /** jsonb_set: replace, or add the last key / append the element when missing. */
  | 'create'
  /** jsonb_insert: add before the array element (an existing object key is an error). */
  | 'insertBefore'
  /** jsonb_insert(…, insert_after => true). */
  | 'insertAfter'
  /** `#-`: remove the value. */
  | 'delete';

type Path = readonly (string | null)[];

/**
 * jsonb_set, jsonb_insert and `#-`: rebuilds `root` with the value at `path`
 * replaced, inserted or removed, following PostgreSQL's setPath. Missing
 * intermediate levels and scalars met on the way leave the value unchanged.
 */
export function applyJsonbPath(root: JsonValue, path: Path, newValue: JsonValue, op: JsonbPathOp): JsonValue {
  if (!Array.isArray(root) && !isJsonObject(root)) {
    throw new FloeError(SqlState.invalidParameterValue, op === 'delete' ? 'cannot delete path in scalar' : 'cannot set path in scalar');
  }
  if (path.length === 0) return root;
  return setPath(root, path, 0, newValue, op);
}

function setPath(v: JsonValue, path: Path, level: number, newValue: JsonValue, op: JsonbPathOp): JsonValue {
  if (Array.isArray(v)) return setInArray(v, path, level, newValue, op);
  if (isJsonObject(v)) return setInObject(v, path, level, newValue, op);
  return v;
}

function setInObject(o: JsonObject, path: Path, level: number, newValue: JsonValue, op: JsonbPathOp): JsonValue {
  const key = path[level];
  const last = level === path.length - 1;
  if (key === null || key === undefined) return o;
  if (!o.has(key)) {
    if (!last || op === 'replace' || op === 'delete') return o;
    return new Map([...o, [key, newValue]]);
  }
  const out: JsonObject = new Map(o);
  if (!last) {
    out.set(key, setPath(o.get(key)!, path, level + 1, newValue, op));
    return out;
  }
  if (op === 'insertBefore' || op === 'insertAfter') {
    throw new FloeError(SqlState.invalidParameterValue, 'cannot replace existing key', { hint: 'Try using the function jsonb_set to replace key value.' });
  }
  if (op === 'delete') out.delete(key);
  else out.set(key, newValue);
  return out;
}

function setInArray(a: JsonValue[], path: Path, level: number, newValue: JsonValue, op: JsonbPathOp): JsonValue {
  const key = path[level];
  const last = level === path.length - 1;
  const n = a.length;
  let idx: number;
  if (key !== null && key !== undefined) {
    const t = key.trimStart();
    const parsed = /^[+-]?\d+$/.test(t) ? Number(t) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed > 2147483647 || parsed < -2147483648) {
      throw new FloeError(SqlState.invalidTextRepresentation, `path element at position ${level + 1} is not an integer: "${key}"`);
    }
    idx = parsed;
  } else {
    idx = n;
  }
  let prepend = false;
  if (idx < 0) {
    if (-idx > n) prepend = true;
    else idx += n;
  }
  const adds = op === 'create' || op === 'insertBefore' || op === 'insertAfter';
  if ((prepend || n === 0) && last && adds) return [newValue, ...a];
  if (prepend || idx >= n) return last && adds ? [...a, newValue] : a;
  const out = a.slice();
  if (!last) {
    out[idx] = setPath(a[idx]!, path, level + 1, newValue, op);
    return out;
  }
  switch (op) {
    case 'replace': case 'create': out[idx] = newValue; break;
    case 'insertBefore': out.splice(idx, 0, newValue); break;
    case 'insertAfter': out.splice(idx + 1, 0, newValue); break;
    case 'delete': out.splice(idx, 1); break;
  }
  return out;
}
