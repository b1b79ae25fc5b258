import { FloeError } from '../../common/floe-error.js';
import { formatEnumName, type EnumType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';

/** Label → sort position, built once per enum type object (a query's types are shared, not copied per row). */
const positions = new WeakMap<readonly string[], ReadonlyMap<string, number>>();

function positionsOf(e: EnumType): ReadonlyMap<string, number> {
  let m = positions.get(e.labels);
  if (m === undefined) {
    m = new Map(e.labels.map((l, i) => [l, i]));
    positions.set(e.labels, m);
  }
  return m;
}

/** enum_in: the label itself, or 22P02 with PostgreSQL's message when the type has no such label. */
export function parseEnumLabel(text: string, e: EnumType, position?: number): string {
  if (positionsOf(e).has(text)) return text;
  throw new FloeError(SqlState.invalidTextRepresentation, `invalid input value for enum ${formatEnumName(e)}: "${text}"`, { position });
}

/**
 * The order of two labels of one enum type: their enumsortorder, which is their place in
 * the type's label list. A label the type no longer lists (never written, as ALTER TYPE
 * cannot remove one) sorts last, by text.
 */
export function compareEnumLabels(a: string, b: string, e: EnumType): number {
  if (a === b) return 0;
  const m = positionsOf(e);
  const x = m.get(a) ?? e.labels.length; const y = m.get(b) ?? e.labels.length;
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : 1;
}
