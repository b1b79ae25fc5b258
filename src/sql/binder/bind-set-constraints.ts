import type { BoundStatement } from '../bound-statement.js';
import { unwrap, type Raw } from './ast.js';

/**
 * SET CONSTRAINTS { ALL | name [, …] } { DEFERRED | IMMEDIATE }. The grammar gives each
 * name as a RangeVar (schema.constraint); which tables hold constraints of that name is
 * the session's to find, since it depends on the search path and the transaction.
 */
export function bindSetConstraints(n: Raw): BoundStatement {
  const list = n.constraints as Raw[] | undefined;
  const names = list === undefined ? 'all' as const : list.map((r) => {
    const rv = unwrap(r)[1];
    return { ...(rv.schemaname !== undefined ? { schema: rv.schemaname as string } : {}), name: rv.relname as string };
  });
  return { kind: 'utility', command: { kind: 'setConstraints', names, deferred: n.deferred === true } };
}
