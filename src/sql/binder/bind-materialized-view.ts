import { FloeError } from '../../common/floe-error.js';
import { formatType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { MaterializedViewColumn, TableName } from '../ddl-command.js';
import { fullSource, hiddenColumnNames } from '../materialized-view/refresh-statements.js';
import { viewShape, type RelationLookup, type ViewShape } from '../materialized-view/view-shape.js';
import { materializedViewOptionChanges, materializedViewOptions, refreshModeOf } from '../materialized-view/view-options.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { parseStatements } from '../parser/parse-statements.js';
import { scanTokens } from '../parser/pg-parser.js';
import { lower } from '../parser/lake-tokens.js';
import { strList, unwrap, type Raw } from './ast.js';
import { BindContext } from './bind-context.js';
import { bindSelect } from './bind-query.js';
import { callsVolatile } from './cte-materialization.js';
import { namedColumns, queryTextAfterAs } from './bind-view.js';
import { qualifyExisting, qualifyForDdl, tryResolveRelation } from './resolve-relation.js';

/**
 * CREATE / REFRESH / DROP / ALTER MATERIALIZED VIEW. A materialized view is a keyed table
 * holding the query's rows under a hidden key, and the query's text; the session creates
 * both and fills the table by the statements of src/sql/materialized-view.
 */

/** The query of CREATE MATERIALIZED VIEW … AS query [WITH [NO] DATA], as written. */
function definitionText(statementText: string): string {
  const after = queryTextAfterAs(statementText);
  // WITH [NO] DATA closes the statement, not the query.
  const tokens = scanTokens(after) ?? [];
  const words = tokens.map((t) => lower(t));
  const n = words.length;
  if (n >= 2 && words[n - 1] === 'data' && words[n - 2] === 'with') return after.slice(0, tokens[n - 2]!.start).trimEnd();
  if (n >= 3 && words[n - 1] === 'data' && words[n - 2] === 'no' && words[n - 3] === 'with') return after.slice(0, tokens[n - 3]!.start).trimEnd();
  return after;
}

/** How the tables a view's FROM clause names resolve, for incremental maintenance. */
export function relationLookup(ctx: BindContext): RelationLookup {
  return (rv) => {
    const name = rv.relname as string;
    if (ctx.stmt.lake.some((c) => c.kind === 'timeTravel' && c.tableLocation === rv.location)) return { why: `time travel on "${name}"` };
    const rel = tryResolveRelation(ctx, rv.schemaname as string | undefined, name);
    if (rel === undefined) return { why: `"${name}" is not a table` };
    if (rel.kind === 'view') return { why: `it reads view "${name}"` };
    if (rel.kind === 'virtual') return { why: `it reads system relation "${name}"` };
    if (rel.branch !== undefined) return { why: `it reads branch "${rel.branch}" of "${rel.table.name}"` };
    if (rel.table.primaryKey.length === 0) return { why: `table "${rel.table.name}" has no primary key` };
    const columns = rel.table.columns.filter((c) => c.hidden !== true).map((c) => c.name);
    return { table: { tableId: rel.table.id, namespace: rel.table.namespace, name: rel.table.name, primaryKey: rel.table.primaryKey, columns } };
  };
}

/** The shape of a view's definition, bound in `ctx` (the view's search_path). */
export function shapeOfDefinition(ctx: BindContext, select: Raw): { shape: ViewShape; columns: { name: string; type: string }[] } {
  const bound = bindSelect(ctx, select, undefined);
  return {
    shape: viewShape(select, relationLookup(ctx), callsVolatile(bound.plan)),
    columns: bound.columns.filter((c) => !c.hidden).map((c) => ({ name: c.name, type: formatType(c.type.kind === 'unknown' ? { kind: 'text' } : c.type) })),
  };
}

export function bindCreateMaterializedView(ctx: BindContext, n: Raw): BoundStatement {
  const into = n.into;
  const rv = into.rel;
  const [tag, select] = unwrap(n.query);
  if (tag !== 'SelectStmt') throw new FloeError(SqlState.featureNotSupported, `a materialized view's query must be a SELECT, not ${tag}`);
  const options = materializedViewOptions(into.options as Raw[] | undefined);
  const query = bindSelect(ctx, select, undefined);
  if (ctx.params.length > 0) throw new FloeError(SqlState.featureNotSupported, 'materialized views may not be defined using bound parameters');
  if (ctx.readsTemporaryRelation) throw new FloeError(SqlState.featureNotSupported, 'materialized views must not use temporary tables or views');
  const named = namedColumns(query, strList(into.colNames), 'CREATE TABLE AS');
  const view = qualifyForDdl(ctx, rv.schemaname as string | undefined, rv.relname as string);
  const shape = viewShape(select, relationLookup(ctx), callsVolatile(query.plan));
  const mode = refreshModeOf(options);
  if (mode === 'incremental' && shape.kind === 'full') {
    throw new FloeError(SqlState.featureNotSupported, `materialized view "${view.name}" cannot be refreshed incrementally: ${shape.reason}`, {
      hint: "Use refresh = 'auto' to refresh it in full.",
    });
  }
  const fullRefreshReason = mode === 'full' ? "refresh = 'full'" : shape.kind === 'full' ? shape.reason : undefined;
  // The table's columns: the query's, then the key and state, typed by binding the query that fills them.
  const hidden = hiddenColumnNames(shape);
  const placeholder = { namespace: view.namespace, name: view.name, columns: [...named.map((c) => ({ name: c.name, type: 'text', hidden: false })), ...hidden.map((name) => ({ name, type: 'text', hidden: true }))] };
  const filled = bindSelect(new BindContext(ctx.stmt, ctx.env), fullSource(shape, select, placeholder, undefined), undefined);
  const columns: MaterializedViewColumn[] = [
    ...named.map((c) => ({ name: c.name, type: c.type, hidden: false })),
    ...hidden.map((name, i) => ({ name, type: filled.columns[named.length + i]!.type, hidden: true })),
  ];
  return {
    kind: 'ddl',
    command: {
      kind: 'createMaterializedView', view, ifNotExists: Boolean(n.if_not_exists), columns, definition: definitionText(ctx.stmt.text),
      searchPath: ctx.env.searchPath, dependsOn: [...ctx.relationsRead], options, withData: !into.skipData,
      ...(fullRefreshReason === undefined ? {} : { fullRefreshReason }),
      // refresh = 'auto' (the default) says when it can only refresh in full, and why.
      ...(mode === 'auto' && shape.kind === 'full' ? { notice: `materialized view "${view.name}" will be refreshed in full: ${shape.reason}` } : {}),
    },
  };
}

/** REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]. */
export function bindRefreshMaterializedView(ctx: BindContext, n: Raw): BoundStatement {
  const view = existingMaterializedView(ctx, n.relation);
  return { kind: 'ddl', command: { kind: 'refreshMaterializedView', view, concurrently: n.concurrent === true, withData: n.skipData !== true } };
}

/** The materialized view REFRESH names: 42P01 when there is none, 0A000 (PostgreSQL's code here) when it is another relation. */
export function existingMaterializedView(ctx: BindContext, rv: Raw): TableName {
  const name = rv.relname as string;
  const rel = tryResolveRelation(ctx, rv.schemaname as string | undefined, name);
  if (rel === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${rv.schemaname ? `${rv.schemaname}.` : ''}${name}" does not exist`);
  if (rel.kind !== 'lake' || ctx.env.warehouse.getMaterializedView?.(rel.table.id) === undefined) {
    throw new FloeError(SqlState.featureNotSupported, `"${name}" is not a materialized view`);
  }
  return { namespace: rel.table.namespace, name: rel.table.name };
}

/** DROP MATERIALIZED VIEW [IF EXISTS] a, b [CASCADE]. */
export function bindDropMaterializedView(ctx: BindContext, n: Raw): BoundStatement {
  const views = (n.objects as Raw[]).map((o) => {
    const names = strList(unwrap(o)[1].items);
    return qualifyExisting(ctx, names.length > 1 ? names[names.length - 2] : undefined, names[names.length - 1]!);
  });
  return { kind: 'ddl', command: { kind: 'dropMaterializedView', views, ifExists: Boolean(n.missing_ok), cascade: n.behavior === 'DROP_CASCADE' } };
}

/** The stored definition parsed again, as a refresh binds it. */
export function parsedDefinition(definition: string): ParsedStatement {
  const [stmt] = parseStatements(definition);
  if (stmt === undefined) throw new FloeError(SqlState.internalError, 'materialized view has no definition');
  return stmt;
}

/** ALTER MATERIALIZED VIEW mv SET (…) / RESET (…): Floe's options (freshness, refresh). */
export function bindAlterMaterializedViewOptions(ctx: BindContext, n: Raw): BoundStatement {
  const cmds = (n.cmds as Raw[]).map((c) => unwrap(c)[1]);
  if (!cmds.every((c) => c.subtype === 'AT_SetRelOptions' || c.subtype === 'AT_ResetRelOptions')) {
    throw new FloeError(SqlState.featureNotSupported, 'ALTER MATERIALIZED VIEW supports RENAME, SET SCHEMA, OWNER TO and SET/RESET of its options');
  }
  const view = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
  const options = materializedViewOptionChanges(cmds);
  return {
    kind: 'ddl',
    command: { kind: 'alterMaterializedView', view, ifExists: Boolean(n.missing_ok), options },
  };
}
