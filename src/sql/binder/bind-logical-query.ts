import type { LogicalPlan } from '../../planner/index.js';
import type { BindEnv } from '../bind-env.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { unwrap } from './ast.js';
import { BindContext } from './bind-context.js';
import { bindSelect } from './bind-query.js';

/** A SELECT's unoptimized logical plan (for planner tests and diagnostics). */
export function bindLogicalQuery(stmt: ParsedStatement, env: BindEnv): LogicalPlan {
  const [tag, n] = unwrap(stmt.ast);
  if (tag !== 'SelectStmt') throw new Error(`not a SELECT: ${tag}`);
  return bindSelect(new BindContext(stmt, env), n, undefined).plan;
}
