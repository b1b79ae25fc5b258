import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { AclRight, type TableMetadata } from '../../lake/index.js';
import { checkAccesses } from '../check-accesses.js';
import { rowPredicate, type RowPredicate } from '../row-predicate.js';
import type { SessionContext } from '../session-context.js';

/** Per row of a batch, whether the stream sends it (the service's RowVisibility). */
type RowVisibility = (rows: readonly (readonly unknown[])[]) => Promise<readonly boolean[]>;

/**
 * What a replication connection's role may receive of a published table's changes, asked by
 * the stream as it reaches the table: SELECT on it (42501 otherwise; superusers and
 * pg_read_all_data pass), then the USING of the SELECT policies that apply to the role,
 * compiled into a row test — or nothing to filter when none apply. With `row_security`
 * off a policy that would apply stops the stream (42501), as it stops a query: a role that
 * must not depend on a table owner's policies learns of them rather than miss rows.
 */
export function streamRowFilter(ctx: SessionContext): (table: TableMetadata) => RowVisibility | undefined {
  // Bound again only when what the binding depends on changes: the columns, the policies' text, the search path.
  const bound = new Map<number, { signature: string; predicate: RowPredicate }>();
  return (table) => {
    requireSelect(ctx, table);
    const session = ctx.bindEnv();
    // Raises 42501 under row_security = off when a policy applies (row-security.ts).
    const using = session.rowSecurity(table.id, 'select')?.using;
    if (using === undefined) return undefined;
    // Replication clients (pg_recvlogical, a subscriber's walreceiver) empty search_path, where
    // PostgreSQL resolved the policy's names when it was created: the table's schema comes first.
    const env = { ...session, searchPath: [...new Set([table.namespace, ...session.searchPath])] };
    const signature = JSON.stringify([table.columns.map((c) => [c.name, c.type]), using, env.searchPath]);
    let entry = bound.get(table.id);
    if (entry?.signature !== signature) bound.set(table.id, entry = { signature, predicate: rowPredicate(env, table, using) });
    // A policy's subqueries read other relations as the role, as a query's would.
    checkAccesses(ctx.deps.warehouse, ctx.identity, entry.predicate.accesses);
    const predicate = entry.predicate;
    return (rows) => predicate.test(rows, ctx.execContext([], new AbortController().signal, undefined));
  };
}

/** SELECT on every column the stream sends, through the table's ACL or the columns'. */
function requireSelect(ctx: SessionContext, table: TableMetadata): void {
  const p = ctx.privileges;
  if (p.isSuperuser() || table.columns.every((c) => p.columnHeld(table.id, c.name, AclRight.select))) return;
  throw new FloeError(SqlState.insufficientPrivilege, `permission denied for table ${table.name}`);
}
