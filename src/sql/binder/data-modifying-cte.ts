import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { LogicalCte, LogicalCteScan, LogicalDataModifyingCtes } from '../../planner/index.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext, CteDefinition } from './bind-context.js';
import { bindInsert } from './bind-insert.js';
import { bindWithClause } from './bind-query.js';
import { bindDelete, bindUpdate } from './bind-update-delete.js';
import { cteReferenceCount } from './cte-materialization.js';
import type { ScopeColumn } from './scope.js';

/*
 * Data-modifying statements in WITH (`WITH x AS (INSERT … RETURNING …) SELECT … FROM x`).
 * PostgreSQL's rules: they are allowed only in the top-level statement's WITH; each runs
 * exactly once, to completion, read or not; readers see only their RETURNING rows. Each
 * binds as the DML statement it is, planned as a materialized WITH query (so every reader
 * replays the same rows), and the statement's plan is wrapped in a DataModifyingCtesPlan
 * that runs them first. The statement then runs as DML, in a write transaction.
 * Known difference: the main statement's table reads see the sub-statements' writes,
 * where PostgreSQL's all share the statement's snapshot.
 */

/** The DML WITH queries bound for a statement, in order, waiting for withDataModifyingCtes. */
const pending = new WeakMap<BindContext, LogicalCte[]>();

/** The binder of a DML statement node's tag (a function, so the import cycle with bind-query.ts is resolved when it runs). */
function dmlBinder(tag: string): ((ctx: BindContext, n: Raw) => BoundStatement) | undefined {
  switch (tag) {
    case 'InsertStmt': return bindInsert;
    case 'UpdateStmt': return bindUpdate;
    case 'DeleteStmt': return bindDelete;
    default: return undefined;
  }
}

/** The top-level statement (below EXPLAIN), whose WITH alone may hold data-modifying statements. */
function topLevelStatement(ctx: BindContext): Raw {
  const [tag, n] = unwrap(ctx.stmt.ast);
  return tag === 'ExplainStmt' ? unwrap(n.query)[1] : n;
}

/** Whether a WITH query is INSERT/UPDATE/DELETE (MERGE is refused). */
export function isDataModifyingCte(cte: Raw): boolean {
  const tag = unwrap(cte.ctequery)[0];
  if (tag === 'MergeStmt') throw new FloeError(SqlState.featureNotSupported, 'MERGE in WITH is not supported', { position: positionOf(cte) });
  return dmlBinder(tag) !== undefined;
}

/** Binds `name AS (INSERT|UPDATE|DELETE …)` of `statement`'s WITH as a WITH query that runs once. */
export function bindDataModifyingCte(ctx: BindContext, cte: Raw, statement: Raw): CteDefinition {
  const name = cte.ctename as string;
  if (statement !== topLevelStatement(ctx)) {
    throw new FloeError(SqlState.featureNotSupported, 'WITH clause containing a data-modifying statement must be at the top level', { position: positionOf(cte) });
  }
  const [tag, n] = unwrap(cte.ctequery);
  const bound = dmlBinder(tag)!(ctx, n);
  if (bound.kind !== 'dml') throw new FloeError(SqlState.internalError, `${tag} did not bind to DML`);
  if (bound.columns.length === 0 && cteReferenceCount(statement, name) > 0) {
    throw new FloeError(SqlState.featureNotSupported, `WITH query "${name}" does not have a RETURNING clause`, { position: positionOf(cte) });
  }
  if (bound.logical.kind === 'dataModifyingCtes') throw new FloeError(SqlState.internalError, `${tag} in WITH has its own data-modifying WITH queries`);
  // The row estimate only steers join sides; a DML statement's RETURNING is usually small.
  const materialized = LogicalCte.create({ name, plan: bound.logical, rowEstimate: 100 });
  const list = pending.get(ctx) ?? [];
  list.push(materialized);
  pending.set(ctx, list);
  const columns = bound.columns.map((c, index): ScopeColumn => ({ name: c.name, index, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber }));
  const outputs = columns.map((c) => ({ name: c.name, type: c.type }));
  return {
    name,
    query: { plan: LogicalCteScan.create({ cte: materialized, columns: outputs }), columns },
    materialized,
  };
}

/** INSERT/UPDATE/DELETE with a WITH clause: its WITH queries are in scope while `bind` binds the statement. */
export function bindWithDmlStatement(ctx: BindContext, n: Raw, bind: (ctx: BindContext, n: Raw) => BoundStatement): BoundStatement {
  if (!n.withClause) return bind(ctx, n);
  const pushed = bindWithClause(ctx, n);
  try {
    return bind(ctx, { ...n, withClause: undefined });
  } finally {
    if (pushed) ctx.popCtes();
  }
}

/** The statement, made to run its data-modifying WITH queries first (as DML: SELECT n counts the query's rows). */
export function withDataModifyingCtes(ctx: BindContext, bound: BoundStatement): BoundStatement {
  const ctes = pending.get(ctx);
  if (ctes === undefined || ctes.length === 0) return bound;
  if (bound.kind !== 'query' && bound.kind !== 'dml') return bound;
  const input = bound.logical;
  if (input.kind === 'dataModifyingCtes') throw new FloeError(SqlState.internalError, 'data-modifying WITH queries applied twice');
  const logical = LogicalDataModifyingCtes.create({ ctes, input, countRows: bound.kind === 'query', columns: input.columns });
  if (bound.kind === 'dml') return { ...bound, logical };
  return { kind: 'dml', logical, columns: bound.columns, commandTag: (count) => `SELECT ${count}`, paramTypes: bound.paramTypes };
}
