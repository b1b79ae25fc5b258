import { FloeError } from '../../common/floe-error.js';
import { checkChangelogFitsEngine, checkChangelogProperty } from './changelog-properties.js';
import { checkLogProperty } from './log-properties.js';
import { checkIcebergProperty } from './iceberg-properties.js';
import { checkOptimizingProperty } from './optimizing-properties.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, TableRecord } from '../catalog/catalog.js';
import { alterColumnMetadata } from './alter-column.js';
import { isMergeEngineProperty, mergeEngineColumns, mergeEngineOf } from '../merge/merge-engine.js';
import type { AlterTableChange, ColumnMetadata, IndexKey, TableConstraint } from './table-metadata.js';

/** The columns a constraint names (a CHECK's as the binder found them in its expression). */
function constraintColumns(c: TableConstraint): readonly string[] {
  if (c.kind === 'check') return c.columns ?? [];
  if (c.kind === 'index') return [...c.columns, ...(c.include ?? []), ...(c.expressionColumns ?? [])];
  return c.kind === 'unique' ? [...c.columns, ...(c.include ?? [])] : c.columns;
}

/** A constraint after a column rename: its column lists follow, and a CHECK takes its rewritten text. */
function renamedConstraint(t: TableRecord, c: TableConstraint, from: string, to: string, checkExprs: Readonly<Record<string, string>> | undefined): TableConstraint {
  const rename = (cols: readonly string[]): string[] => cols.map((x) => (x === from ? to : x));
  if (c.kind === 'foreignKey') {
    const self = c.refNamespace === t.namespace && c.refTable === t.name;
    return { ...c, columns: rename(c.columns), ...(self ? { refColumns: rename(c.refColumns) } : {}) };
  }
  if (c.kind === 'index' && c.expressionColumns?.includes(from)) {
    // The expression and predicate are SQL text, which src/lake does not rewrite.
    throw new FloeError(SqlState.featureNotSupported, `cannot rename column "${from}": index "${c.name}" reads it in an expression or predicate`);
  }
  const renameKeys = (keys: readonly IndexKey[] | undefined) => (keys === undefined ? {} : { keys: keys.map((k) => (k.column === from ? { ...k, column: to } : k)) });
  if (c.kind === 'index' || c.kind === 'unique') {
    return { ...c, columns: rename(c.columns), ...renameKeys(c.keys), ...(c.include !== undefined ? { include: rename(c.include) } : {}) };
  }
  const expr = checkExprs?.[c.name] ?? c.expr;
  return { ...c, expr, ...(c.columns !== undefined ? { columns: rename(c.columns) } : {}) };
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
      // A NOT NULL column without an initial default is for an empty table: the caller
      // (the session) has counted the rows and raised 23502 otherwise, as PostgreSQL does.
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
      refuseEngineColumn(t, change.name, 'drop');
      // Constraints over the column go with it, as in PostgreSQL.
      const constraints = t.constraints.filter((c) => !constraintColumns(c).includes(change.name));
      return catalog.updateTable(t.id, {
        columns: t.columns.filter((c) => c.name !== change.name),
        ...(constraints.length !== t.constraints.length ? { constraints } : {}),
      });
    }
    case 'alterColumn': {
      const col = find(change.name);
      if (col === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${change.name}" of relation "${t.name}" does not exist`);
      const next = alterColumnMetadata(t, col, change);
      mergeEngineOf({ ...t, columns: t.columns.map((c) => (c.name === change.name ? next : c)) });
      return catalog.updateTable(t.id, { columns: t.columns.map((c) => (c.name === change.name ? next : c)) });
    }
    case 'renameColumn': {
      if (find(change.from) === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${change.from}" of relation "${t.name}" does not exist`);
      if (find(change.to) !== undefined) throw new FloeError(SqlState.duplicateColumn, `column "${change.to}" of relation "${t.name}" already exists`);
      if (t.primaryKey.includes(change.from) || t.partitionBy.some((p) => p.sourceColumn === change.from)) {
        throw new FloeError(SqlState.featureNotSupported, `renaming key or partition column "${change.from}" is not supported`);
      }
      refuseEngineColumn(t, change.from, 'rename');
      const constraints = t.constraints.map((c) => renamedConstraint(t, c, change.from, change.to, change.checkExprs));
      return catalog.updateTable(t.id, { columns: t.columns.map((c) => (c.name === change.from ? { ...c, name: change.to } : c)), constraints });
    }
    case 'renameTable': {
      let out = catalog.updateTable(t.id, { name: change.to });
      // Foreign keys name the tables they reference: they follow the rename, as PostgreSQL's (by OID) do.
      const refersHere = (c: TableConstraint) => c.kind === 'foreignKey' && c.refNamespace === t.namespace && c.refTable === t.name;
      for (const o of catalog.listTables()) {
        if (!o.constraints.some(refersHere)) continue;
        const updated = catalog.updateTable(o.id, { constraints: o.constraints.map((c) => (refersHere(c) ? { ...c, refTable: change.to } : c)) });
        if (o.id === t.id) out = updated;
      }
      return out;
    }
    case 'setProperties': {
      for (const [key, value] of Object.entries(change.properties)) { checkOptimizingProperty(key, value); checkLogProperty(key, value); checkChangelogProperty(key, value); checkIcebergProperty(key, value); }
      const properties = { ...t.properties, ...change.properties };
      checkEngineChange(catalog, t, properties);
      checkChangelogFitsEngine({ properties }, mergeEngineOf({ ...t, properties }).kind);
      return catalog.updateTable(t.id, { properties });
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
    case 'renameConstraint': {
      // A unique index made by CREATE UNIQUE INDEX is no constraint (ALTER INDEX renames it).
      if (!t.constraints.some((c) => c.name === change.from && !(c.kind === 'unique' && c.indexOnly === true))) {
        throw new FloeError(SqlState.undefinedObject, `constraint "${change.from}" for table "${t.name}" does not exist`);
      }
      if (t.constraints.some((c) => c.name === change.to)) {
        throw new FloeError(SqlState.duplicateObject, `constraint "${change.to}" for relation "${t.name}" already exists`);
      }
      return catalog.updateTable(t.id, { constraints: t.constraints.map((c) => (c.name === change.from ? { ...c, name: change.to } : c)) });
    }
    case 'addPrimaryKey':
      // A rewrite, not a record change: the warehouse runs it (rewrite-table-layout.ts).
      throw new FloeError(SqlState.internalError, 'ADD PRIMARY KEY is a table rewrite');
    case 'resetProperties': {
      const props: Record<string, string> = { ...t.properties };
      for (const k of change.keys) delete props[k];
      checkEngineChange(catalog, t, props);
      checkChangelogFitsEngine({ properties: props }, mergeEngineOf({ ...t, properties: props }).kind);
      return catalog.updateTable(t.id, { properties: props });
    }
  }
}

/**
 * The merge engine's properties may change only while the table has no rows: rows already
 * written were combined (folded) by the old engine's rules, and the new one would read
 * them differently (docs/design-notes.md, "Merge engines").
 */
function checkEngineChange(catalog: Catalog, t: TableRecord, next: Readonly<Record<string, string>>): void {
  const keys = new Set([...Object.keys(t.properties), ...Object.keys(next)].filter(isMergeEngineProperty));
  const changed = [...keys].filter((k) => t.properties[k] !== next[k]);
  if (changed.length === 0) return;
  // the same engine spelled differently (an explicit 'deduplicate' set or reset) changes nothing
  if (JSON.stringify(mergeEngineOf({ ...t, properties: next })) === JSON.stringify(mergeEngineOf(t))) return;
  if (catalog.allFiles(t.id).some((f) => f.rowCount > 0)) {
    throw new FloeError(SqlState.featureNotSupported, `cannot change ${changed.map((k) => `"${k}"`).join(', ')} of table "${t.name}" after rows were written to it`, {
      detail: 'Rows already written were combined by the table\'s current merge engine.',
      hint: 'Create a new table with the merge engine you want and copy the rows into it with INSERT … SELECT.',
    });
  }
}

/** A column the merge engine's properties name can be neither dropped nor renamed (they name it as text). */
function refuseEngineColumn(t: TableRecord, column: string, what: 'drop' | 'rename'): void {
  const key = mergeEngineColumns(t.properties).get(column);
  if (key === undefined) return;
  throw new FloeError(what === 'drop' ? '2BP01' : SqlState.featureNotSupported, `cannot ${what} column "${column}": table property "${key}" names it`, {
    hint: 'The merge engine combines rows by the column; its properties can be reset while the table has no rows.',
  });
}
