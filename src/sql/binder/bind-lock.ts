import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { qualifyExisting } from './resolve-relation.js';

/** PostgreSQL's lock mode numbers (lockdefs.h) as the parser gives them. */
const ACCESS_SHARE = 1;

/**
 * LOCK [TABLE] t, … IN ACCESS SHARE MODE (pg_dump takes it on every table it dumps).
 * Floe's readers work from snapshots, so that lock, which only DROP and ALTER would wait
 * for, is accepted once the tables exist; the session requires a transaction block, as
 * PostgreSQL does. Stronger modes would have to block writers, which Floe cannot: 0A000.
 */
export function bindLock(ctx: BindContext, n: Raw): BoundStatement {
  const tables = ((n.relations as Raw[] | undefined) ?? []).map((r) => {
    const rv = unwrap(r)[1];
    return qualifyExisting(ctx, rv.schemaname, rv.relname);
  });
  if (Number(n.mode ?? 0) !== ACCESS_SHARE) {
    throw new FloeError(SqlState.featureNotSupported, 'LOCK TABLE is supported only IN ACCESS SHARE MODE', { position: positionOf(unwrap((n.relations as Raw[])[0]!)[1]) });
  }
  return { kind: 'utility', command: { kind: 'lockTable', tables } };
}
