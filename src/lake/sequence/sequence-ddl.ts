import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Catalog, SequenceRecord, TableRecord } from '../catalog/catalog.js';
import type { ColumnMetadata } from '../table/table-metadata.js';
import type { SequenceChange, SequenceDefinition, SequenceMetadata, SequenceOwner } from './sequence-metadata.js';
import { resolveSequenceParameters } from './sequence-parameters.js';
import type { SequenceValues } from './sequence-values.js';

/** The DEFAULT text of a serial column: nextval of its sequence by oid, so renaming the sequence or its schema keeps it. */
export function sequenceDefaultExpr(sequenceId: number): string {
  return `nextval(${sequenceId}::regclass)`;
}

/** The sequence id a DEFAULT text calls nextval on, when it is exactly sequenceDefaultExpr's form. */
export function sequenceOfDefault(expr: string | undefined): number | undefined {
  const m = expr === undefined ? null : /^nextval\((\d+)::regclass\)$/.exec(expr.trim());
  return m ? Number(m[1]) : undefined;
}

export function toSequenceMetadata(r: SequenceRecord): SequenceMetadata {
  const { generation: _g, ...rest } = r;
  return rest;
}

function resolveOwner(catalog: Catalog, o: NonNullable<SequenceDefinition['ownedBy']>, sequenceNamespace: string): SequenceOwner {
  const t = catalog.getTable(o.namespace, o.table);
  if (t === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${o.table}" does not exist`);
  if (t.namespace !== sequenceNamespace) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState, 'sequence must be in same schema as table it is linked to');
  }
  const c = t.columns.find((x) => x.name === o.column);
  if (c === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${o.column}" of relation "${o.table}" does not exist`);
  return { tableId: t.id, fieldId: c.fieldId };
}

export function createSequence(catalog: Catalog, def: SequenceDefinition, ifNotExists: boolean): { sequence: SequenceMetadata | undefined; created: boolean } {
  if (def.options.restart !== undefined) throw new FloeError(SqlState.syntaxError, 'RESTART is only allowed in ALTER SEQUENCE');
  const { params } = resolveSequenceParameters(def.options, undefined);
  const ownedBy = def.ownedBy === undefined ? undefined : resolveOwner(catalog, def.ownedBy, def.namespace);
  const r = catalog.createSequence({ namespace: def.namespace, name: def.name, params, ...(ownedBy ? { ownedBy } : {}) }, ifNotExists);
  return { sequence: r.sequence === undefined ? undefined : toSequenceMetadata(r.sequence), created: r.created };
}

export function alterSequence(catalog: Catalog, values: SequenceValues, s: SequenceRecord, change: SequenceChange): SequenceMetadata {
  switch (change.kind) {
    case 'options': {
      const { params, restartAt } = resolveSequenceParameters(change.options, s);
      values.forget(s.id);
      return toSequenceMetadata(catalog.updateSequence(s.id, { params, ...(restartAt !== undefined ? { restartAt } : {}) }));
    }
    case 'rename':
      return toSequenceMetadata(catalog.updateSequence(s.id, { name: change.to }));
    case 'ownedBy':
      return toSequenceMetadata(catalog.updateSequence(s.id, { ownedBy: change.owner === null ? null : resolveOwner(catalog, change.owner, s.namespace) }));
  }
}

/** What depends on a sequence: identity columns (which require it) and column defaults that call nextval on it. */
function dependents(catalog: Catalog, id: number): { identity: { table: TableRecord; column: ColumnMetadata } | undefined; defaults: { table: TableRecord; column: ColumnMetadata }[] } {
  let identity: { table: TableRecord; column: ColumnMetadata } | undefined;
  const defaults: { table: TableRecord; column: ColumnMetadata }[] = [];
  for (const t of catalog.listTables()) {
    for (const c of t.columns) {
      if (c.identity?.sequenceId === id) identity = { table: t, column: c };
      if (sequenceOfDefault(c.defaultExpr) === id) defaults.push({ table: t, column: c });
    }
  }
  return { identity, defaults };
}

/**
 * DROP SEQUENCE: refused (2BP01) while an identity column needs it or, without CASCADE, while
 * a default calls it; CASCADE drops those defaults. Returns PostgreSQL's NOTICE lines for them.
 */
export function dropSequence(catalog: Catalog, values: SequenceValues, s: SequenceRecord, cascade: boolean): string[] {
  const { identity, defaults } = dependents(catalog, s.id);
  if (identity !== undefined) {
    throw new FloeError('2BP01', `cannot drop sequence ${s.name} because column ${identity.column.name} of table ${identity.table.name} requires it`, {
      hint: `You can drop column ${identity.column.name} of table ${identity.table.name} instead.`,
    });
  }
  const described = defaults.map((d) => `default value for column ${d.column.name} of table ${d.table.name}`);
  if (defaults.length > 0 && !cascade) {
    throw new FloeError('2BP01', `cannot drop sequence ${s.name} because other objects depend on it`, {
      detail: described.map((x) => `${x} depends on sequence ${s.name}`).join('\n'),
      hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
    });
  }
  for (const d of defaults) {
    const t = catalog.getTableById(d.table.id)!;
    catalog.updateTable(t.id, {
      columns: t.columns.map((c) => (c.fieldId === d.column.fieldId ? withoutDefault(c) : c)),
    });
  }
  values.forget(s.id);
  catalog.dropSequence(s.id);
  return described.length === 1 ? [`drop cascades to ${described[0]}`]
    : described.length > 1 ? [`drop cascades to ${described.length} other objects`] : [];
}

function withoutDefault(c: ColumnMetadata): ColumnMetadata {
  const { defaultExpr: _d, ...rest } = c;
  return rest;
}

/** Sequences owned by columns a table no longer has (DROP COLUMN) go with them, as in PostgreSQL. */
export function dropOrphanedSequences(catalog: Catalog, values: SequenceValues, t: TableRecord): void {
  const fields = new Set(t.columns.map((c) => c.fieldId));
  for (const s of catalog.listSequences(t.namespace)) {
    if (s.ownedBy?.tableId === t.id && !fields.has(s.ownedBy.fieldId)) {
      values.forget(s.id);
      catalog.dropSequence(s.id);
    }
  }
}
