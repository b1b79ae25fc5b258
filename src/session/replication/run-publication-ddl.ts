import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { mergeEngineOf } from '../../lake/index.js';
import type { PublicationMetadata, TableMetadata, Warehouse } from '../../lake/index.js';
import type { PublicationDdl, PublicationTableRef } from '../../sql/index.js';

/**
 * CREATE / ALTER / DROP PUBLICATION with PostgreSQL's checks and messages: the tables must
 * be permanent tables (not views, not temporary), an ALTER of a FOR ALL TABLES publication
 * is refused, and DROP checks every name before it drops any.
 */
export function runPublicationDdl(warehouse: Warehouse, c: PublicationDdl, notice: (message: string) => void): string {
  const replication = warehouse.replication;
  const find = (name: string): PublicationMetadata | undefined => replication.listPublications().find((p) => p.name === name);
  switch (c.kind) {
    case 'createPublication': {
      if (find(c.name) !== undefined) throw new FloeError(SqlState.duplicateObject, `publication "${c.name}" already exists`);
      const ids = [...new Set(c.tables.map((t) => publishableTable(warehouse, t).id))];
      replication.createPublication({ name: c.name, allTables: c.allTables, publish: c.publish, tableIds: ids });
      return 'CREATE PUBLICATION';
    }
    case 'alterPublication': {
      const pub = find(c.name);
      if (pub === undefined) throw new FloeError(SqlState.undefinedObject, `publication "${c.name}" does not exist`);
      if (c.action === 'options') {
        if (c.publish !== undefined) replication.setPublicationActions(pub.oid, c.publish);
        return 'ALTER PUBLICATION';
      }
      if (pub.allTables) {
        throw new FloeError(SqlState.objectNotInPrerequisiteState, `publication "${c.name}" is defined as FOR ALL TABLES`, {
          detail: 'Tables cannot be added to or dropped from FOR ALL TABLES publications.',
        });
      }
      const members = new Set(pub.tableIds);
      const named = c.tables.map((t) => ({ ref: t, table: c.action === 'drop' ? existingTable(warehouse, t) : publishableTable(warehouse, t) }));
      if (c.action === 'add') {
        for (const { ref, table } of named) {
          if (members.has(table.id)) throw new FloeError(SqlState.duplicateObject, `relation "${ref.table.name}" is already member of publication "${c.name}"`);
          members.add(table.id);
        }
      } else if (c.action === 'drop') {
        for (const { ref, table } of named) {
          if (!members.has(table.id)) throw new FloeError(SqlState.undefinedObject, `relation "${ref.table.name}" is not part of the publication`);
          members.delete(table.id);
        }
      } else {
        members.clear();
        for (const { table } of named) members.add(table.id);
      }
      replication.setPublicationTables(pub.oid, [...members]);
      return 'ALTER PUBLICATION';
    }
    case 'dropPublication': {
      const present = c.names.filter((n) => find(n) !== undefined);
      for (const n of c.names) {
        if (find(n) !== undefined) continue;
        if (!c.ifExists) throw new FloeError(SqlState.undefinedObject, `publication "${n}" does not exist`);
        notice(`publication "${n}" does not exist, skipping`);
      }
      for (const n of present) replication.dropPublication(n);
      return 'DROP PUBLICATION';
    }
  }
}

function existingTable(warehouse: Warehouse, ref: PublicationTableRef): TableMetadata {
  const table = warehouse.getTable(ref.table.namespace, ref.table.name);
  if (table !== undefined) return table;
  if (warehouse.getView(ref.table.namespace, ref.table.name) !== undefined) {
    throw new FloeError(SqlState.invalidParameterValue, `cannot add relation "${ref.table.name}" to publication`, { detail: 'This operation is not supported for views.' });
  }
  throw new FloeError(SqlState.undefinedTable, `relation "${ref.written}" does not exist`);
}

function publishableTable(warehouse: Warehouse, ref: PublicationTableRef): TableMetadata {
  const table = existingTable(warehouse, ref);
  if (table.namespace.startsWith('pg_temp')) {
    throw new FloeError(SqlState.invalidParameterValue, `cannot add relation "${ref.table.name}" to publication`, { detail: 'This operation is not supported for temporary tables.' });
  }
  const engine = mergeEngineOf(table).kind;
  if (engine !== 'deduplicate') {
    // Its change rows are the rows written (a partial row, an increment), not what the key holds after.
    throw new FloeError(SqlState.featureNotSupported, `cannot add relation "${ref.table.name}" to publication`, {
      detail: `Tables with merge-engine "${engine}" cannot be published yet: their changes are the rows written, not the combined rows.`,
    });
  }
  return table;
}
