import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ConflictArbiter } from '../../exec/index.js';
import type { TableConstraint } from '../../lake/index.js';
import type { CatalogTable } from '../bind-env.js';
import { positionOf, unwrap, type Raw } from './ast.js';

const noMatch = 'there is no unique or exclusion constraint matching the ON CONFLICT specification';

/**
 * The arbiter of `ON CONFLICT (cols)` / `ON CONFLICT ON CONSTRAINT name`, as
 * PostgreSQL's inference picks it: the primary key or a UNIQUE constraint (or unique
 * index) whose column set is exactly the one named, in any order (42P10 when none is);
 * by name, a constraint of the table (42704 otherwise: a unique index made by CREATE
 * UNIQUE INDEX is no constraint). PostgreSQL reports neither error with a position. Without a target (DO NOTHING only): any of them, or none.
 */
export function bindConflictArbiter(oc: Raw, table: CatalogTable): ConflictArbiter {
  const uniques = (table.constraints ?? []).filter((c): c is Extract<TableConstraint, { kind: 'unique' }> => c.kind === 'unique');
  const indexOf = (name: string) => table.columns.findIndex((c) => c.name === name);
  const unique = (c: (typeof uniques)[number]): ConflictArbiter => {
    if (c.deferrable !== undefined) throw new FloeError(SqlState.objectNotInPrerequisiteState, 'ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters');
    return { kind: 'unique', name: c.name, columns: c.columns.map(indexOf) };
  };
  const conname = oc.infer?.conname as string | undefined;
  if (conname !== undefined) {
    if (table.primaryKey.length > 0 && conname === `${table.name}_pkey`) return { kind: 'primaryKey' };
    const c = uniques.find((u) => u.name === conname && u.indexOnly !== true);
    if (c === undefined) {
      throw new FloeError(SqlState.undefinedObject, `constraint "${conname}" for table "${table.name}" does not exist`);
    }
    return unique(c);
  }
  const elems = (oc.infer?.indexElems as Raw[] | undefined) ?? [];
  // Without a target any unique key arbitrates, and a table without one inserts every row (as PostgreSQL does).
  if (elems.length === 0) {
    // Every unique key arbitrates then, so a deferrable one is refused here too (as PostgreSQL does).
    const deferrable = uniques.find((u) => u.deferrable !== undefined);
    if (deferrable !== undefined) unique(deferrable);
    return { kind: 'any' };
  }
  const inferred = new Set(elems.map((e) => {
    const el = unwrap(e)[1];
    if (!el.name) throw new FloeError(SqlState.invalidColumnReference, noMatch);
    if (indexOf(el.name as string) < 0) {
      throw new FloeError(SqlState.undefinedColumn, `column "${el.name as string}" does not exist`, { position: positionOf(e) });
    }
    return el.name as string;
  }));
  const sameSet = (cols: readonly string[]) => new Set(cols).size === inferred.size && cols.every((c) => inferred.has(c));
  // `WHERE predicate` admits partial unique indexes it implies; Floe has none, and a
  // non-partial one satisfies any predicate, as in PostgreSQL. Its columns must exist.
  if (oc.infer?.whereClause !== undefined) checkPredicateColumns(oc.infer.whereClause as Raw, (name) => indexOf(name) >= 0);
  if (table.primaryKey.length > 0 && sameSet(table.primaryKey)) return { kind: 'primaryKey' };
  const c = uniques.find((u) => sameSet(u.columns!));
  if (c !== undefined) return unique(c);
  throw new FloeError(SqlState.invalidColumnReference, noMatch);
}

/** 42703 for a column the arbiter's predicate names that the table lacks (the predicate is otherwise not evaluated). */
function checkPredicateColumns(node: unknown, exists: (name: string) => boolean): void {
  if (Array.isArray(node)) {
    for (const x of node) checkPredicateColumns(x, exists);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const ref = (node as Raw).ColumnRef as Raw | undefined;
  if (ref !== undefined) {
    const fields = (ref.fields as Raw[] | undefined) ?? [];
    const last = fields[fields.length - 1];
    const name = last?.String?.sval as string | undefined;
    if (name !== undefined && fields.length === 1 && !exists(name)) {
      throw new FloeError(SqlState.undefinedColumn, `column "${name}" does not exist`, { position: positionOf(node as Raw) });
    }
    return;
  }
  for (const v of Object.values(node)) checkPredicateColumns(v, exists);
}
