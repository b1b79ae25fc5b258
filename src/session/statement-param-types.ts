import type { SqlType } from '../common/sql-type.js';
import type { BoundStatement } from '../sql/index.js';

/** The $n types a bound statement takes: its own, or for EXPLAIN those of the statement it explains, for CREATE TABLE AS its query's; undefined for other commands. */
export function statementParamTypes(bound: BoundStatement): readonly SqlType[] | undefined {
  if ('paramTypes' in bound) return bound.paramTypes;
  if (bound.kind === 'utility' && bound.command.kind === 'explain') return statementParamTypes(bound.command.statement);
  if (bound.kind === 'ddl' && bound.command.kind === 'createTableAs') return bound.command.paramTypes;
  return undefined;
}
