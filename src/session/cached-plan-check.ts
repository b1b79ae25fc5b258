import type { BoundStatement } from '../sql/index.js';
import type { Warehouse } from '../lake/index.js';
import type { ColumnDescription } from '../common/session-handler.js';

/**
 * What a prepared statement's plan was built against: the search path and, for each
 * lake table it reads or writes, that table's definition. While both hold, Execute
 * reuses the plan (parse, bind, optimize and physical planning happen once per
 * prepared statement); when either changed (ALTER TABLE, DROP and CREATE, SET
 * search_path), the statement is planned again, as PostgreSQL revalidates its
 * cached plans. The views it expanded count too (their text, options and owner were
 * bound in). Snapshots and file lists are not part of it: the lake scan reads them at
 * every execution.
 */
export interface CachedPlanCheck {
  readonly searchPath: string;
  readonly tables: readonly { readonly id: number; readonly definition: string | undefined; readonly policyOwner: number | undefined }[];
  /** The views the statement's text expanded: each one's definition, options and owner (whose policies it read with). */
  readonly views: readonly { readonly id: number; readonly definition: string | undefined }[];
}

/** `alsoTables`: tables the plan depends on without naming them (read through table_changes, say). */
export function cachedPlanCheck(bound: BoundStatement, warehouse: Warehouse, searchPath: readonly string[], alsoTables: readonly number[] = []): CachedPlanCheck {
  const ids = tableIdsOf(bound);
  for (const id of alsoTables) ids.add(id);
  return {
    searchPath: searchPath.join(','),
    tables: [...ids].map((id) => ({ id, definition: tableDefinition(warehouse, id), policyOwner: policyOwner(warehouse, id) })),
    views: viewIdsOf(bound).map((id) => ({ id, definition: viewDefinition(warehouse, id) })),
  };
}

/** Whether a plan built when `check` was taken still answers for the catalog and settings now. */
export function cachedPlanHolds(check: CachedPlanCheck, warehouse: Warehouse, searchPath: readonly string[]): boolean {
  if (check.searchPath !== searchPath.join(',')) return false;
  return check.tables.every((t) => t.definition === tableDefinition(warehouse, t.id) && t.policyOwner === policyOwner(warehouse, t.id))
    && check.views.every((v) => v.definition === viewDefinition(warehouse, v.id));
}

/** A table under row-level security: its owner, whom its policies spare (the binder applied them or not by it). */
function policyOwner(warehouse: Warehouse, id: number): number | undefined {
  const policies = (warehouse as { rowPolicies?: Warehouse['rowPolicies'] }).rowPolicies;
  return policies?.rowSecurity(id).enabled === true ? warehouse.privileges.get({ kind: 'relation', id }).owner : undefined;
}

/** Views named by the statement or by the views it expanded (the binder's access log keeps each). */
function viewIdsOf(bound: BoundStatement): number[] {
  return [...new Set((bound.accesses?.relations ?? []).filter((a) => a.kind === 'view').map((a) => a.id))];
}

function viewDefinition(warehouse: Warehouse, id: number): string | undefined {
  const v = warehouse.getViewById(id);
  if (v === undefined) return undefined;
  return JSON.stringify([v.namespace, v.name, v.definition, v.columns, v.searchPath, v.options ?? [], warehouse.privileges.get({ kind: 'relation', id }).owner]);
}

type DefinitionParts = readonly unknown[];

/**
 * The last definition text made of each table's columns array, with the parts it was made
 * from. The catalog hands out the same frozen parts while a table's definition has not
 * changed (its read cache outlives commits), so the text, checked at every Execute, is
 * made once per definition rather than once per statement.
 */
const definitions = new WeakMap<object, { readonly parts: DefinitionParts; readonly text: string }>();

function tableDefinition(warehouse: Warehouse, id: number): string | undefined {
  const t = warehouse.getTableById(id);
  if (t === undefined) return undefined;
  const parts = [t.namespace, t.name, t.schemaId, t.columns, t.primaryKey, t.partitionBy, t.constraints, t.properties];
  const known = definitions.get(t.columns);
  if (known !== undefined && known.parts.every((p, i) => p === parts[i])) return known.text;
  const text = JSON.stringify(parts, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  // Only frozen parts can be known by identity: a part that may change in place is read afresh every time.
  if (parts.every((p) => p === null || typeof p !== 'object' || Object.isFrozen(p))) definitions.set(t.columns, { parts, text });
  return text;
}

/** Ids of the lake tables a bound statement's logical plan names (a `table` holding a numeric id, a namespace and a name). */
function tableIdsOf(bound: BoundStatement): Set<number> {
  const ids = new Set<number>();
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (ArrayBuffer.isView(v)) return;
    if (Array.isArray(v)) { for (const x of v) visit(x); return; }
    const o = v as Record<string, unknown>;
    const t = o.table as Record<string, unknown> | undefined;
    if (t !== null && typeof t === 'object' && typeof t.id === 'number' && typeof t.namespace === 'string' && typeof t.name === 'string') ids.add(t.id);
    for (const x of Object.values(o)) visit(x);
  };
  if (bound.kind === 'query' || bound.kind === 'dml') visit(bound.logical);
  return ids;
}

/** Whether two result descriptions are the same row type (names, types, type modifiers), as PostgreSQL compares a re-planned statement's. */
export function sameResultColumns(a: readonly ColumnDescription[] | null, b: readonly ColumnDescription[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.typeOid === b[i]!.typeOid && c.typeModifier === b[i]!.typeModifier);
}
