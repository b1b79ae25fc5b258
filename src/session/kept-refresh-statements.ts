import type { SqlType } from '../common/sql-type.js';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { bindStatement, type BindEnv, type BoundStatement, type RefreshStatement } from '../sql/index.js';
import { cachedPlanCheck, cachedPlanHolds, type CachedPlanCheck } from './cached-plan-check.js';
import type { SessionContext } from './session-context.js';

type BoundMerge = Extract<BoundStatement, { kind: 'dml' }>;

/** A view's last refresh statement in a session: what names its text, and its bind (which keeps its plan). */
interface KeptRefresh {
  readonly key: string;
  readonly bound: BoundMerge;
  readonly check: CachedPlanCheck;
}

/** By session, then by view table id. One statement a view: a refresh of other terms replaces it. */
const kept = new WeakMap<SessionContext, Map<number, KeptRefresh>>();

const int8: SqlType = { kind: 'int8' };

/**
 * The bound MERGE of a refresh. A refresh service's session refreshes each view every few
 * seconds, mostly over the same terms: the bind of the last one with the same key (and so
 * its physical plan, physical-plan-of.ts) is reused with the new positions as parameters,
 * while the tables it reads and writes keep their definitions (cached-plan-check.ts), as a
 * prepared statement's is. `baseTableIds` counts tables the MERGE may read only through
 * table_changes, whose bind names no table.
 */
export function boundRefreshStatement(
  ctx: SessionContext, viewId: number, statement: RefreshStatement, env: BindEnv, definitionKey: string, baseTableIds: readonly number[],
): BoundMerge {
  const w = ctx.deps.warehouse;
  const key = `${definitionKey}\u0000${ctx.identity.currentUser()}\u0000${statement.key}`;
  let views = kept.get(ctx);
  if (views === undefined) kept.set(ctx, views = new Map());
  const hit = views.get(viewId);
  if (hit !== undefined && hit.key === key && cachedPlanHolds(hit.check, w, env.searchPath)) return hit.bound;
  const bound = bindStatement(statement.build(), { ...env, paramTypes: statement.params.map(() => int8) });
  if (bound.kind !== 'dml') throw new FloeError(SqlState.internalError, 'a refresh did not bind to a MERGE');
  views.set(viewId, { key, bound, check: cachedPlanCheck(bound, w, env.searchPath, baseTableIds) });
  return bound;
}
