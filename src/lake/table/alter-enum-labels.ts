import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { checkEnumLabel } from '../catalog/sql-types.js';
import type { EnumLabel } from './user-type-metadata.js';

/** Where ALTER TYPE … ADD VALUE puts the new label: last, or next to an existing one. */
export type EnumLabelPosition = { readonly before: string } | { readonly after: string } | undefined;

function indexOfLabel(labels: readonly EnumLabel[], label: string): number {
  const i = labels.findIndex((l) => l.label === label);
  if (i < 0) throw new FloeError(SqlState.invalidParameterValue, `"${label}" is not an existing enum label`);
  return i;
}

/**
 * ADD VALUE: the labels with `label` added, its sort order chosen as PostgreSQL's
 * AddEnumLabel does (last: the greatest plus one; next to a neighbour: the midpoint, or
 * one past the end). `undefined` when IF NOT EXISTS found it there already.
 */
export function addEnumLabel(
  labels: readonly EnumLabel[], label: string, position: EnumLabelPosition, ifNotExists: boolean, oid: number,
): EnumLabel[] | undefined {
  checkEnumLabel(label);
  if (labels.some((l) => l.label === label)) {
    if (ifNotExists) return undefined;
    throw new FloeError(SqlState.duplicateObject, `enum label "${label}" already exists`);
  }
  let at: number;
  let sortOrder: number;
  if (position === undefined) {
    at = labels.length;
    sortOrder = labels.length === 0 ? 1 : labels[labels.length - 1]!.sortOrder + 1;
  } else if ('before' in position) {
    at = indexOfLabel(labels, position.before);
    const next = labels[at]!.sortOrder;
    sortOrder = at === 0 ? next - 1 : (labels[at - 1]!.sortOrder + next) / 2;
  } else {
    const prev = indexOfLabel(labels, position.after);
    at = prev + 1;
    sortOrder = at === labels.length ? labels[prev]!.sortOrder + 1 : (labels[prev]!.sortOrder + labels[at]!.sortOrder) / 2;
  }
  // enumsortorder is a float4 in PostgreSQL.
  const added: EnumLabel = { oid, label, sortOrder: Math.fround(sortOrder) };
  return [...labels.slice(0, at), added, ...labels.slice(at)];
}

/** RENAME VALUE: PostgreSQL's errors for a missing old label or a taken new one. */
export function renameEnumLabel(labels: readonly EnumLabel[], from: string, to: string): EnumLabel[] {
  checkEnumLabel(to);
  const i = indexOfLabel(labels, from);
  if (from !== to && labels.some((l) => l.label === to)) throw new FloeError(SqlState.duplicateObject, `enum label "${to}" already exists`);
  return labels.map((l, j) => (j === i ? { ...l, label: to } : l));
}
