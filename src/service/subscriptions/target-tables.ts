import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableMetadata, Warehouse } from '../../lake/index.js';
import type { SourceColumn, SourceTable } from './source-tables.js';
import { isKeylessFull, keylessTableError, qualifiedName } from './source-tables.js';

/**
 * The Floe table a published table's changes go to, under the same schema and name:
 * created from the source's columns and key when missing and `createTables` allows it,
 * else it must exist, be keyed by the same columns, and gets the source's columns it lacks
 * (nullable). A source without a key but with REPLICA IDENTITY FULL goes to a table
 * without a key (an append table), whose rows the apply matches whole.
 */
export async function ensureTargetTable(warehouse: Warehouse, source: SourceTable, createTables: boolean): Promise<TableMetadata> {
  if (source.key.length === 0 && !isKeylessFull(source)) throw keylessTableError(source);
  const existing = warehouse.getTable(source.schema, source.name);
  if (existing === undefined) {
    if (!createTables) {
      throw new FloeError(SqlState.undefinedTable, `logical replication target relation ${qualifiedName(source)} does not exist`, {
        hint: 'Create it, or leave create_tables on so the subscription creates it from the source.',
      });
    }
    if (!warehouse.listNamespaces().includes(source.schema)) await warehouse.createNamespace(source.schema, { ifNotExists: true });
    return warehouse.createTable({
      namespace: source.schema, name: source.name, primaryKey: source.key,
      columns: source.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
    }, { ifNotExists: true });
  }
  if (source.key.length === 0 && existing.primaryKey.length > 0) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState,
      `logical replication target relation ${qualifiedName(source)} is keyed by (${existing.primaryKey.join(', ')}), the source has no key`, {
        hint: 'The source is REPLICA IDENTITY FULL without a key, so its table in Floe must have no primary key either (it may hold equal rows).',
      });
  }
  if (existing.primaryKey.join('\u0000') !== source.key.join('\u0000')) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState,
      `logical replication target relation ${qualifiedName(source)} is keyed by (${existing.primaryKey.join(', ')}), the source by (${source.key.join(', ')})`, {
        hint: 'Floe applies changes by key: the target table needs the source\'s key as its primary key.',
      });
  }
  return addMissingColumns(warehouse, existing, source.columns);
}

/** Adds the source columns the Floe table lacks (an added source column adds it in Floe), nullable, at the end. */
export async function addMissingColumns(warehouse: Warehouse, table: TableMetadata, columns: readonly SourceColumn[]): Promise<TableMetadata> {
  let t = table;
  for (const c of columns) {
    if (t.columns.some((x) => x.name === c.name)) continue;
    t = await warehouse.alterTable(t.namespace, t.name, { kind: 'addColumn', column: { name: c.name, type: c.type, nullable: true }, ifNotExists: true });
  }
  return t;
}
