import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BindEnv } from '../bind-env.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ParsedStatement } from '../parsed-statement.js';

/** Binds one parsed statement: names, types, and the optimized physical plan. */
export function bindStatement(stmt: ParsedStatement, env: BindEnv): BoundStatement {
  void env;
  throw new FloeError(SqlState.featureNotSupported, `statement not supported yet: ${Object.keys(stmt.ast)[0] ?? '?'}`);
}
