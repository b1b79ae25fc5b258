import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { ConstraintRef, TableMetadata } from '../lake/index.js';

/** A named constraint of a table as SET CONSTRAINTS sees it: deferrable or not. */
function namedConstraints(t: TableMetadata): { name: string; deferrable: boolean }[] {
  const out = t.primaryKey.length > 0 ? [{ name: `${t.name}_pkey`, deferrable: false }] : [];
  for (const c of t.constraints ?? []) {
    // A plain index, or a unique index made by CREATE UNIQUE INDEX, is not a constraint.
    if (c.kind === 'index' || (c.kind === 'unique' && c.indexOnly === true)) continue;
    out.push({ name: c.name, deferrable: c.kind === 'unique' && c.deferrable !== undefined });
  }
  return out;
}

/**
 * The constraints `SET CONSTRAINTS name, …` names, as PostgreSQL finds them: an unqualified
 * name in the first schema of `schemas` (the temporary schema, then search_path) that has a
 * constraint of that name, every table's constraint of that name there; 42704 when none
 * does, 42809 when one of them is not deferrable.
 */
export function constraintsToSet(
  warehouse: { listTables(namespace: string): readonly TableMetadata[]; listNamespaces(): readonly string[] },
  names: readonly { readonly schema?: string; readonly name: string }[],
  schemas: readonly string[],
): ConstraintRef[] {
  const out: ConstraintRef[] = [];
  for (const n of names) {
    if (n.schema !== undefined && !warehouse.listNamespaces().includes(n.schema)) {
      throw new FloeError(SqlState.invalidSchemaName, `schema "${n.schema}" does not exist`);
    }
    let found = false;
    for (const schema of n.schema !== undefined ? [n.schema] : schemas) {
      for (const t of warehouse.listTables(schema)) {
        const c = namedConstraints(t).find((x) => x.name === n.name);
        if (c === undefined) continue;
        if (!c.deferrable) throw new FloeError(SqlState.wrongObjectType, `constraint "${n.name}" is not deferrable`);
        out.push({ tableId: t.id, name: n.name });
        found = true;
      }
      if (found) break;
    }
    if (!found) throw new FloeError(SqlState.undefinedObject, `constraint "${n.name}" does not exist`);
  }
  return out;
}
