import { FloeError } from '../../common/floe-error.js';
import { formatType, type SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { Exprs } from '../../exec/index.js';
import { LogicalProject } from '../../planner/index.js';
import type { CatalogViewDefinition } from '../bind-env.js';
import type { BoundStatement } from '../bound-statement.js';
import { lower } from '../parser/lake-tokens.js';
import { parseStatements } from '../parser/parse-statements.js';
import { scanTokens } from '../parser/pg-parser.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import { BindContext, type BoundQuery } from './bind-context.js';
import { bindSelect } from './bind-query.js';
import { createViewTarget } from './create-view-target.js';
import { qualifyExisting } from './resolve-relation.js';
import { viewOptionChanges, viewOptionOn, viewOptions } from './view-options.js';

/**
 * Views. CREATE VIEW binds the query once, to check it and to learn its columns and the
 * relations it reads; the lake keeps the text as written. Every use parses and binds
 * that text again (through the creation search_path), so a view follows the tables it
 * reads, and time travel or `t$branch_b` inside it keep their meaning.
 */

/** A view column's type: an untyped literal becomes text, as PostgreSQL 15 resolves it. */
function storedType(t: SqlType): SqlType {
  return t.kind === 'unknown' ? { kind: 'text' } : t;
}

/** The view's SELECT as the client wrote it: the text after the first top-level AS. */
export function queryTextAfterAs(statementText: string): string {
  const tokens = scanTokens(statementText) ?? [];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && lower(t) === 'as') return statementText.slice(t.end).trim();
  }
  throw new FloeError(SqlState.syntaxError, 'CREATE VIEW needs AS followed by a query');
}

/** Output columns of a view's query, renamed by the column list (42601 when it names too many, 42701 on duplicates). */
export function namedColumns(q: BoundQuery, aliases: readonly string[], what: 'CREATE VIEW' | 'CREATE TABLE AS'): { name: string; type: SqlType }[] {
  const visible = q.columns.filter((c) => !c.hidden);
  if (aliases.length > visible.length) {
    throw new FloeError(SqlState.syntaxError, what === 'CREATE VIEW' ? 'CREATE VIEW specifies more column names than columns' : 'too many column names were specified');
  }
  const columns = visible.map((c, i) => ({ name: aliases[i] ?? c.name, type: storedType(c.type) }));
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c.name)) throw new FloeError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`);
    seen.add(c.name);
  }
  return columns;
}

export function bindCreateView(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.view;
  if (n.withCheckOption && n.withCheckOption !== 'NO_CHECK_OPTION') {
    throw new FloeError(SqlState.featureNotSupported, 'WITH CHECK OPTION is not supported: Floe views are read-only');
  }
  const options = viewOptions(n.options as Raw[] | undefined);
  const [tag, s] = unwrap(n.query);
  if (tag !== 'SelectStmt') throw new FloeError(SqlState.featureNotSupported, `a view's query must be a SELECT, not ${tag}`);
  const query = bindSelect(ctx, s, undefined);
  ctx.access.keepOnlySchemaUsage();
  if (ctx.params.length > 0) throw new FloeError(SqlState.undefinedParameter, 'there is no parameter $1');
  const columns = namedColumns(query, strList(n.aliases), 'CREATE VIEW');
  const { view, temporary } = createViewTarget(ctx, rv);
  return {
    kind: 'ddl',
    command: {
      kind: 'createView', view, orReplace: Boolean(n.replace), definition: queryTextAfterAs(ctx.stmt.text), columns,
      searchPath: ctx.env.searchPath, dependsOn: [...ctx.relationsRead], ...(temporary !== undefined ? { temporary } : {}),
      ...(options.length > 0 ? { options } : {}),
    },
  };
}

/** DROP VIEW a, b [CASCADE]. */
export function bindDropView(ctx: BindContext, n: Raw): BoundStatement {
  const views = (n.objects as Raw[]).map((o) => {
    const names = strList(unwrap(o)[1].items);
    return qualifyExisting(ctx, names.length > 1 ? names[names.length - 2] : undefined, names[names.length - 1]!);
  });
  return { kind: 'ddl', command: { kind: 'dropView', views, ifExists: Boolean(n.missing_ok), cascade: n.behavior === 'DROP_CASCADE' } };
}

/**
 * A view named in FROM: its definition bound afresh, in a context of its own (its own
 * statement text, for time travel clauses; the creation search_path; no parameters),
 * keeping the columns the view was created with, under their names and types.
 */
export function bindViewQuery(ctx: BindContext, view: CatalogViewDefinition, position: number | undefined): BoundQuery {
  if (ctx.viewsExpanding.includes(view.id)) {
    throw new FloeError('42P17', `infinite recursion detected in rules for relation "${view.name}"`, { position });
  }
  const [stmt] = parseStatements(view.definition);
  if (stmt === undefined) throw new FloeError(SqlState.internalError, `view "${view.name}" has no definition`);
  const inner = new BindContext(stmt, { ...ctx.env, searchPath: view.searchPath, paramTypes: undefined });
  inner.viewsExpanding = [...ctx.viewsExpanding, view.id];
  // A security_invoker view's relations are checked as the current user, even inside another view's query (PostgreSQL's rewriter leaves them unowned).
  inner.enclosingView = viewOptionOn(view, 'security_invoker') ? undefined : view.id;
  inner.access = ctx.access;
  const q = bindSelect(inner, unwrap(stmt.ast)[1], undefined);
  const out = q.columns.filter((c) => !c.hidden);
  if (out.length < view.columns.length) {
    throw new FloeError(SqlState.featureNotSupported, `view "${view.name}" no longer matches its definition: its query returns ${out.length} columns, the view has ${view.columns.length}`);
  }
  const exprs = view.columns.map((vc, i) => {
    const c = out[i]!;
    const col = Exprs.column(c.index, c.type, vc.name);
    if (formatType(c.type) === formatType(vc.type)) return col;
    if (c.type.kind === 'unknown') return Exprs.cast(col, vc.type);
    throw new FloeError(SqlState.datatypeMismatch,
      `view "${view.name}" no longer matches its definition: column "${vc.name}" is now ${formatType(c.type)}, was ${formatType(vc.type)}`);
  });
  const plan = LogicalProject.create({
    input: q.plan, exprs, columns: view.columns.map((c) => ({ name: c.name, type: c.type })),
    ...(viewOptionOn(view, 'security_barrier') ? { barrier: true as const } : {}),
  });
  return {
    plan,
    columns: view.columns.map((c, i) => ({ name: c.name, index: i, type: c.type, tableOid: view.id, columnNumber: i + 1 })),
  };
}

function writtenName(rv: Raw): string {
  return rv.schemaname ? `${rv.schemaname}.${rv.relname}` : rv.relname;
}

/** ALTER VIEW v RENAME TO w, or ALTER TABLE naming a view (PostgreSQL accepts either word). */
export function bindRenameView(ctx: BindContext, n: Raw): BoundStatement {
  if (n.renameType !== 'OBJECT_VIEW' && n.renameType !== 'OBJECT_TABLE') {
    throw new FloeError(SqlState.featureNotSupported, `ALTER VIEW … RENAME ${String(n.renameType).replace('OBJECT_', '')} is not supported`);
  }
  const view = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
  return {
    kind: 'ddl',
    command: {
      kind: 'alterView', view, ifExists: Boolean(n.missing_ok), rename: n.newname, tag: n.renameType === 'OBJECT_VIEW' ? 'ALTER VIEW' : 'ALTER TABLE',
      writtenName: writtenName(n.relation),
    },
  };
}

/**
 * ALTER VIEW v SET (…) / RESET (…), or ALTER TABLE naming a view; undefined when the
 * statement is not only that (other subcommands go to ALTER TABLE's binding).
 */
export function bindAlterViewOptions(ctx: BindContext, n: Raw): BoundStatement | undefined {
  const cmds = (n.cmds as Raw[]).map((c) => unwrap(c)[1]);
  const isOptions = (c: Raw) => c.subtype === 'AT_SetRelOptions' || c.subtype === 'AT_ResetRelOptions';
  if (cmds.length === 0 || !cmds.every(isOptions)) return undefined;
  if (n.objtype !== 'OBJECT_VIEW') {
    const t = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
    if (ctx.env.warehouse.getView?.(t.namespace, t.name) === undefined) return undefined;
  }
  const view = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
  const options = viewOptionChanges(cmds);
  return {
    kind: 'ddl',
    command: {
      kind: 'alterView', view, ifExists: Boolean(n.missing_ok), tag: n.objtype === 'OBJECT_VIEW' ? 'ALTER VIEW' : 'ALTER TABLE', writtenName: writtenName(n.relation),
      options,
    },
  };
}

/** Whether a RENAME names a view (ALTER VIEW, or ALTER TABLE of a relation that is a view). */
export function renamesView(ctx: BindContext, n: Raw): boolean {
  if (n.relationType === 'OBJECT_VIEW' || n.renameType === 'OBJECT_VIEW') return true;
  if (n.renameType !== 'OBJECT_TABLE') return false;
  const t = qualifyExisting(ctx, n.relation.schemaname, n.relation.relname);
  return ctx.env.warehouse.getView?.(t.namespace, t.name) !== undefined;
}
