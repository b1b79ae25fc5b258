import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Expr } from '../../exec/index.js';
import { tableChangesName } from '../system-catalog/lake-system-tables.js';
import { positionOf, strList, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import type { BoundFrom } from './bind-from.js';
import { noteRead, scanRelation, type ScanOptions } from './bind-from.js';
import { splitQualifiedName, tryResolveRelation } from './resolve-relation.js';
import type { Scope } from './scope.js';

/**
 * `FROM table_changes('t', from, to)`: the change rows committed after snapshot
 * `from` (exclusive; NULL: from the start) up to `to` (inclusive; omitted or NULL:
 * main's head), in commit order. The table's columns are known only from its name,
 * so the call binds to a virtual relation of the session's registry, named by
 * tableChangesName; its arguments must be constants.
 */
export function bindTableChanges(
  ctx: BindContext, n: Raw, call: Raw, args: readonly Expr[], parent: Scope | undefined, correlation: { correlated: boolean },
): BoundFrom {
  const position = positionOf(call);
  if (args.length < 1 || args.length > 3) {
    throw new FloeError(SqlState.undefinedFunction, 'table_changes takes (table, from_snapshot [, to_snapshot])', { position });
  }
  const [tableArg, fromArg, toArg] = args;
  if (tableArg!.kind !== 'literal' || typeof tableArg!.value !== 'string') {
    throw new FloeError(SqlState.featureNotSupported, 'table_changes needs the table name as a string constant', { position });
  }
  const parts = splitQualifiedName(tableArg!.value);
  const name = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const rel = tryResolveRelation(ctx, schema, name);
  if (!rel || rel.kind !== 'lake' || rel.branch !== undefined) {
    throw new FloeError(SqlState.undefinedTable, `relation "${tableArg!.value}" does not exist`, { position });
  }
  const snapshotId = (e: Expr | undefined, what: string): bigint | undefined => {
    if (e === undefined) return undefined;
    if (e.kind === 'literal' && e.value === null) return undefined;
    if (e.kind === 'literal' && (typeof e.value === 'number' || typeof e.value === 'bigint') && Number.isInteger(Number(e.value))) return BigInt(e.value);
    if (e.kind === 'literal' && typeof e.value === 'string' && /^\s*\d+\s*$/.test(e.value)) return BigInt(e.value.trim());
    throw new FloeError(SqlState.invalidParameterValue, `table_changes: ${what} must be a snapshot id constant or NULL`, { position });
  };
  const from = snapshotId(fromArg, 'from');
  const to = snapshotId(toArg, 'to');
  if (from !== undefined && to !== undefined && from > to) {
    throw new FloeError(SqlState.invalidParameterValue, `table_changes: from snapshot ${from} is after to snapshot ${to}`, { position });
  }
  // The table's change rows need SELECT on the table, as its rows do.
  noteRead(ctx, rel);
  const vt = ctx.env.virtualTables.lookup(rel.table.namespace, tableChangesName(rel.table.name, from, to));
  if (!vt) throw new FloeError(SqlState.featureNotSupported, 'table_changes is not available in this session', { position });
  const o: ScanOptions = {
    relation: (n.alias?.aliasname as string | undefined) ?? 'table_changes', colnames: strList(n.alias?.colnames),
    travel: undefined, parent, correlation, location: call,
  };
  return scanRelation(ctx, { kind: 'virtual', table: vt }, o);
}
