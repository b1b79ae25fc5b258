import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { endSpan, startSpan } from '../common/latency-spans.js';
import type { SqlType } from '../common/sql-type.js';
import type { RowBatch, StatementResult } from '../common/session-handler.js';
import { executePlan } from '../exec/index.js';
import { bindStatement, type BoundStatement, type ParsedStatement } from '../sql/index.js';
import { describeColumns, toRowBatch } from './result-columns.js';
import { abortReason, type SessionContext } from './session-context.js';
import { isolationText } from './transaction-isolation.js';
import { checkAccesses } from './check-accesses.js';
import { audit } from './statement-audit.js';

/**
 * How one statement runs in a session: bound, then a query's rows streamed to the wire, a
 * DML statement executed and (outside a transaction block) committed, and DDL and utility
 * commands handed to src/session/commands through the context.
 */
export async function runParsed(
  ctx: SessionContext, stmt: ParsedStatement, params: readonly unknown[], paramTypes: readonly (SqlType | undefined)[] | undefined, signal: AbortSignal,
): Promise<StatementResult> {
  ctx.transaction.checkNotFailed(stmt);
  const started = startSpan();
  const bound = bindStatement(stmt, ctx.bindEnv(paramTypes));
  endSpan('session.bind', started);
  return runBound(ctx, bound, params, signal, stmt.text);
}

/** Runs a bound statement, audited (statement-audit.ts) when it is of a kind the trail keeps; `text` is what the audit row shows. */
export async function runBound(ctx: SessionContext, bound: BoundStatement, params: readonly unknown[], signal: AbortSignal, text?: string): Promise<StatementResult> {
  return audit(ctx.deps.audit, () => ctx.auditContext(), bound, text, () => runChecked(ctx, bound, params, signal));
}

async function runChecked(ctx: SessionContext, bound: BoundStatement, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
  checkAccesses(ctx.deps.warehouse, ctx.identity, bound.accesses);
  await enterStatement(ctx, bound);
  switch (bound.kind) {
    case 'query': {
      const types = bound.columns.map((c) => c.type);
      const batches = executePlan(ctx.physicalPlan(bound), ctx.execContext(params, signal, ctx.transaction.current?.lake));
      return { kind: 'rows', columns: describeColumns(bound.columns), batches: rowBatches(ctx, batches, types, signal), commandTag: (n) => `SELECT ${n}` };
    }
    case 'dml': return runDml(ctx, bound, params, signal);
    case 'ddl': return { kind: 'command', tag: await ctx.commands.runDdl(ctx, bound.command, params) };
    case 'utility': return ctx.commands.runUtility(ctx, bound.command, signal, params);
  }
}

export async function runDml(ctx: SessionContext, bound: Extract<BoundStatement, { kind: 'dml' }>, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
  let started = startSpan();
  const { lake, autocommit } = await ctx.transaction.writeTxn(ctx.settings.get('default_transaction_isolation'));
  endSpan('dml.begin', started);
  started = startSpan();
  let count = 0;
  const execCtx = ctx.execContext(params, signal, lake, (n) => { count += n; });
  const batches = executePlan(ctx.physicalPlan(bound), execCtx);
  const commit = async () => {
    endSpan('dml.execute', started);
    started = startSpan();
    if (autocommit) await ctx.commitLake(lake);
    endSpan('dml.commit', started);
  };
  const abort = async () => { if (autocommit && lake.state === 'open') await lake.abort().catch(() => undefined); };
  if (bound.columns.length > 0) {
    const types = bound.columns.map((c) => c.type);
    return { kind: 'rows', columns: describeColumns(bound.columns), batches: rowBatches(ctx, batches, types, signal, commit, abort), commandTag: () => bound.commandTag(count) };
  }
  try {
    for await (const _ of batches) { /* DML without RETURNING yields no rows */ }
    if (signal.aborted) throw abortReason(signal);
    await commit();
  } catch (e) {
    await abort();
    throw signal.aborted && !(e instanceof FloeError) ? abortReason(signal) : e;
  }
  return { kind: 'command', tag: bound.commandTag(count) };
}

/**
 * Keeps transaction_isolation in step with the transaction, and at REPEATABLE READ or
 * SERIALIZABLE begins the lake transaction at the first statement that reads, so that
 * every read of a table goes through its snapshot, pinned at the first read of it.
 */
async function enterStatement(ctx: SessionContext, bound: BoundStatement): Promise<void> {
  ctx.settings.values.set('transaction_isolation', ctx.transaction.current?.isolation ?? isolationText(ctx.settings.get('default_transaction_isolation')));
  await ctx.transaction.enterStatement(bound);
}

async function* rowBatches(
  ctx: SessionContext, batches: AsyncIterable<RecordBatch>, types: readonly SqlType[], signal: AbortSignal,
  onDone?: () => Promise<void>, onError?: () => Promise<void>,
): AsyncIterable<RowBatch> {
  let completed = false;
  try {
    for await (const b of batches) {
      if (signal.aborted) throw abortReason(signal);
      yield toRowBatch(b, types);
    }
    await onDone?.();
    completed = true;
  } catch (e) {
    ctx.fail();
    throw signal.aborted && !(e instanceof FloeError && (e.sqlstate === SqlState.queryCanceled || e.severity === 'FATAL')) ? abortReason(signal) : e;
  } finally {
    // Also reached when the wire closes the portal before the last row: an autocommit write is then undone.
    if (!completed) await onError?.();
  }
}
