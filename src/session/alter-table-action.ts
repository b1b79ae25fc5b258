import { FloeError } from '../common/floe-error.js';
import { formatType, type SqlType } from '../common/sql-type.js';
import { SqlState } from '../common/sqlstate.js';
import { alterColumnMetadata, encodeInitialDefault } from '../lake/index.js';
import type { TableConstraint, TableMetadata, Warehouse } from '../lake/index.js';
import type { AlterTableAction } from '../sql/index.js';
import { addUniqueConstraint } from './unique-ddl.js';

/** What applying an ALTER TABLE action needs from the session. */
export interface AlterTableIo {
  /** A column DEFAULT's value, evaluated once. */
  evalDefault(expr: string, type: SqlType): Promise<unknown>;
  /** True when the query (over the table as this session sees it) returns a row. */
  anyRow(sql: string): Promise<boolean>;
  notice(message: string): void;
}

/** The ALTER TABLE actions the lake applies (refs are the session's). */
export type LakeAlterAction = Exclude<AlterTableAction, { kind: 'createRef' | 'dropRef' }>;

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function relation(t: TableMetadata): string {
  return `${ident(t.namespace)}.${ident(t.name)}`;
}

/** The notice a recorded foreign key gets: Floe keeps it for tools (joins) but never checks it. */
export function foreignKeyNotice(c: TableConstraint): string | undefined {
  return c.kind === 'foreignKey' ? `foreign key constraint "${c.name}" is recorded but not enforced` : undefined;
}

/** Columns an action adds, drops, renames or changes: a later action over one of them is checked only when it is applied. */
function columnsTouched(a: LakeAlterAction): string[] {
  switch (a.kind) {
    case 'addColumn': return [a.column.name];
    case 'dropColumn': return [a.name];
    case 'renameColumn': return [a.from, a.to];
    case 'alterColumn': return [a.name];
    default: return [];
  }
}

function columnsRead(a: LakeAlterAction): string[] {
  if (a.kind === 'alterColumn') return [a.name];
  if (a.kind === 'addConstraint' && a.constraint.kind === 'check') return [...(a.constraint.columns ?? [])];
  return [];
}

/**
 * Checks every action of one ALTER TABLE against the table as it stands, before any is
 * applied, so a statement that fails changes nothing (as in PostgreSQL) wherever the
 * failing action does not depend on an earlier one of the same statement. Returns the
 * actions checked; the others are checked as they are applied.
 */
export async function checkAlterTableActions(t: TableMetadata, actions: readonly LakeAlterAction[], io: AlterTableIo): Promise<Set<LakeAlterAction>> {
  const checked = new Set<LakeAlterAction>();
  const touched = new Set<string>();
  // Columns added by earlier actions, untouched since: a CHECK over them sees them with their default.
  const added: ColumnAdded[] = [];
  for (const a of actions) {
    if (!columnsRead(a).some((c) => touched.has(c)) && !(a.kind === 'addColumn' && (touched.has(a.column.name) || added.some((x) => x.name === a.column.name)))) {
      await checkAction(t, a, io, added);
      checked.add(a);
    }
    if (a.kind === 'addColumn' && !t.columns.some((c) => c.name === a.column.name)) added.push(a.column);
    else for (const c of columnsTouched(a)) touched.add(c);
  }
  return checked;
}

type ColumnAdded = Extract<LakeAlterAction, { kind: 'addColumn' }>['column'];

/** The table's rows as they will read with `added` columns (each existing row has the column's default). */
function rowsWith(t: TableMetadata, added: readonly ColumnAdded[]): string {
  if (added.length === 0) return relation(t);
  const cols = added.map((c) => `CAST(${c.defaultExpr === undefined ? 'NULL' : `(${c.defaultExpr})`} AS ${formatType(c.type)}) AS ${ident(c.name)}`);
  return `(SELECT *, ${cols.join(', ')} FROM ${relation(t)}) AS ${ident(t.name)}`;
}

/** What an action checks before it changes anything: existing rows (23502, 23514) and the column change itself (0A000, 42P16). */
async function checkAction(t: TableMetadata, a: LakeAlterAction, io: AlterTableIo, added: readonly ColumnAdded[] = []): Promise<void> {
  switch (a.kind) {
    case 'addColumn': {
      const col = a.column;
      if (t.columns.some((c) => c.name === col.name)) return;
      const value = col.defaultExpr === undefined ? null : await io.evalDefault(col.defaultExpr, col.type);
      if (value === null && !col.nullable && await io.anyRow(`SELECT 1 FROM ${relation(t)} LIMIT 1`)) {
        throw new FloeError(SqlState.notNullViolation, `column "${col.name}" of relation "${t.name}" contains null values`);
      }
      // The rows as they will read: every existing one has the initial default in the new column.
      for (const c of a.constraints ?? []) if (c.kind === 'check') await checkExistingRows(t, c, rowsWith(t, [...added, col]), io);
      return;
    }
    case 'alterColumn': {
      const col = t.columns.find((c) => c.name === a.name);
      if (col === undefined) return;
      alterColumnMetadata(t, col, a);
      if (a.nullable === false && await io.anyRow(`SELECT 1 FROM ${relation(t)} WHERE ${ident(a.name)} IS NULL LIMIT 1`)) {
        throw new FloeError(SqlState.notNullViolation, `column "${a.name}" of relation "${t.name}" contains null values`);
      }
      return;
    }
    case 'addConstraint':
      if (a.constraint.kind === 'check') await checkExistingRows(t, a.constraint, rowsWith(t, added), io);
      return;
    default:
      return;
  }
}

/**
 * Applies one ALTER TABLE action, checking existing rows first (unless
 * checkAlterTableActions did): ADD COLUMN … NOT NULL and SET NOT NULL (23502), ADD CHECK
 * and ADD COLUMN … CHECK (23514). ADD COLUMN … DEFAULT records the default's value as
 * the column's initial default, which rows written before it read (no file is rewritten).
 */
export async function applyAlterTableAction(w: Warehouse, t: TableMetadata, a: LakeAlterAction, io: AlterTableIo, checked = false): Promise<TableMetadata> {
  if (!checked) await checkAction(t, a, io);
  switch (a.kind) {
    case 'addColumn': {
      const col = a.column;
      if (t.columns.some((c) => c.name === col.name)) {
        if (a.ifNotExists === true) {
          io.notice(`column "${col.name}" of relation "${t.name}" already exists, skipping`);
          return t;
        }
        return w.alterTable(t.namespace, t.name, { kind: 'addColumn', column: col });
      }
      const value = col.defaultExpr === undefined ? null : await io.evalDefault(col.defaultExpr, col.type);
      let out = await w.alterTable(t.namespace, t.name, {
        kind: 'addColumn', column: { ...col, ...(value === null ? {} : { initialDefault: encodeInitialDefault(value, col.type) }) },
      });
      for (const c of a.constraints ?? []) out = await addConstraint(w, out, c, io);
      return out;
    }
    case 'addConstraint':
      return addConstraint(w, t, a.constraint, io);
    case 'addUnique':
      return addUniqueConstraint(w, t, a.spec);
    case 'dropConstraint': {
      // An index made by CREATE UNIQUE INDEX has no constraint of its name (DROP INDEX removes it).
      const found = t.constraints.some((c) => c.name === a.name && !(c.kind === 'unique' && c.indexOnly === true))
        || (t.primaryKey.length > 0 && a.name === `${t.name}_pkey`);
      if (!found) {
        if (!a.ifExists) throw new FloeError(SqlState.undefinedObject, `constraint "${a.name}" of relation "${t.name}" does not exist`);
        io.notice(`constraint "${a.name}" of relation "${t.name}" does not exist, skipping`);
        return t;
      }
      if (t.primaryKey.length > 0 && a.name === `${t.name}_pkey`) refuseWhileReferenced(w, t, a.name);
      return w.alterTable(t.namespace, t.name, a);
    }
    default:
      return w.alterTable(t.namespace, t.name, a);
  }
}

async function addConstraint(w: Warehouse, t: TableMetadata, c: TableConstraint, io: AlterTableIo): Promise<TableMetadata> {
  const out = await w.alterTable(t.namespace, t.name, { kind: 'addConstraint', constraint: c });
  const notice = foreignKeyNotice(c);
  if (notice !== undefined) io.notice(notice);
  return out;
}

async function checkExistingRows(t: TableMetadata, c: Extract<TableConstraint, { kind: 'check' }>, rows: string, io: AlterTableIo): Promise<void> {
  // NULL passes a CHECK (three-valued logic): only a false row violates it.
  if (await io.anyRow(`SELECT 1 FROM ${rows} WHERE NOT (${c.expr}) LIMIT 1`)) {
    throw new FloeError(SqlState.checkViolation, `check constraint "${c.name}" of relation "${t.name}" is violated by some row`);
  }
}

/**
 * DROP CONSTRAINT of a primary key that foreign keys reference: 2BP01 with PostgreSQL's
 * words (they depend on its index). Not yet: CASCADE, which the action does not carry.
 */
function refuseWhileReferenced(w: Warehouse, t: TableMetadata, name: string): void {
  const dependents = w.listTables().flatMap((o) => o.constraints
    .filter((c) => c.kind === 'foreignKey' && c.refNamespace === t.namespace && c.refTable === t.name
      && c.refColumns.length === t.primaryKey.length && c.refColumns.every((k) => t.primaryKey.includes(k)))
    .map((c) => `constraint ${c.name} on table ${o.name} depends on index ${name}`));
  if (dependents.length === 0) return;
  throw new FloeError('2BP01', `cannot drop constraint ${name} on table ${t.name} because other objects depend on it`, {
    detail: dependents.join('\n'), hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
  });
}
