import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { TableMetadata } from '../lake/index.js';
import { fullRefreshReasonOf, type DdlCommand, type TableName } from '../sql/index.js';
import { refreshMaterializedView } from './refresh-materialized-view.js';
import { dropViewsDependingOn } from './run-view-ddl.js';
import { viewDdlIo } from './internal-statements.js';
import type { SessionContext } from './session-context.js';

type MaterializedViewDdl = Extract<DdlCommand, { kind: 'createMaterializedView' | 'refreshMaterializedView' | 'dropMaterializedView' | 'alterMaterializedView' }>;

/** The materialized view `t` names, or undefined; 42809 when it names a relation of another kind (DROP hints at the right DROP). */
function materializedView(ctx: SessionContext, t: TableName, dropping = false): TableMetadata | undefined {
  const w = ctx.deps.warehouse;
  const table = w.getTable(t.namespace, t.name);
  if (table !== undefined && w.getMaterializedView(table.id) !== undefined) return table;
  const other = table !== undefined ? 'TABLE' : w.getView(t.namespace, t.name) !== undefined ? 'VIEW' : undefined;
  if (other !== undefined) {
    throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a materialized view`, dropping ? { hint: `Use DROP ${other} to remove a ${other.toLowerCase()}.` } : {});
  }
  return undefined;
}

/** CREATE / REFRESH / DROP / ALTER MATERIALIZED VIEW; returns the command tag. */
export async function runMaterializedViewDdl(ctx: SessionContext, c: MaterializedViewDdl): Promise<string> {
  const w = ctx.deps.warehouse;
  const signal = new AbortController().signal;
  switch (c.kind) {
    case 'createMaterializedView': {
      const { namespace, name } = c.view;
      if (w.getTable(namespace, name) ?? w.getView(namespace, name) ?? w.getSequence(namespace, name)) {
        if (!c.ifNotExists) throw new FloeError(SqlState.duplicateTable, `relation "${name}" already exists`);
        ctx.notice('NOTICE', SqlState.duplicateTable, `relation "${name}" already exists, skipping`);
        return 'CREATE MATERIALIZED VIEW';
      }
      if (c.withData && ctx.transaction.current !== undefined) {
        throw new FloeError(SqlState.activeSqlTransaction, 'CREATE MATERIALIZED VIEW … WITH DATA cannot run inside a transaction block', {
          hint: 'Create it WITH NO DATA and REFRESH it after the block, or create it outside the block.',
        });
      }
      const table = await w.createMaterializedView({
        namespace, name, primaryKey: ['floe$key'],
        columns: c.columns.map((col) => ({ name: col.name, type: col.type, nullable: col.name !== 'floe$key', ...(col.hidden ? { hidden: true } : {}) })),
      }, { definition: c.definition, searchPath: c.searchPath, dependsOn: c.dependsOn, options: c.options, fullRefreshReason: c.fullRefreshReason });
      if (c.notice !== undefined) ctx.notice('NOTICE', SqlState.successfulCompletion, c.notice);
      if (!c.withData) return 'CREATE MATERIALIZED VIEW';
      try {
        const done = await refreshMaterializedView(ctx, table, 'full', signal);
        return `SELECT ${done.rowsChanged}`;
      } catch (e) {
        // Bad input leaves nothing behind: the view goes with the rows that failed.
        await w.dropTable(namespace, name, { ifExists: true }).catch(() => undefined);
        throw e;
      }
    }
    case 'refreshMaterializedView': {
      const table = materializedView(ctx, c.view);
      if (table === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${c.view.name}" does not exist`);
      if (c.concurrently && w.getMaterializedView(table.id)?.populated === false) {
        throw new FloeError(SqlState.featureNotSupported, 'CONCURRENTLY cannot be used when the materialized view is not populated');
      }
      if (c.concurrently && !c.withData) throw new FloeError(SqlState.syntaxError, 'REFRESH options CONCURRENTLY and WITH NO DATA cannot be used together');
      // Every Floe refresh leaves readers alone; CONCURRENTLY keeps PostgreSQL's precondition all the same.
      if (c.concurrently && !table.constraints.some((k) => k.kind === 'unique' && k.indexOnly === true)) {
        throw new FloeError(SqlState.objectNotInPrerequisiteState, `cannot refresh materialized view "${table.namespace}.${table.name}" concurrently`, {
          hint: 'Create a unique index with no WHERE clause on one or more columns of the materialized view.',
        });
      }
      await refreshMaterializedView(ctx, table, c.withData ? 'auto' : 'no data', signal);
      return 'REFRESH MATERIALIZED VIEW';
    }
    case 'dropMaterializedView': {
      const found: TableMetadata[] = [];
      for (const t of c.views) {
        const table = materializedView(ctx, t, true);
        if (table !== undefined) { found.push(table); continue; }
        if (!c.ifExists) throw new FloeError(SqlState.undefinedTable, `materialized view "${t.name}" does not exist`);
        ctx.notice('NOTICE', SqlState.successfulCompletion, `materialized view "${t.name}" does not exist, skipping`);
      }
      await dropViewsDependingOn(w, found.map((t) => t.id), c.cascade, viewDdlIo(ctx));
      for (const t of found) await w.dropTable(t.namespace, t.name, { ifExists: true });
      return 'DROP MATERIALIZED VIEW';
    }
    case 'alterMaterializedView': {
      const table = materializedView(ctx, c.view);
      if (table === undefined) {
        if (c.ifExists) { ctx.notice('NOTICE', SqlState.successfulCompletion, `relation "${c.view.name}" does not exist, skipping`); return 'ALTER MATERIALIZED VIEW'; }
        throw new FloeError(SqlState.undefinedTable, `relation "${c.view.name}" does not exist`);
      }
      const mv = w.getMaterializedView(table.id)!;
      const options = c.options(mv.options);
      const reason = fullRefreshReasonOf(mv.definition, { ...ctx.bindEnv(), searchPath: mv.searchPath }, options, table.name);
      await w.setMaterializedViewOptions(table.id, options, reason);
      return 'ALTER MATERIALIZED VIEW';
    }
  }
}
