import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, TableRecord } from '../catalog/catalog.js';
import type { AlterTableChange, ColumnMetadata, TableConstraint } from './table-metadata.js';

/** The columns a constraint names (a CHECK's are inside its expression, which src/lake does not parse). */
function constraintColumns(c: TableConstraint): readonly string[] {
  return c.kind === 'check' ? [] : c.columns;
}

/**
 * Schema and property changes. Columns keep their field id across renames; a dropped
 * column's id is never reused, so old files simply stop showing it.
 */
export function alterTableRecord(catalog: Catalog, t: TableRecord, change: AlterTableChange): TableRecord {
  const find = (name: string): ColumnMetadata | undefined => t.columns.find((c) => c.name === name);
  switch (change.kind) {
    case 'addColumn': {
      if (find(change.column.name) !== undefined) {
        if (change.ifNotExists === true) return t;
        throw new FloeError(SqlState.duplicateColumn, `column "${change.column.name}" of relation "${t.name}" already exists`);
      }
      if (change.column.name.startsWith('_')) throw new FloeError(SqlState.invalidParameterValue, `column name "${change.column.name}" is reserved`);
      if (!change.column.nullable && change.column.defaultExpr === undefined) {
        throw new FloeError('23502', `column "${change.column.name}" of relation "${t.name}" contains null values`, {
          hint: 'Existing rows read the new column as NULL; add it as nullable.',
        });
      }
      const col: ColumnMetadata = { ...change.column, fieldId: t.nextFieldId };
      return catalog.updateTable(t.id, { columns: [...t.columns, col], nextFieldId: t.nextFieldId + 1 });
    }
    case 'dropColumn': {
      if (find(change.name) === undefined) {
        if (change.ifExists === true) return t;
        throw new FloeError(SqlState.undefinedColumn, `column "${change.name}" of relation "${t.name}" does not exist`);
      }
      if (t.primaryKey.includes(change.name)) throw new FloeError('2BP01', `cannot drop column "${change.name}": it is part of the primary key`);
      if (t.partitionBy.some((p) => p.sourceColumn === change.name)) throw new FloeError('2BP01', `cannot drop column "${change.name}": the table is partitioned by it`);
      if (t.columns.length === 1) throw new FloeError(SqlState.invalidParameterValue, 'cannot drop the only column of a table');
      // A UNIQUE constraint on the column goes with it, as its index does in PostgreSQL.
      return catalog.updateTable(t.id, {
        columns: t.columns.filter((c) => c.name !== change.name),
        constraints: t.constraints.filter((c) => c.kind !== 'unique' || !c.columns.includes(change.name)),
      });
    }
    case 'renameColumn': {
      if (find(change.from) === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${change.from}" of relation "${t.name}" does not exist`);
      if (find(change.to) !== undefined) throw new FloeError(SqlState.duplicateColumn, `column "${change.to}" of relation "${t.name}" already exists`);
      if (t.primaryKey.includes(change.from) || t.partitionBy.some((p) => p.sourceColumn === change.from)) {
        throw new FloeError(SqlState.featureNotSupported, `renaming key or partition column "${change.from}" is not supported`);
      }
      return catalog.updateTable(t.id, {
        columns: t.columns.map((c) => (c.name === change.from ? { ...c, name: change.to } : c)),
        // UNIQUE constraints name their columns.
        constraints: t.constraints.map((c) => (c.kind === 'unique' ? { ...c, columns: c.columns.map((n) => (n === change.from ? change.to : n)) } : c)),
      });
    }
    case 'renameTable':
      return catalog.updateTable(t.id, { name: change.to });
    case 'setProperties': {
      const size = change.properties['write.target-file-size'];
      if (size !== undefined && !(Number(size) > 0)) throw new FloeError(SqlState.invalidParameterValue, `invalid value for write.target-file-size: "${size}"`);
      return catalog.updateTable(t.id, { properties: { ...t.properties, ...change.properties } });
    }
    case 'addConstraint': {
      const name = change.constraint.name;
      if (t.constraints.some((c) => c.name === name)) {
        throw new FloeError(SqlState.duplicateObject, `constraint "${name}" for relation "${t.name}" already exists`);
      }
      for (const col of constraintColumns(change.constraint)) {
        if (find(col) === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${col}" named in key does not exist`);
      }
      return catalog.updateTable(t.id, { constraints: [...t.constraints, change.constraint] });
    }
    case 'dropConstraint': {
      if (!t.constraints.some((c) => c.name === change.name)) {
        if (change.ifExists === true) return t;
        throw new FloeError(SqlState.undefinedObject, `constraint "${change.name}" of relation "${t.name}" does not exist`);
      }
      return catalog.updateTable(t.id, { constraints: t.constraints.filter((c) => c.name !== change.name) });
    }
    case 'resetProperties': {
      const props: Record<string, string> = { ...t.properties };
      for (const k of change.keys) delete props[k];
      return catalog.updateTable(t.id, { properties: props });
    }
  }
}
