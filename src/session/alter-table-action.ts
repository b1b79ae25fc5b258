import { FloeError } from '../common/floe-error.js';
import { formatType, type SqlType } from '../common/sql-type.js';
import { SqlState } from '../common/sqlstate.js';
import { encodeInitialDefault } from '../lake/index.js';
import type { TableConstraint, TableMetadata, Warehouse } from '../lake/index.js';
import type { AlterTableAction } from '../sql/index.js';

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

/**
 * Applies one ALTER TABLE action, checking existing rows first where PostgreSQL does:
 * ADD COLUMN … NOT NULL and SET NOT NULL (23502), ADD CHECK and ADD COLUMN … CHECK
 * (23514). ADD COLUMN … DEFAULT records the default's value as the column's initial
 * default, which rows written before it read (no file is rewritten).
 */
export async function applyAlterTableAction(w: Warehouse, t: TableMetadata, a: LakeAlterAction, io: AlterTableIo): Promise<TableMetadata> {
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
      if (value === null && !col.nullable && await io.anyRow(`SELECT 1 FROM ${relation(t)} LIMIT 1`)) {
        throw new FloeError(SqlState.notNullViolation, `column "${col.name}" of relation "${t.name}" contains null values`);
      }
      const checks = (a.constraints ?? []).filter((c) => c.kind === 'check');
      if (checks.length > 0) {
        // The rows as they will read: every existing one has the initial default in the new column.
        const typed = `CAST(${col.defaultExpr === undefined ? 'NULL' : `(${col.defaultExpr})`} AS ${formatType(col.type)})`;
        const rows = `(SELECT *, ${typed} AS ${ident(col.name)} FROM ${relation(t)}) AS ${ident(t.name)}`;
        for (const c of checks) await checkExistingRows(t, c, rows, io);
      }
      let out = await w.alterTable(t.namespace, t.name, {
        kind: 'addColumn', column: { ...col, ...(value === null ? {} : { initialDefault: encodeInitialDefault(value, col.type) }) },
      });
      for (const c of a.constraints ?? []) out = await addConstraint(w, out, c, io, false);
      return out;
    }
    case 'alterColumn': {
      if (a.nullable === false) {
        const col = t.columns.find((c) => c.name === a.name);
        if (col !== undefined && await io.anyRow(`SELECT 1 FROM ${relation(t)} WHERE ${ident(a.name)} IS NULL LIMIT 1`)) {
          throw new FloeError(SqlState.notNullViolation, `column "${a.name}" of relation "${t.name}" contains null values`);
        }
      }
      return w.alterTable(t.namespace, t.name, a);
    }
    case 'addConstraint':
      return addConstraint(w, t, a.constraint, io, true);
    case 'dropConstraint':
      if (a.ifExists && !t.constraints.some((c) => c.name === a.name)) {
        io.notice(`constraint "${a.name}" of relation "${t.name}" does not exist, skipping`);
        return t;
      }
      return w.alterTable(t.namespace, t.name, a);
    default:
      return w.alterTable(t.namespace, t.name, a);
  }
}

async function addConstraint(w: Warehouse, t: TableMetadata, c: TableConstraint, io: AlterTableIo, validate: boolean): Promise<TableMetadata> {
  if (validate && c.kind === 'check') await checkExistingRows(t, c, relation(t), io);
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
