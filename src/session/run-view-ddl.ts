import { isTempNamespaceName } from '../common/temp-namespace.js';
import type { SqlType } from '../common/sql-type.js';
import { FloeError } from '../common/floe-error.js';
import type { Notice } from '../common/session-handler.js';
import { SqlState } from '../common/sqlstate.js';
import type { TableMetadata, ViewMetadata, Warehouse } from '../lake/index.js';
import type { DdlCommand, ParsedStatement, TableName, TemporaryTableSpec } from '../sql/index.js';

type ViewDdl = Extract<DdlCommand, { kind: 'createView' | 'dropView' | 'alterView' | 'setTableSchema' | 'createTableAs' | 'comment' }>;

export interface ViewDdlIo {
  notice(n: Notice): void;
  /** Binds and runs an INSERT (CREATE TABLE AS's rows); returns the rows inserted. */
  fill(insert: ParsedStatement, paramTypes: readonly SqlType[] | undefined): Promise<number>;
  /** Checks CREATE TABLE … WITH (…) keys and values as CREATE TABLE does. */
  validateProperties(properties: Readonly<Record<string, string>>): void;
  readonly searchPath: readonly string[];
  /** A temporary table CREATE TEMP TABLE … AS made: its ON COMMIT action, known before its rows go in. */
  noteTemporary(table: TableMetadata, spec: TemporaryTableSpec): void;
}

const notice = (message: string, sqlstate = '00000', detail?: string): Notice => ({ severity: 'NOTICE', sqlstate, message, ...(detail ? { detail } : {}) });

/** Runs the DDL of views, derived tables, COMMENT ON and SET SCHEMA; returns the command tag. */
export async function runViewDdl(w: Warehouse, c: ViewDdl, io: ViewDdlIo): Promise<string> {
  switch (c.kind) {
    case 'createView':
      if (c.temporary === 'implied') {
        io.notice(notice(`view "${c.view.name}" will be a temporary view`));
        if (!isTempNamespaceName(c.view.namespace)) throw new FloeError('42P16', 'cannot create temporary relation in non-temporary schema');
      }
      await w.createView({
        namespace: c.view.namespace, name: c.view.name, definition: c.definition, columns: c.columns, searchPath: c.searchPath, dependsOn: c.dependsOn,
        ...(c.options === undefined ? {} : { options: c.options }),
      }, { orReplace: c.orReplace });
      return 'CREATE VIEW';
    case 'dropView': return dropViews(w, c, io);
    case 'alterView': {
      const v = w.getView(c.view.namespace, c.view.name);
      if (v === undefined) {
        if (w.getTable(c.view.namespace, c.view.name) !== undefined && c.tag === 'ALTER VIEW') {
          throw new FloeError(SqlState.wrongObjectType, `"${c.view.name}" is not a view`);
        }
        if (c.ifExists) { io.notice(notice(`relation "${c.view.name}" does not exist, skipping`)); return c.tag; }
        throw new FloeError(SqlState.undefinedTable, `relation "${c.writtenName ?? c.view.name}" does not exist`);
      }
      if (c.options !== undefined) {
        // New options, the same view otherwise: a replacement by its own definition.
        const { id: _id, ...definition } = v;
        await w.createView({ ...definition, options: c.options(v.options ?? []) }, { orReplace: true });
        return c.tag;
      }
      await w.moveView(v.id, { namespace: c.setSchema ?? v.namespace, name: c.rename ?? v.name });
      return c.tag;
    }
    case 'setTableSchema': {
      const t = w.getTable(c.table.namespace, c.table.name);
      if (t === undefined) {
        if (c.ifExists) { io.notice(notice(`relation "${c.table.name}" does not exist, skipping`)); return c.tag ?? 'ALTER TABLE'; }
        throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
      }
      await w.setTableNamespace(t.id, c.schema);
      return c.tag ?? 'ALTER TABLE';
    }
    case 'createTableAs': {
      const { namespace, name } = c.table;
      if (w.getTable(namespace, name) ?? w.getView(namespace, name) ?? w.getSequence(namespace, name)) {
        if (!c.ifNotExists) throw new FloeError(SqlState.duplicateTable, `relation "${name}" already exists`);
        io.notice(notice(`relation "${name}" already exists, skipping`, SqlState.duplicateTable));
        return 'CREATE TABLE AS';
      }
      io.validateProperties(c.properties);
      const created = await w.createTable({ namespace, name, columns: c.columns, primaryKey: c.primaryKey, partitionBy: [], properties: c.properties, constraints: [] });
      if (c.temporary !== undefined) io.noteTemporary(created, c.temporary);
      if (c.insert === undefined) return 'CREATE TABLE AS';
      try {
        return `SELECT ${await io.fill(c.insert, c.paramTypes)}`;
      } catch (e) {
        // Bad input leaves nothing behind: the table goes with the rows that failed.
        await w.dropTable(namespace, name, { ifExists: true }).catch(() => undefined);
        throw e;
      }
    }
    case 'comment': return comment(w, c);
  }
}

/** A view or materialized view and the relations it reads directly. */
interface DependentRelation {
  readonly id: number;
  readonly kind: 'view' | 'materialized view';
  readonly dependsOn: readonly number[];
}

function dependentRelations(w: Warehouse): DependentRelation[] {
  return [
    ...w.listViews().map((v): DependentRelation => ({ id: v.id, kind: 'view', dependsOn: v.dependsOn })),
    ...w.listMaterializedViews().map((m): DependentRelation => ({ id: m.tableId, kind: 'materialized view', dependsOn: m.dependsOn })),
  ];
}

/** Views and materialized views that read `ids`, directly or through others, in the order they would be dropped. */
export function viewsDependingOn(w: Warehouse, ids: readonly number[]): { view: DependentRelation; on: number }[] {
  const out: { view: DependentRelation; on: number }[] = [];
  const seen = new Set(ids);
  const views = dependentRelations(w);
  for (let i = 0, frontier = [...ids]; i < frontier.length; i++) {
    for (const v of views) {
      if (!seen.has(v.id) && v.dependsOn.includes(frontier[i]!)) {
        seen.add(v.id);
        out.push({ view: v, on: frontier[i]! });
        frontier.push(v.id);
      }
    }
  }
  return out;
}

/** PostgreSQL's object description: `view v`, `materialized view m`, `table s.t` (schema-qualified when search_path does not reach it; the temporary schema it always does). */
function describe(w: Warehouse, id: number, searchPath: readonly string[]): string {
  const v = w.getViewById(id);
  const t = v === undefined ? w.getTableById(id) : undefined;
  const namespace = v?.namespace ?? t?.namespace ?? '';
  const name = v?.name ?? t?.name ?? String(id);
  const visible = searchPath.includes(namespace) || isTempNamespaceName(namespace);
  const kind = v !== undefined ? 'view' : w.getMaterializedView(id) !== undefined ? 'materialized view' : 'table';
  return `${kind} ${visible ? name : `${namespace}.${name}`}`;
}

/**
 * DROP TABLE / DROP VIEW of relations that views read: 2BP01 without CASCADE, as
 * PostgreSQL refuses it; with CASCADE those views go first, with PostgreSQL's NOTICE.
 */
export async function dropViewsDependingOn(w: Warehouse, ids: readonly number[], cascade: boolean, io: Pick<ViewDdlIo, 'notice' | 'searchPath'>): Promise<void> {
  const dependents = viewsDependingOn(w, ids);
  if (dependents.length === 0) return;
  if (!cascade) {
    const detail = dependents.map((d) => `${describe(w, d.view.id, io.searchPath)} depends on ${describe(w, d.on, io.searchPath)}`).join('\n');
    throw new FloeError('2BP01', ids.length === 1
      ? `cannot drop ${describe(w, ids[0]!, io.searchPath)} because other objects depend on it`
      : 'cannot drop desired object(s) because other objects depend on them', {
      detail, hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
    });
  }
  const lines = dependents.map((d) => `drop cascades to ${describe(w, d.view.id, io.searchPath)}`);
  io.notice(lines.length === 1 ? notice(lines[0]!) : notice(`drop cascades to ${lines.length} other objects`, '00000', lines.join('\n')));
  for (const d of [...dependents].reverse()) {
    if (d.view.kind === 'view') await w.dropViews([d.view.id]);
    else {
      const t = w.getTableById(d.view.id);
      if (t !== undefined) await w.dropTable(t.namespace, t.name, { ifExists: true });
    }
  }
}

async function dropViews(w: Warehouse, c: Extract<ViewDdl, { kind: 'dropView' }>, io: ViewDdlIo): Promise<string> {
  const found: ViewMetadata[] = [];
  for (const t of c.views) {
    const v = w.getView(t.namespace, t.name);
    if (v !== undefined) { found.push(v); continue; }
    const table = w.getTable(t.namespace, t.name);
    if (table !== undefined) {
      const materialized = w.getMaterializedView(table.id) !== undefined;
      throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a view`, {
        hint: materialized ? 'Use DROP MATERIALIZED VIEW to remove a materialized view.' : 'Use DROP TABLE to remove a table.',
      });
    }
    if (!c.ifExists) throw new FloeError(SqlState.undefinedTable, `view "${t.name}" does not exist`);
    io.notice(notice(`view "${t.name}" does not exist, skipping`));
  }
  const ids = found.map((v) => v.id);
  await dropViewsDependingOn(w, ids, c.cascade, io);
  await w.dropViews(ids);
  return 'DROP VIEW';
}

/** Refuses DROP TABLE of a view, as PostgreSQL words it. */
export function checkNotView(w: Warehouse, tables: readonly TableName[]): void {
  for (const t of tables) {
    const table = w.getTable(t.namespace, t.name);
    if (table === undefined && w.getView(t.namespace, t.name) !== undefined) {
      throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a table`, { hint: 'Use DROP VIEW to remove a view.' });
    }
    if (table !== undefined && w.getMaterializedView(table.id) !== undefined) {
      throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a table`, { hint: 'Use DROP MATERIALIZED VIEW to remove a materialized view.' });
    }
  }
}

async function comment(w: Warehouse, c: Extract<ViewDdl, { kind: 'comment' }>): Promise<string> {
  const { namespace, name } = c.relation;
  const table = w.getTable(namespace, name);
  const view = table === undefined ? w.getView(namespace, name) : undefined;
  if (table === undefined && view === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${name}" does not exist`);
  if (c.objectKind === 'table' && table === undefined) throw new FloeError(SqlState.wrongObjectType, `"${name}" is not a table`);
  if (c.objectKind === 'view' && view === undefined) throw new FloeError(SqlState.wrongObjectType, `"${name}" is not a view`);
  if (c.objectKind === 'materialized view' && (table === undefined || w.getMaterializedView(table.id) === undefined)) {
    throw new FloeError(SqlState.wrongObjectType, `"${name}" is not a materialized view`);
  }
  const id = table?.id ?? view!.id;
  let subId = 0;
  if (c.column !== undefined) {
    const columns: readonly { name: string }[] = table?.columns ?? view!.columns;
    subId = columns.findIndex((x) => x.name === c.column) + 1;
    if (subId === 0) throw new FloeError(SqlState.undefinedColumn, `column "${c.column}" of relation "${name}" does not exist`);
  }
  await w.setComment(id, subId, c.text);
  return 'COMMENT';
}
