import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { StatementResult } from '../../common/session-handler.js';
import { parseValue } from '../../exec/index.js';
import type { TableMetadata } from '../../lake/index.js';
import { callOptimize } from '../call-optimize.js';
import { callRefreshMaterializedView } from '../call-refresh-materialized-view.js';
import { procedureArguments } from '../procedure-arguments.js';
import type { SessionContext } from '../session-context.js';
import { splitQualifiedName } from '../../sql/index.js';
import type { UtilityHandlers } from './utility-handler.js';
import { evalArgs } from '../internal-statements.js';

/** CALL of the lakehouse procedures (Iceberg's and Paimon's names: expire_snapshots, rollback_to_snapshot, fast_forward, optimize, …). */
export const callCommands: Pick<UtilityHandlers, 'call'> = {
  async call(ctx, c, signal) {
    return call(ctx, c.procedure, await evalArgs(ctx, ctx.physicalPlan(c.args), c.args.types, signal), c.argNames, signal);
  },
};

async function call(ctx: SessionContext, procedureName: string, given: unknown[], names: readonly (string | undefined)[] | undefined, signal: AbortSignal): Promise<StatementResult> {
  const w = ctx.deps.warehouse;
  const procedure = procedureName.toLowerCase().replace(/^(system|floe)\./, '');
  const args = procedureArguments(procedure, given, names);
  const table = (name: unknown, kindWord = 'table') => {
    const text = String(name);
    const parts = splitQualifiedName(text);
    const n = parts[parts.length - 1] ?? '';
    const ns = parts.length > 1 ? parts[parts.length - 2]! : ctx.searchPath().find((s) => w.getTable(s, n)) ?? 'public';
    const t = w.getTable(ns, n);
    if (!t) throw new FloeError(SqlState.undefinedTable, `relation "${text}" does not exist`);
    // Every procedure rewrites the table's history or files: its owner's business, as ALTER TABLE is.
    ctx.privileges.requireOwner({ kind: 'relation', id: t.id }, kindWord, t.name);
    return t;
  };
  switch (procedure) {
    case 'fast_forward': await w.fastForward(table(args[0]), String(args[1]), String(args[2])); break;
    case 'rollback_to_snapshot': await w.rollbackToSnapshot(table(args[0]), snapshotIdArg(args[1])); break;
    case 'rollback_to_timestamp': await w.rollbackToTimestamp(table(args[0]), timestampArg(ctx, args[1], 'rollback_to_timestamp')); break;
    case 'expire_snapshots': return expireSnapshots(ctx, table(args[0]), args.slice(1));
    case 'optimize': return callOptimize(ctx.optimizing, table(args[0]), args[1]);
    case 'refresh_materialized_view': return callRefreshMaterializedView(ctx, table(args[0], 'materialized view'), args[1], signal);
    default: throw new FloeError(SqlState.undefinedFunction, `procedure ${procedureName} does not exist`);
  }
  return { kind: 'command', tag: 'CALL' };
}

/** A procedure's timestamp argument: a timestamptz value, or text read as one (a zone-less time is UTC). */
function timestampArg(ctx: SessionContext, v: unknown, procedure: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') {
    const zoned = /[zZ]$|[+-]\d{2}(:?\d{2})?$/.test(v.trim()) ? v : `${v.trim()}+00`;
    return parseValue(zoned, { kind: 'timestamptz' }, ctx.textSettings()) as bigint;
  }
  throw new FloeError(SqlState.invalidParameterValue, `${procedure} needs a timestamp argument`, {
    hint: `e.g. CALL ${procedure}('t', now() - interval '7 days'${procedure === 'expire_snapshots' ? ', 1' : ''})`,
  });
}

function snapshotIdArg(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return BigInt(v.trim());
  throw new FloeError(SqlState.invalidParameterValue, `a snapshot id must be an integer, not "${String(v)}"`);
}

/** `CALL expire_snapshots('t', older_than [, retain_last])` (Iceberg's procedure; positional arguments). */
async function expireSnapshots(ctx: SessionContext, table: TableMetadata, args: readonly unknown[]): Promise<StatementResult> {
  const [olderThanArg, retainLast] = args;
  const olderThan = timestampArg(ctx, olderThanArg, 'expire_snapshots');
  if (retainLast !== undefined && retainLast !== null && !(Number(retainLast) >= 1)) {
    throw new FloeError(SqlState.invalidParameterValue, 'expire_snapshots: retain_last must be at least 1');
  }
  await ctx.deps.warehouse.expireSnapshots(table, {
    olderThanMicros: olderThan, ...(retainLast === undefined || retainLast === null ? {} : { retainLast: Number(retainLast) }),
  });
  return { kind: 'command', tag: 'CALL' };
}
