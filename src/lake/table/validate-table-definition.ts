import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { checkChangelogFitsEngine, checkChangelogProperty } from './changelog-properties.js';
import { mergeEngineOf } from '../merge/merge-engine.js';
import { checkLogProperty } from './log-properties.js';
import { checkIcebergProperty } from './iceberg-properties.js';
import { checkOptimizingProperty } from './optimizing-properties.js';
import type { TableDefinition } from './table-metadata.js';

/** Rejects definitions the table format cannot honour, before anything is written. */
export function validateTableDefinition(def: TableDefinition): void {
  if (def.columns.length === 0) throw new FloeError(SqlState.syntaxError, `table "${def.name}" needs at least one column`);
  const names = new Set<string>();
  for (const c of def.columns) {
    if (names.has(c.name)) throw new FloeError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`);
    if (c.name.startsWith('_')) {
      throw new FloeError(SqlState.invalidParameterValue, `column name "${c.name}" is reserved: names starting with "_" are used by the table format`);
    }
    names.add(c.name);
  }
  const pk = def.primaryKey ?? [];
  for (const k of pk) {
    if (!names.has(k)) throw new FloeError(SqlState.undefinedColumn, `column "${k}" named in key does not exist`);
  }
  if (new Set(pk).size !== pk.length) throw new FloeError(SqlState.duplicateColumn, 'column appears twice in primary key constraint');
  for (const pf of def.partitionBy ?? []) {
    if (!names.has(pf.sourceColumn)) throw new FloeError(SqlState.undefinedColumn, `partition column "${pf.sourceColumn}" does not exist`);
    // A key must live in exactly one partition, or an upsert could leave a stale row behind in another.
    if (pk.length > 0 && !pk.includes(pf.sourceColumn)) {
      throw new FloeError(SqlState.invalidColumnReference, `partition column "${pf.sourceColumn}" must be part of the primary key`);
    }
  }
  for (const [key, value] of Object.entries(def.properties ?? {})) { checkOptimizingProperty(key, value); checkLogProperty(key, value); checkChangelogProperty(key, value); checkIcebergProperty(key, value); }
  checkChangelogFitsEngine({ properties: def.properties ?? {} }, mergeEngineOf(def).kind);
}
