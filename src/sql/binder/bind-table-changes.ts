import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { Exprs, type Expr } from '../../exec/index.js';
import { tableChangesByArgumentsName, tableChangesName } from '../system-catalog/lake-system-tables.js';
import { positionOf, strList, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import type { BoundFrom } from './bind-from.js';
import { noteRead, scanRelation, type ScanOptions } from './bind-from.js';
import { coerceTo } from './coerce.js';
import { isLiteralValue, isParameterValue } from './constant-or-parameter.js';
import { splitQualifiedName, tryResolveRelation, type ResolvedRelation } from './resolve-relation.js';
import type { Scope } from './scope.js';

const int8 = { kind: 'int8' } as const;

/**
 * `FROM table_changes('t', from, to)`: the change rows committed after snapshot
 * `from` (exclusive; NULL: from the start) up to `to` (inclusive; omitted or NULL:
 * main's head), in commit order. The table's columns are known only from its name,
 * so the call binds to a virtual relation of the session's registry, named by
 * tableChangesName; its snapshots must be constants or parameters (read when the scan
 * starts, tableChangesByArgumentsName).
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
  // The snapshots as parameters (a prepared statement's, a refresh's): the scan reads them when it starts.
  const isParam = (e: Expr | undefined): boolean => e !== undefined && isParameterValue(e);
  if (isParam(fromArg) || isParam(toArg)) {
    // Beside a parameter, the other snapshot is still a constant, a parameter or NULL: nothing a row holds.
    const given = (e: Expr | undefined): boolean => e === undefined || isParameterValue(e) || isLiteralValue(e);
    if (!given(fromArg) || !given(toArg)) {
      throw new FloeError(SqlState.invalidParameterValue, 'table_changes: from and to must be snapshot id constants, parameters or NULL', { position });
    }
    const asId = (e: Expr | undefined): Expr => (e === undefined ? Exprs.literal(null, int8) : coerceTo(ctx, e, int8, 'explicit', position));
    return scanChanges(ctx, n, rel, tableChangesByArgumentsName(rel.table.name), call, parent, correlation, [asId(fromArg), asId(toArg)]);
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
  return scanChanges(ctx, n, rel, tableChangesName(rel.table.name, from, to), call, parent, correlation);
}

function scanChanges(
  ctx: BindContext, n: Raw, rel: Extract<ResolvedRelation, { kind: 'lake' }>, name: string, call: Raw, parent: Scope | undefined, correlation: { correlated: boolean },
  args?: readonly Expr[],
): BoundFrom {
  // The table's change rows need SELECT on the table, as its rows do.
  noteRead(ctx, rel);
  const vt = ctx.env.virtualTables.lookup(rel.table.namespace, name);
  if (!vt) throw new FloeError(SqlState.featureNotSupported, 'table_changes is not available in this session', { position: positionOf(call) });
  const o: ScanOptions = {
    relation: (n.alias?.aliasname as string | undefined) ?? 'table_changes', colnames: strList(n.alias?.colnames),
    travel: undefined, parent, correlation, location: call, ...(args === undefined ? {} : { args }),
  };
  return scanRelation(ctx, { kind: 'virtual', table: vt }, o);
}
