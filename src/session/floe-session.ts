import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { typeOid, valueTypeOid } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import { durationSettingMs } from '../common/duration-setting.js';
import type {
  BoundPortal, PreparedStatement, SessionEvents, SessionHandler, StatementResult, TransactionStatus,
} from '../common/session-handler.js';
import { bindStatement, parseStatements } from '../sql/index.js';
import type { ParsedStatement } from '../sql/index.js';
import { cachedPlanCheck } from './cached-plan-check.js';
import { SESSION_COMMANDS } from './commands/run-utility.js';
import { endImplicitTransaction } from './commands/transaction-commands.js';
import type { Prepared } from './prepared-statements.js';
import { SessionContext } from './session-context.js';
import type { SessionDeps } from './session-context.js';
import { startStatementTimer, timedResult } from './statement-timeout.js';
import { statementParamTypes } from './statement-param-types.js';
import { TransactionState } from './transaction-state.js';
import { isReplicationConnection, parseReplicationCommand } from './replication/replication-command.js';
import { readAsOfSlot } from './replication/read-as-of-slot.js';
import { streamRowFilter } from './replication/stream-row-security.js';
import { WalSender } from './replication/wal-sender.js';
import { sqlTypeForOid } from './type-for-oid.js';
import { runBound, runParsed } from './run-statement.js';

export type { SessionDeps } from './session-context.js';

/** Creates the engine side of one connection. */
export function createFloeSession(deps: SessionDeps): SessionHandler {
  return new FloeSession(deps);
}

/**
 * One client session as the wire sees it: query strings and the extended protocol's
 * Parse/Bind/Execute, each statement run against the session's context
 * (session-context.ts) and its utility commands (commands/).
 */
class FloeSession implements SessionHandler {
  readonly #ctx: SessionContext;
  /** The walsender commands of a `replication=database` connection. */
  readonly #walSender: WalSender | undefined;

  constructor(deps: SessionDeps) {
    this.#ctx = new SessionContext(deps, SESSION_COMMANDS);
    this.#walSender = isReplicationConnection(deps.startup)
      ? new WalSender({
        warehouse: deps.warehouse, startup: deps.startup, timeZone: () => this.#ctx.settings.get('timezone') ?? 'UTC',
        useSnapshot: (id) => readAsOfSlot(this.#ctx, id), rowFilter: streamRowFilter(this.#ctx),
      })
      : undefined;
  }

  async start(events: SessionEvents): Promise<Readonly<Record<string, string>>> {
    this.#ctx.events = events;
    return this.#ctx.settings.reported();
  }

  transactionStatus(): TransactionStatus {
    return this.#ctx.transaction.status();
  }

  async sync(): Promise<void> {
    // Autocommit statements finish their own transactions; nothing is left open between Syncs.
  }

  readyForQuery(): void {
    // An autocommit statement's transaction ends with its query cycle (a failed one was rolled back in fail()).
    if (this.#ctx.transaction.current === undefined) this.#ctx.server.transactionEnded(true);
    this.#ctx.server.cycleEnded();
  }

  idleTimeout(): { ms: number; inTransaction: boolean } {
    const inTransaction = this.transactionStatus() !== 'I';
    return { ms: durationSettingMs(this.#ctx.settings.values, inTransaction ? 'idle_in_transaction_session_timeout' : 'idle_session_timeout'), inTransaction };
  }

  logMinDurationMs(): number {
    return durationSettingMs(this.#ctx.settings.values, 'log_min_duration_statement');
  }

  async close(): Promise<void> {
    const ctx = this.#ctx;
    this.#walSender?.close();
    ctx.server.close();
    await ctx.cursors.closeAll(true);
    const t = ctx.transaction.current;
    ctx.transaction.current = undefined;
    if (t?.lake && t.lake.state === 'open') await t.lake.abort().catch(() => undefined);
    await ctx.temp.close();
  }

  async *simpleQuery(sql: string, signal: AbortSignal): AsyncIterable<StatementResult> {
    const replication = this.#walSender === undefined ? undefined : parseReplicationCommand(sql);
    if (replication !== undefined) {
      yield await this.#walSender!.run(replication, signal);
      return;
    }
    const ctx = this.#ctx;
    // An implicit transaction left by a query string the wire stopped reading early ends here.
    await endImplicitTransaction(ctx, false);
    ctx.server.statementStarted(sql);
    let stmts: ParsedStatement[];
    try {
      stmts = sql.trim() === '' ? [] : parseStatements(sql);
    } catch (e) {
      ctx.fail();
      throw e;
    }
    if (stmts.length === 0) {
      yield { kind: 'empty' };
      return;
    }
    // Several statements in one Query message run as one implicit transaction, as in PostgreSQL.
    if (stmts.length > 1 && ctx.transaction.current === undefined) ctx.transaction.current = TransactionState.create(true, ctx.settings.get('default_transaction_isolation'));
    let ok = false;
    try {
      for (const stmt of stmts) {
        // statement_timeout runs per statement, and on while the wire streams its rows.
        const timer = startStatementTimer(signal, durationSettingMs(ctx.settings.values, 'statement_timeout'));
        const started = performance.now();
        try {
          yield ctx.counted(stmt.text, started, await ctx.guard(() => runParsed(ctx, stmt, [], undefined, timer.signal)));
        } finally {
          timer.stop();
        }
      }
      ok = true;
    } finally {
      await endImplicitTransaction(ctx, ok);
    }
  }

  async prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedStatement> {
    const ctx = this.#ctx;
    await endImplicitTransaction(ctx, false);
    return ctx.guard(async () => {
      const stmts = parseStatements(sql);
      if (stmts.length > 1) throw new FloeError(SqlState.syntaxError, 'cannot insert multiple commands into a prepared statement');
      const stmt = stmts[0];
      const declared = paramTypeOids.map((o) => (o === 0 ? undefined : sqlTypeForOid(o)));
      if (stmt === undefined) return { stmt, cached: { bound: undefined, check: undefined }, paramTypes: [], paramTypeOids: [], columns: null } satisfies Prepared;
      ctx.transaction.checkNotFailed(stmt);
      const bound = bindStatement(stmt, ctx.bindEnv(declared));
      // EXPLAIN's parameters are its statement's (Kysely explains `… WHERE id = $1` with a value bound).
      const paramTypes = statementParamTypes(bound) ?? declared.map((t) => t ?? ({ kind: 'text' } as SqlType));
      return {
        stmt, paramTypes,
        cached: { bound, check: cachedPlanCheck(bound, ctx.deps.warehouse, ctx.planContext()) },
        paramTypeOids: paramTypes.map((t) => typeOid(t)),
        ...(paramTypes.some((t) => valueTypeOid(t) !== typeOid(t)) ? { paramCodecOids: paramTypes.map((t) => valueTypeOid(t)) } : {}),
        columns: ctx.columnsOf(bound),
      } satisfies Prepared;
    });
  }

  async bind(statement: PreparedStatement, params: readonly unknown[]): Promise<BoundPortal> {
    const ctx = this.#ctx;
    const p = statement as Prepared;
    return {
      columns: p.columns,
      execute: (signal) => ctx.guard(async () => {
        if (p.stmt === undefined) return { kind: 'empty' } as const;
        ctx.transaction.checkNotFailed(p.stmt);
        ctx.server.statementStarted(p.stmt.source);
        const timer = startStatementTimer(signal, durationSettingMs(ctx.settings.values, 'statement_timeout'));
        const started = performance.now();
        try {
          return ctx.counted(p.stmt.text, started, timedResult(await runBound(ctx, ctx.preparedPlan(p, p.stmt), params, timer.signal, p.stmt.text), timer));
        } catch (e) {
          timer.stop();
          throw e;
        }
      }),
      close: () => undefined,
    };
  }
}
