import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableConstraint } from '../../lake/index.js';
import type { CatalogTable } from '../bind-env.js';
import type { AlterTableAction, TableName } from '../ddl-command.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import type { BoundColumnDef } from './bind-create-table.js';
import { sourceText } from './bind-create-table.js';
import { bindExpr } from './bind-expr.js';
import { bindTableConstraint, parseCheckText, renameInCheckText, type ConstraintHost } from './bind-table-constraint.js';
import { coerceTo } from './coerce.js';
import { resolveTypeName } from './resolve-type-name.js';
import { userTypeLookup } from './user-type-lookup.js';
import { type Expr, exprChildren, functionById } from '../../exec/index.js';

function tableOf(ctx: BindContext, table: TableName): CatalogTable | undefined {
  return ctx.env.warehouse.getTable(table.namespace, table.name);
}

function hostOf(t: CatalogTable, extra: readonly CatalogTable['columns'][number][] = []): ConstraintHost {
  const taken = new Set((t.constraints ?? []).map((c) => c.name));
  if (t.primaryKey.length > 0) taken.add(`${t.name}_pkey`);
  return { id: t.id, namespace: t.namespace, name: t.name, columns: [...t.columns, ...extra], taken };
}

function columnOf(t: CatalogTable, name: string, node: Raw): CatalogTable['columns'][number] {
  const col = t.columns.find((c) => c.name === name);
  if (col === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${name}" of relation "${t.name}" does not exist`, { position: positionOf(node) });
  return col;
}

/** ALTER COLUMN … SET/DROP DEFAULT, SET/DROP NOT NULL, TYPE (the lake decides which type changes it can make). */
export function bindAlterColumn(ctx: BindContext, table: TableName, cmd: Raw): AlterTableAction {
  const name = cmd.name as string;
  const t = tableOf(ctx, table);
  const col = t === undefined ? undefined : columnOf(t, name, cmd);
  switch (cmd.subtype as string) {
    case 'AT_ColumnDefault': {
      if (cmd.def === undefined) return { kind: 'alterColumn', name, defaultExpr: null };
      if (col !== undefined) {
        const e = bindExpr(ctx, cmd.def, { scope: { columns: [] }, clause: 'DEFAULT expressions' });
        coerceTo(ctx, e, col.type, 'assignment', positionOf(cmd.def));
      }
      return { kind: 'alterColumn', name, defaultExpr: sourceText(ctx, cmd.def) };
    }
    case 'AT_SetNotNull': return { kind: 'alterColumn', name, nullable: false };
    case 'AT_DropNotNull': return { kind: 'alterColumn', name, nullable: true };
    default: {
      const def = unwrap(cmd.def)[1];
      const type = resolveTypeName(def.typeName, userTypeLookup(ctx));
      const using = def.raw_default as Raw | undefined;
      if (using !== undefined && !readsOnly(using, name)) {
        throw new FloeError(SqlState.featureNotSupported, 'ALTER COLUMN … TYPE … USING an expression is not supported', {
          position: positionOf(using),
          hint: 'Floe changes a column\'s type only where old files read unchanged (a widening); add a new column, UPDATE it from the old one, and drop the old one.',
        });
      }
      return { kind: 'alterColumn', name, type };
    }
  }
}

/** USING c or USING c::type: the column itself, which a widening reads as it is. */
function readsOnly(node: Raw, column: string): boolean {
  const [tag, n] = unwrap(node);
  if (tag === 'ColumnRef') return strList(n.fields).pop() === column;
  if (tag === 'TypeCast') return readsOnly(n.arg, column);
  return false;
}

/** ALTER TABLE … ADD [CONSTRAINT name] CHECK | FOREIGN KEY, DROP CONSTRAINT [IF EXISTS] name. */
export function bindAlterConstraint(ctx: BindContext, table: TableName, cmd: Raw, added: readonly CatalogTable['columns'][number][] = []): AlterTableAction {
  if (cmd.subtype === 'AT_DropConstraint') return { kind: 'dropConstraint', name: cmd.name as string, ifExists: Boolean(cmd.missing_ok) };
  const con = unwrap(cmd.def)[1];
  const t = tableOf(ctx, table);
  if (t === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${table.name}" does not exist`);
  const bound = bindTableConstraint(ctx, con, hostOf(t, added));
  if (bound === undefined) {
    throw new FloeError(SqlState.featureNotSupported, `ALTER TABLE ADD ${String(con.contype).replace('CONSTR_', '')} constraints are not supported`, { position: positionOf(cmd.def) });
  }
  return { kind: 'addConstraint', constraint: bound };
}

/** CHECK / REFERENCES on an ADD COLUMN, bound over the table's row with the new column. */
export function bindNewColumnConstraints(ctx: BindContext, table: TableName, col: BoundColumnDef): TableConstraint[] {
  rejectVolatileDefault(ctx, col);
  if (col.constraintNodes.length === 0) return [];
  const t = tableOf(ctx, table);
  if (t === undefined) return [];
  const host = hostOf(t, [col.spec]);
  return col.constraintNodes.map((node) => bindTableConstraint(ctx, node, host, col.spec.name)!);
}

/**
 * ADD COLUMN … DEFAULT gives existing rows the default evaluated once (initial-default.ts).
 * PostgreSQL evaluates a volatile default (random(), clock_timestamp()) once per existing
 * row, which only a rewrite can do: refused.
 */
function rejectVolatileDefault(ctx: BindContext, col: BoundColumnDef): void {
  const expr = col.spec.defaultExpr;
  if (expr === undefined) return;
  const volatile = (e: Expr): boolean => (e.kind === 'call' && functionById(e.fn)?.volatile === true) || exprChildren(e).some(volatile);
  let bound: Expr | undefined;
  try {
    bound = bindExpr(ctx, parseCheckText(expr), { scope: { columns: [] }, clause: 'DEFAULT expressions' });
  } catch {
    bound = undefined;
  }
  if (/\b(nextval|random|clock_timestamp|gen_random_uuid|timeofday|uuid_generate_v4)\s*\(/i.test(expr) || (bound !== undefined && volatile(bound))) {
    throw new FloeError(SqlState.featureNotSupported, `cannot add column "${col.spec.name}" with a volatile default`, {
      hint: 'Existing rows would each need their own value, which needs a rewrite. Add the column without a default, then UPDATE it, then SET DEFAULT.',
    });
  }
}

/** The new text of each CHECK that reads column `from`, after it is renamed to `to`. */
export function renameColumnInChecks(ctx: BindContext, table: TableName, from: string, to: string): Record<string, string> | undefined {
  const t = tableOf(ctx, table);
  const out: Record<string, string> = {};
  for (const c of t?.constraints ?? []) {
    if (c.kind !== 'check') continue;
    const next = renameInCheckText(c.expr, from, to);
    if (next !== undefined) out[c.name] = next;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
