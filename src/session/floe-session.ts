import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { endSpan, startSpan } from '../common/latency-spans.js';
import { formatType as formatTypeName, typeOid, valueTypeOid } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import { executePlan } from '../exec/execute.js';
import { bindScanFilters } from '../exec/operators/bind-scan-filters.js';
import { checkRuntimeFilterSetting } from '../exec/operators/runtime-filter.js';
import { resolveSnapshotSelectorIn } from '../exec/scan-snapshot-selector.js';
import type { ExecContext, ExecLakeTransaction, ExecWarehouse, OperatorMetrics } from '../exec/exec-context.js';
import type { ScanPool } from '../exec/pool/scan-pool.js';
import { planInputs } from '../exec/plan/physical-plan.js';
import type { LakeScanPlan, PhysicalPlan } from '../exec/plan/physical-plan.js';
import { explainTree } from '../planner/index.js';
import type { ExplainNode } from '../planner/index.js';
import { explainColumn, explainResult } from './explain-result.js';
import type { ScanReport } from '../planner/index.js';
import { parseValue } from '../exec/types/text-io.js';
import { vectorToValues } from '../exec/arrow/vector-values.js';
import type { ConstraintModes, DataFileInfo, LakeTransaction, TableMetadata, TxnSavepoint, Warehouse } from '../lake/index.js';
import { withConstraintMode } from '../lake/index.js';
import { constraintsToSet } from './constraints-to-set.js';
import { bindStatement, bindTableCheckConstraints, parseStatements } from '../sql/index.js';
import { enforceCheckConstraints } from '../exec/operators/check-constraints.js';
import type { BoundStatement, CatalogTable, DdlCommand, ParsedStatement, ResultColumn, UtilityCommand } from '../sql/index.js';
import type { SystemCatalog } from '../sql/system-catalog/index.js';
import type { VirtualTableRegistry } from '../exec/virtual-table.js';
import type {
  BoundPortal, ColumnDescription, CopyInSink, PreparedStatement, RowBatch, SessionEvents, SessionHandler, StartupInfo,
  StatementResult, TransactionStatus,
} from '../common/session-handler.js';
import { binaryCopyValue, copyRowsText, formatCopyRow, parseCopyBytes } from './copy-format.js';
import { describeColumns, rowsBatch, textColumn, toRowBatch } from './result-columns.js';
import { cachedPlanCheck, cachedPlanHolds, sameResultColumns } from './cached-plan-check.js';
import type { CachedPlanCheck } from './cached-plan-check.js';
import { DEFAULT_QUERY_MEMORY_LIMIT, QUERY_MEMORY_LIMIT, parseMemorySetting } from './memory-setting.js';
import { REPORTED_SETTINGS, defaultSettings, displayName, parseSearchPath } from './session-settings.js';
import { sqlTypeForOid } from './type-for-oid.js';
import { validateTableProperties } from './table-properties.js';
import { procedureArguments } from './procedure-arguments.js';
import { dropForeignKeysTo } from './drop-foreign-keys-to.js';
import { existingTablesToDrop } from './existing-tables-to-drop.js';
import { applyAlterTableAction, checkAlterTableActions, foreignKeyNotice, type AlterTableIo, type LakeAlterAction } from './alter-table-action.js';
import { columnRanges, liveRows } from './table-estimates.js';
import { runSequenceDdl } from './run-sequence-ddl.js';
import { runTypeDdl } from './run-type-ddl.js';
import { SessionSequenceState } from './session-sequence-state.js';
import { isolationLevel, isolationText } from './transaction-isolation.js';
import { createIndex, dropIndex, uniqueConstraintsForCreate } from './unique-ddl.js';
import type { OptimizingService } from '../service/optimizing/optimizing-service.js';
import { runSubscriptionDdl } from '../service/subscriptions/subscription-ddl.js';
import type { SubscriptionWorkers } from '../service/subscriptions/subscription-workers.js';
import { callOptimize, procedureResultColumns } from './call-optimize.js';
import { runOptimizerGroupDdl } from './run-optimizer-group-ddl.js';
import { checkNotView, dropViewsDependingOn, runViewDdl, type ViewDdlIo } from './run-view-ddl.js';
import { sessionOptimizingService } from './session-optimizing-service.js';
import { statementParamTypes } from './statement-param-types.js';
import { SessionWarehouse } from './session-warehouse.js';
import { durationSettingMs, formatDurationMs, isDurationSetting, parseDurationSetting } from '../common/duration-setting.js';
import { SessionServerFunctions } from './session-server-functions.js';
import { processSessionRegistry, type SessionRegistry } from './session-registry.js';
import { startStatementTimer, timedResult } from './statement-timeout.js';

export interface SessionDeps {
  readonly warehouse: Warehouse;
  readonly catalog: SystemCatalog;
  readonly startup: StartupInfo;
  /** Port the server listens on, reported by SHOW port. */
  readonly port?: number;
  /** Worker threads for lake scan tasks; without one, scans run on the session's thread. */
  readonly scanPool?: ScanPool;
  /** The server's default for floe.query_memory_limit (PostgreSQL memory units, e.g. "1GB"). */
  readonly queryMemoryLimit?: string;
  /** The self-optimizing service (floe serve's scheduler); without one, an inline service per warehouse. */
  readonly optimizing?: OptimizingService;
  /** The server's live sessions and advisory locks; without one, the process-wide registry. */
  readonly registry?: SessionRegistry;
  /** floe serve's subscription runners (CDC in); without them, subscription statements change the catalog only. */
  readonly subscriptions?: SubscriptionWorkers;
}

type QueryBound = Extract<BoundStatement, { kind: 'query' }>;

interface Prepared extends PreparedStatement {
  readonly stmt: ParsedStatement | undefined;
  readonly paramTypes: readonly SqlType[];
  /** The plan Execute reuses while what it was built against holds (cached-plan-check.ts). */
  readonly cached: { bound: BoundStatement | undefined; check: CachedPlanCheck | undefined };
}

interface Cursor {
  readonly columns: readonly ResultColumn[];
  readonly iterator: AsyncIterator<RecordBatch>;
  buffer: unknown[][];
  done: boolean;
  readonly hold: boolean;
}

interface Txn {
  /** A multi-statement simple query's implicit transaction: committed when the string ends, unless BEGIN made it explicit. */
  implicit: boolean;
  lake: LakeTransaction | undefined;
  failed: boolean;
  /** Each savepoint remembers the write count and the lake's mark (none before the lake transaction began). */
  readonly savepoints: { name: string; writes: number; lakeMark: TxnSavepoint | undefined; constraintModes: ConstraintModes }[];
  /** SET CONSTRAINTS so far (the lake transaction, begun lazily, takes them at begin). */
  constraintModes: ConstraintModes;
  writes: number;
  readonly startMicros: bigint;
  /** Values settings had before this transaction changed them: ROLLBACK restores all, COMMIT only SET LOCAL ones. */
  readonly settingsBefore: Map<string, string | undefined>;
  readonly localSettings: Set<string>;
  /** As asked (SHOW transaction_isolation); fixed once the transaction has read or written. */
  isolation: string;
}

const nowMicros = () => BigInt(Date.now()) * 1000n;

/** PostgreSQL's answer to a CancelRequest that reached a running statement. */
function canceled(): FloeError {
  return new FloeError(SqlState.queryCanceled, 'canceling statement due to user request');
}

/** The wire aborts with a FloeError reason (57014 cancel, FATAL 57P01 shutdown); anything else reads as a cancel. */
function abortReason(signal: AbortSignal): FloeError {
  return signal.reason instanceof FloeError ? signal.reason : canceled();
}

/**
 * Settings a StartupMessage carries: its parameters, plus `options` (-c name=value
 * / --name=value, as PGOPTIONS sends them). Floe speaks UTF8 only, so
 * client_encoding is reported as UTF8 whatever was asked, and a bare DateStyle
 * gets PostgreSQL's default order.
 */
function startupSettings(parameters: Readonly<Record<string, string>>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(parameters)) {
    const name = k.toLowerCase();
    if (name === 'user' || name === 'database' || name === 'replication') continue;
    if (name === 'options') {
      const re = /(?:-c\s*|--)([A-Za-z_.][\w.-]*)=((?:\\ |\S)*)/g;
      for (const m of v.matchAll(re)) out.push([m[1]!.toLowerCase().replaceAll('-', '_'), m[2]!.replaceAll('\\ ', ' ')]);
      continue;
    }
    out.push([name, v]);
  }
  return out.map(([name, v]): [string, string] => {
    if (name === 'client_encoding') return [name, 'UTF8'];
    if (name === 'datestyle' && !v.includes(',')) return [name, /^(iso|sql|postgres|german)$/i.test(v) ? `${v.toUpperCase() === 'POSTGRES' ? 'Postgres' : v.toUpperCase()}, MDY` : v];
    return [name, v];
  });
}

/** Utility statements that do not start a repeatable-read transaction's snapshot. */
const TRANSACTION_CONTROL: ReadonlySet<string> = new Set([
  'begin', 'commit', 'rollback', 'savepoint', 'release', 'rollbackTo', 'set', 'setTransaction', 'reset', 'show', 'discard', 'noop',
]);

/** Creates the engine side of one connection. */
export function createFloeSession(deps: SessionDeps): SessionHandler {
  return new FloeSession(deps);
}

/**
 * One client session: parse → bind → execute, transactions over src/lake,
 * settings, prepared statements and cursors, COPY formats.
 */
class FloeSession implements SessionHandler {
  readonly #deps: SessionDeps;
  /** deps.warehouse plus this session's temporary tables; #deps.warehouse is this. */
  readonly #temp: SessionWarehouse;
  readonly #settings: Map<string, string>;
  readonly #defaults: Map<string, string>;
  #events: SessionEvents | undefined;
  /** An explicit transaction (BEGIN … COMMIT), or undefined in autocommit. */
  #txn: Txn | undefined;
  readonly #prepared = new Map<string, { stmt: ParsedStatement; paramTypes: readonly SqlType[] }>();
  readonly #cursors = new Map<string, Cursor>();
  readonly #sequences: SessionSequenceState;
  readonly #optimizing: OptimizingService;
  /** pg_stat_activity, LISTEN/NOTIFY, advisory locks, signals to other sessions. */
  readonly #server: SessionServerFunctions;

  constructor(deps: SessionDeps) {
    this.#temp = new SessionWarehouse(deps.warehouse, deps.startup.processId);
    this.#deps = { ...deps, warehouse: this.#temp };
    this.#settings = defaultSettings(deps.startup);
    if (deps.port !== undefined) this.#settings.set('port', String(deps.port));
    this.#settings.set('floe.backend_pid', String(deps.startup.processId));
    this.#settings.set(QUERY_MEMORY_LIMIT, deps.queryMemoryLimit ?? DEFAULT_QUERY_MEMORY_LIMIT);
    for (const [name, v] of startupSettings(deps.startup.parameters)) this.#settings.set(name, isDurationSetting(name) ? formatDurationMs(parseDurationSetting(name, v)) : v);
    this.#defaults = new Map(this.#settings);
    this.#sequences = new SessionSequenceState(this.#temp);
    this.#optimizing = sessionOptimizingService(deps.warehouse, deps.optimizing);
    deps.catalog.attachServices?.(this.#temp, this.#optimizing);
    this.#server = new SessionServerFunctions(deps.registry ?? processSessionRegistry, {
      startup: deps.startup,
      settings: () => this.#settings,
      transactionStatus: () => this.transactionStatus(),
      transactionStartMicros: () => (this.#txn === undefined || this.#txn.implicit ? undefined : this.#txn.startMicros),
      events: () => this.#events,
      warning: (message) => this.#notice('WARNING', '01000', message),
    });
  }

  /** What `self-optimizing.group` may name: the service's groups. */
  #propertyChecks() {
    return { groupExists: (name: string) => this.#optimizing.groups().some((g) => g.name === name) };
  }

  async start(events: SessionEvents): Promise<Readonly<Record<string, string>>> {
    this.#events = events;
    const out: Record<string, string> = {};
    for (const [name, wireName] of Object.entries(REPORTED_SETTINGS)) {
      const v = this.#settings.get(name);
      if (v !== undefined) out[wireName] = v;
    }
    return out;
  }

  transactionStatus(): TransactionStatus {
    if (this.#txn === undefined || this.#txn.implicit) return 'I';
    return this.#txn.failed ? 'E' : 'T';
  }

  async sync(): Promise<void> {
    // Autocommit statements finish their own transactions; nothing is left open between Syncs.
  }

  readyForQuery(): void {
    // An autocommit statement's transaction ends with its query cycle (a failed one was rolled back in #fail).
    if (this.#txn === undefined) this.#server.transactionEnded(true);
    this.#server.cycleEnded();
  }

  idleTimeout(): { ms: number; inTransaction: boolean } {
    const inTransaction = this.transactionStatus() !== 'I';
    return { ms: durationSettingMs(this.#settings, inTransaction ? 'idle_in_transaction_session_timeout' : 'idle_session_timeout'), inTransaction };
  }

  async close(): Promise<void> {
    this.#server.close();
    for (const c of this.#cursors.values()) await c.iterator.return?.();
    this.#cursors.clear();
    const t = this.#txn;
    this.#txn = undefined;
    if (t?.lake && t.lake.state === 'open') await t.lake.abort().catch(() => undefined);
    await this.#temp.close();
  }

  async *simpleQuery(sql: string, signal: AbortSignal): AsyncIterable<StatementResult> {
    // An implicit transaction left by a query string the wire stopped reading early ends here.
    await this.#endImplicit(false);
    this.#server.statementStarted(sql);
    let stmts: ParsedStatement[];
    try {
      stmts = sql.trim() === '' ? [] : parseStatements(sql);
    } catch (e) {
      this.#fail();
      throw e;
    }
    if (stmts.length === 0) {
      yield { kind: 'empty' };
      return;
    }
    // Several statements in one Query message run as one implicit transaction, as in PostgreSQL.
    if (stmts.length > 1 && this.#txn === undefined) this.#txn = this.#newTxn(true);
    let ok = false;
    try {
      for (const stmt of stmts) {
        // statement_timeout runs per statement, and on while the wire streams its rows.
        const timer = startStatementTimer(signal, durationSettingMs(this.#settings, 'statement_timeout'));
        try {
          yield await this.#guard(() => this.#runParsed(stmt, [], undefined, timer.signal));
        } finally {
          timer.stop();
        }
      }
      ok = true;
    } finally {
      await this.#endImplicit(ok);
    }
  }

  /** Settings are transactional, as in PostgreSQL: undo a rolled-back transaction's SETs, and SET LOCAL always. */
  #restoreSettings(t: Txn, committed: boolean): void {
    for (const [name, before] of t.settingsBefore) {
      if (committed && !t.localSettings.has(name)) continue;
      if (before === undefined) this.#settings.delete(name);
      else if (this.#settings.get(name) !== before) {
        this.#settings.set(name, before);
        const wireName = REPORTED_SETTINGS[name];
        if (wireName) this.#events?.parameterStatus(wireName, before);
      }
    }
  }

  #newTxn(implicit: boolean): Txn {
    return {
      implicit, lake: undefined, failed: false, savepoints: [], writes: 0, startMicros: nowMicros(), constraintModes: {},
      settingsBefore: new Map(), localSettings: new Set(), isolation: isolationText(this.#settings.get('default_transaction_isolation')),
    };
  }

  /** Commits, then tells the self-optimizing service, so a fast stream's files are folded before they pile up. */
  async #commitLake(lake: LakeTransaction): Promise<void> {
    await lake.commit();
    this.#optimizing.nudge?.();
  }

  /** Ends an implicit transaction when its query string is done: commit on success, else roll back. */
  async #endImplicit(ok: boolean): Promise<void> {
    const t = this.#txn;
    if (!t?.implicit) return;
    this.#txn = undefined;
    const commit = ok && !t.failed;
    this.#restoreSettings(t, commit);
    await this.#closeCursors(false);
    try {
      if (t.lake && t.lake.state === 'open') {
        if (commit) await this.#commitLake(t.lake);
        else await t.lake.abort().catch(() => undefined);
      }
    } catch (e) {
      this.#server.transactionEnded(false);
      throw e;
    } finally {
      await this.#temp.endTransaction(commit);
    }
    this.#server.transactionEnded(commit);
  }

  async prepare(sql: string, paramTypeOids: readonly number[]): Promise<PreparedStatement> {
    await this.#endImplicit(false);
    return this.#guard(async () => {
      const stmts = parseStatements(sql);
      if (stmts.length > 1) throw new FloeError(SqlState.syntaxError, 'cannot insert multiple commands into a prepared statement');
      const stmt = stmts[0];
      const declared = paramTypeOids.map((o) => (o === 0 ? undefined : sqlTypeForOid(o)));
      if (stmt === undefined) return { stmt, cached: { bound: undefined, check: undefined }, paramTypes: [], paramTypeOids: [], columns: null } satisfies Prepared;
      this.#checkNotFailed(stmt);
      const bound = bindStatement(stmt, this.#bindEnv(declared));
      // EXPLAIN's parameters are its statement's (Kysely explains `… WHERE id = $1` with a value bound).
      const paramTypes = statementParamTypes(bound) ?? declared.map((t) => t ?? ({ kind: 'text' } as SqlType));
      return {
        stmt, paramTypes,
        cached: { bound, check: cachedPlanCheck(bound, this.#deps.warehouse, this.#searchPath()) },
        paramTypeOids: paramTypes.map((t) => typeOid(t)),
        ...(paramTypes.some((t) => valueTypeOid(t) !== typeOid(t)) ? { paramCodecOids: paramTypes.map((t) => valueTypeOid(t)) } : {}),
        columns: this.#columnsOf(bound),
      } satisfies Prepared;
    });
  }

  async bind(statement: PreparedStatement, params: readonly unknown[]): Promise<BoundPortal> {
    const p = statement as Prepared;
    return {
      columns: p.columns,
      execute: (signal) => this.#guard(async () => {
        if (p.stmt === undefined) return { kind: 'empty' } as const;
        this.#checkNotFailed(p.stmt);
        this.#server.statementStarted(p.stmt.source);
        const timer = startStatementTimer(signal, durationSettingMs(this.#settings, 'statement_timeout'));
        try {
          return timedResult(await this.#runBound(this.#preparedPlan(p, p.stmt), params, timer.signal), timer);
        } catch (e) {
          timer.stop();
          throw e;
        }
      }),
      close: () => undefined,
    };
  }

  /**
   * A prepared statement's plan: the cached one while the tables it names and the
   * search path are as they were, else planned again. As in PostgreSQL, a new plan
   * whose result columns differ from those Describe reported is refused.
   */
  #preparedPlan(p: Prepared, stmt: ParsedStatement): BoundStatement {
    const { bound, check } = p.cached;
    const searchPath = this.#searchPath();
    if (bound !== undefined && (check === undefined || cachedPlanHolds(check, this.#deps.warehouse, searchPath))) return bound;
    const fresh = bindStatement(stmt, this.#bindEnv(p.paramTypes));
    const columns = this.#columnsOf(fresh);
    if (!sameResultColumns(columns, p.columns)) throw new FloeError(SqlState.featureNotSupported, 'cached plan must not change result type');
    p.cached.bound = fresh;
    p.cached.check = cachedPlanCheck(fresh, this.#deps.warehouse, searchPath);
    return fresh;
  }

  // ---- running statements ----

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      this.#fail();
      throw e;
    }
  }

  #fail(): void {
    if (this.#txn) this.#txn.failed = true;
    else this.#server.transactionEnded(false);
  }

  #checkNotFailed(stmt: ParsedStatement): void {
    if (!this.#txn?.failed) return;
    const node = stmt.ast as Record<string, unknown>;
    const ts = node.TransactionStmt as { kind?: string } | undefined;
    const allowed = ts && ['TRANS_STMT_COMMIT', 'TRANS_STMT_ROLLBACK', 'TRANS_STMT_ROLLBACK_TO', 'TRANS_STMT_PREPARE', 'TRANS_STMT_COMMIT_PREPARED', 'TRANS_STMT_ROLLBACK_PREPARED'].includes(ts.kind ?? '');
    if (!allowed) {
      throw new FloeError(SqlState.inFailedSqlTransaction, 'current transaction is aborted, commands ignored until end of transaction block');
    }
  }

  async #runParsed(stmt: ParsedStatement, params: readonly unknown[], paramTypes: readonly (SqlType | undefined)[] | undefined, signal: AbortSignal): Promise<StatementResult> {
    this.#checkNotFailed(stmt);
    const started = startSpan();
    const bound = bindStatement(stmt, this.#bindEnv(paramTypes));
    endSpan('session.bind', started);
    return this.#runBound(bound, params, signal);
  }

  /** search_path with "$user" kept only when a schema of that name exists, as PostgreSQL does. */
  #searchPath(): string[] {
    const user = this.#deps.startup.user;
    const path = parseSearchPath(this.#settings.get('search_path') ?? 'public');
    const hasUserSchema = path.includes('$user') && this.#deps.warehouse.listNamespaces().includes(user);
    return path.flatMap((s) => (s === '$user' ? (hasUserSchema ? [user] : []) : [s]));
  }

  /** pg_catalog and information_schema, plus the lake's per-table system tables (t$snapshots, …). */
  #virtualTables(): VirtualTableRegistry {
    const c = this.#deps.catalog;
    return typeof c.forWarehouse === 'function' ? c.forWarehouse(this.#deps.warehouse) : c;
  }

  #bindEnv(paramTypes?: readonly (SqlType | undefined)[]) {
    // One statement's estimates read each table's file list once.
    const listed = new Map<number, DataFileInfo[] | undefined>();
    const filesOf = (t: CatalogTable): DataFileInfo[] | undefined => {
      if (!listed.has(t.id)) {
        const meta = this.#deps.warehouse.getTableById(t.id);
        listed.set(t.id, meta === undefined ? undefined : this.#deps.warehouse.listFiles(meta));
      }
      return listed.get(t.id);
    };
    return {
      warehouse: this.#deps.warehouse,
      searchPath: this.#searchPath(),
      virtualTables: this.#virtualTables(),
      paramTypes,
      estimateRows: (t: CatalogTable) => {
        const files = filesOf(t);
        return files === undefined ? undefined : liveRows(files);
      },
      columnRanges: (t: CatalogTable) => {
        const files = filesOf(t);
        return files === undefined ? undefined : columnRanges(files, t.columns);
      },
    };
  }

  #columnsOf(bound: BoundStatement): ColumnDescription[] | null {
    switch (bound.kind) {
      case 'query': return describeColumns(bound.columns);
      case 'dml': return bound.columns.length > 0 ? describeColumns(bound.columns) : null;
      case 'ddl': return null;
      case 'utility': {
        const c = bound.command;
        if (c.kind === 'show') return c.name === 'all' ? [textColumn('name'), textColumn('setting'), textColumn('description')] : [textColumn(displayName(c.name))];
        if (c.kind === 'explain') return [explainColumn(c.options.format)];
        if (c.kind === 'showTblProperties') return [textColumn('key'), textColumn('value')];
        if (c.kind === 'call') return procedureResultColumns(c.procedure.toLowerCase().replace(/^(system|floe)\./, ''));
        if (c.kind === 'fetch' && !c.move) {
          const cur = this.#cursors.get(c.cursor);
          return cur ? describeColumns(cur.columns) : null;
        }
        return null;
      }
    }
  }

  #execContext(params: readonly unknown[], signal: AbortSignal, txn: LakeTransaction | undefined, onRows?: (n: number) => void): ExecContext {
    return {
      warehouse: this.#deps.warehouse as unknown as ExecWarehouse,
      txn: txn as unknown as ExecLakeTransaction | undefined,
      params,
      signal,
      settings: this.#settings,
      user: this.#deps.startup.user,
      database: this.#deps.startup.database,
      searchPath: this.#searchPath(),
      virtualTables: this.#virtualTables(),
      pool: this.#deps.scanPool,
      memoryLimitBytes: parseMemorySetting(QUERY_MEMORY_LIMIT, this.#settings.get(QUERY_MEMORY_LIMIT) ?? DEFAULT_QUERY_MEMORY_LIMIT),
      setSetting: (name, value, isLocal) => this.#setFromFunction(name, value, isLocal),
      onRowsAffected: onRows,
      transactionStartMicros: this.#txn?.startMicros ?? nowMicros(),
      sequences: this.#sequences,
      server: this.#server,
    };
  }

  /** The lake transaction a write goes through: the explicit one (begun lazily), or a fresh autocommit one. */
  async #writeTxn(): Promise<{ lake: LakeTransaction; autocommit: boolean }> {
    if (this.#txn) {
      this.#txn.lake ??= await this.#deps.warehouse.begin({ isolation: isolationLevel(this.#txn.isolation), constraintModes: this.#txn.constraintModes });
      this.#txn.writes++;
      return { lake: this.#txn.lake, autocommit: false };
    }
    return { lake: await this.#deps.warehouse.begin({ isolation: isolationLevel(this.#settings.get('default_transaction_isolation')) }), autocommit: true };
  }

  /**
   * Keeps transaction_isolation in step with the transaction, and at REPEATABLE READ or
   * SERIALIZABLE begins the lake transaction at the first statement that reads, so that
   * every read of a table goes through its snapshot, pinned at the first read of it.
   */
  async #enterStatement(bound: BoundStatement): Promise<void> {
    const t = this.#txn;
    this.#settings.set('transaction_isolation', t?.isolation ?? isolationText(this.#settings.get('default_transaction_isolation')));
    if (t?.lake !== undefined && t.lake.state === 'open' && isolationLevel(t.isolation) === 'read committed' && !(bound.kind === 'utility' && TRANSACTION_CONTROL.has(bound.command.kind))) {
      t.lake.releaseReadSnapshots();
    }
    if (t === undefined || t.lake !== undefined || isolationLevel(t.isolation) === 'read committed') return;
    if (bound.kind === 'utility' && TRANSACTION_CONTROL.has(bound.command.kind)) return;
    t.lake = await this.#deps.warehouse.begin({ isolation: isolationLevel(t.isolation), constraintModes: t.constraintModes });
  }

  async #runBound(bound: BoundStatement, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    await this.#enterStatement(bound);
    switch (bound.kind) {
      case 'query': {
        const types = bound.columns.map((c) => c.type);
        const batches = executePlan(bound.plan, this.#execContext(params, signal, this.#txn?.lake));
        return { kind: 'rows', columns: describeColumns(bound.columns), batches: this.#rowBatches(batches, types, signal), commandTag: (n) => `SELECT ${n}` };
      }
      case 'dml': return this.#runDml(bound, params, signal);
      case 'ddl': return { kind: 'command', tag: await this.#runDdl(bound.command, params) };
      case 'utility': return this.#runUtility(bound.command, signal, params);
    }
  }

  async *#rowBatches(batches: AsyncIterable<RecordBatch>, types: readonly SqlType[], signal: AbortSignal, onDone?: () => Promise<void>, onError?: () => Promise<void>): AsyncIterable<RowBatch> {
    let completed = false;
    try {
      for await (const b of batches) {
        if (signal.aborted) throw abortReason(signal);
        yield toRowBatch(b, types);
      }
      await onDone?.();
      completed = true;
    } catch (e) {
      this.#fail();
      throw signal.aborted && !(e instanceof FloeError && (e.sqlstate === SqlState.queryCanceled || e.severity === 'FATAL')) ? abortReason(signal) : e;
    } finally {
      // Also reached when the wire closes the portal before the last row: an autocommit write is then undone.
      if (!completed) await onError?.();
    }
  }

  async #runDml(bound: Extract<BoundStatement, { kind: 'dml' }>, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    let started = startSpan();
    const { lake, autocommit } = await this.#writeTxn();
    endSpan('dml.begin', started);
    started = startSpan();
    let count = 0;
    const ctx = this.#execContext(params, signal, lake, (n) => { count += n; });
    const batches = executePlan(bound.plan, ctx);
    const commit = async () => {
      endSpan('dml.execute', started);
      started = startSpan();
      if (autocommit) await this.#commitLake(lake);
      endSpan('dml.commit', started);
    };
    const abort = async () => { if (autocommit && lake.state === 'open') await lake.abort().catch(() => undefined); };
    if (bound.columns.length > 0) {
      const types = bound.columns.map((c) => c.type);
      return { kind: 'rows', columns: describeColumns(bound.columns), batches: this.#rowBatches(batches, types, signal, commit, abort), commandTag: () => bound.commandTag(count) };
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

  // ---- DDL ----

  async #runDdl(c: DdlCommand, params: readonly unknown[] = []): Promise<string> {
    const w = this.#deps.warehouse;
    switch (c.kind) {
      case 'createSchema':
        await w.createNamespace(c.name, { ifNotExists: c.ifNotExists });
        return 'CREATE SCHEMA';
      case 'dropSchema':
        for (const n of c.names) await w.dropNamespace(n, { ifExists: c.ifExists, cascade: c.cascade });
        return 'DROP SCHEMA';
      case 'createTable': {
        if (c.properties) validateTableProperties(Object.keys(c.properties), c.properties, this.#propertyChecks());
        const existed = w.getTable(c.table.namespace, c.table.name) !== undefined;
        const created = await w.createTable({
          namespace: c.table.namespace, name: c.table.name, columns: c.columns, primaryKey: c.primaryKey,
          partitionBy: c.partitionBy, properties: c.properties,
          constraints: [
            ...uniqueConstraintsForCreate(w, c.table.namespace, c.table.name, c.primaryKey, c.columns.map((x) => x.name), c.unique ?? []),
            ...(c.constraints ?? []),
          ],
        }, { ifNotExists: c.ifNotExists });
        if (!existed) for (const k of c.constraints ?? []) { const n = foreignKeyNotice(k); if (n) this.#notice('NOTICE', SqlState.successfulCompletion, n); }
        if (existed && c.ifNotExists) this.#notice('NOTICE', SqlState.duplicateTable, `relation "${c.table.name}" already exists, skipping`);
        if (c.temporary && !existed) {
          this.#temp.noteCreated(created, c.temporary, this.#txn !== undefined);
          // Outside a transaction block the statement is its transaction: ON COMMIT DROP takes the table at once.
          if (this.#txn === undefined) await this.#temp.endTransaction(true);
        }
        return 'CREATE TABLE';
      }
      case 'dropTable': {
        for (const t of c.tables) {
          if (w.getTable(t.namespace, t.name) === undefined && w.getSequence(t.namespace, t.name) !== undefined) {
            throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a table`, { hint: 'Use DROP SEQUENCE to remove a sequence.' });
          }
        }
        checkNotView(w, c.tables);
        const tables = existingTablesToDrop(w, c, (message) => this.#notice('NOTICE', SqlState.successfulCompletion, message));
        await dropViewsDependingOn(w, tables.flatMap((t) => w.getTable(t.namespace, t.name)?.id ?? []), c.cascade, this.#viewDdlIo());
        await dropForeignKeysTo(w, tables, c.cascade, (n) => this.#events?.notice(n));
        for (const t of tables) await w.dropTable(t.namespace, t.name, { ifExists: c.ifExists });
        return 'DROP TABLE';
      }
      case 'alterTable': {
        let table = w.getTable(c.table.namespace, c.table.name);
        if (!table) {
          if (c.ifExists) return 'ALTER TABLE';
          throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
        }
        const io = this.#alterTableIo();
        const checked = await checkAlterTableActions(table, c.actions.filter((a): a is LakeAlterAction => a.kind !== 'createRef' && a.kind !== 'dropRef'), io);
        for (const a of c.actions) {
          switch (a.kind) {
            case 'createRef': {
              const opts = { fromSnapshot: a.fromSnapshot, orReplace: a.orReplace, ifNotExists: a.ifNotExists, retainMicros: a.retainMicros };
              if (a.refKind === 'branch') await w.createBranch(table, a.name, opts);
              else await w.createTag(table, a.name, opts);
              break;
            }
            case 'dropRef':
              await w.dropRef(table, a.name, { ifExists: a.ifExists, kind: a.refKind });
              break;
            default:
              if (a.kind === 'setProperties') validateTableProperties(Object.keys(a.properties), a.properties, this.#propertyChecks());
              if (a.kind === 'resetProperties') validateTableProperties(a.keys);
              table = await applyAlterTableAction(w, table, a, io, checked.has(a));
          }
        }
        return 'ALTER TABLE';
      }
      case 'createSequence': case 'alterSequence': case 'dropSequence':
        return runSequenceDdl(w, c, (message) => this.#notice('NOTICE', SqlState.successfulCompletion, message));
      case 'createIndex':
        return createIndex(w, c, (message) => this.#notice('NOTICE', '42P07', message));
      case 'dropIndex':
        return dropIndex(w, c, this.#searchPath(), (message) => this.#notice('NOTICE', SqlState.successfulCompletion, message));
      case 'createSubscription': case 'alterSubscription': case 'dropSubscription':
        return runSubscriptionDdl(c, {
          warehouse: w, inTransactionBlock: this.#txn !== undefined, workers: this.#deps.subscriptions,
          notice: (severity, message, hint) => this.#events?.notice({ severity, sqlstate: severity === 'WARNING' ? '01000' : SqlState.successfulCompletion, message, ...(hint === undefined ? {} : { hint }) }),
        });
      case 'createOptimizerGroup': case 'alterOptimizerGroup': case 'dropOptimizerGroup':
        return runOptimizerGroupDdl(this.#optimizing, w, c, (message, sqlstate) => this.#notice('NOTICE', sqlstate, message));
      case 'createView': case 'dropView': case 'alterView': case 'setTableSchema': case 'comment':
        return runViewDdl(w, c, this.#viewDdlIo());
      case 'createTableAs': {
        const tag = await runViewDdl(w, c, this.#viewDdlIo(params));
        // Outside a transaction block the statement is its transaction (ON COMMIT DROP / DELETE ROWS act now).
        if (c.temporary !== undefined && this.#txn === undefined) await this.#temp.endTransaction(true);
        return tag;
      }
      case 'createType': case 'alterType': case 'dropType':
        return runTypeDdl(w, c, (message, detail, sqlstate = SqlState.successfulCompletion) =>
          this.#events?.notice({ severity: 'NOTICE', sqlstate, message, ...(detail === undefined ? {} : { detail }) }));
    }
  }

  /** What views, CREATE TABLE AS and COMMENT ON need from the session (run-view-ddl.ts). */
  #viewDdlIo(params: readonly unknown[] = []): ViewDdlIo {
    return {
      noteTemporary: (table, spec) => this.#temp.noteCreated(table, spec, this.#txn !== undefined),
      notice: (n) => this.#events?.notice(n),
      searchPath: this.#searchPath(),
      validateProperties: (p) => validateTableProperties(Object.keys(p), p, this.#propertyChecks()),
      fill: async (insert, paramTypes) => {
        const bound = bindStatement(insert, this.#bindEnv(paramTypes));
        if (bound.kind !== 'dml') throw new FloeError(SqlState.internalError, 'CREATE TABLE AS did not bind to an INSERT');
        const result = await this.#runDml(bound, params, new AbortController().signal);
        return result.kind === 'command' ? Number(result.tag.split(' ').pop()) : 0;
      },
    };
  }

  // ---- utility commands ----

  async #runUtility(c: UtilityCommand, signal: AbortSignal, params: readonly unknown[] = []): Promise<StatementResult> {
    const command = (tag: string): StatementResult => ({ kind: 'command', tag });
    switch (c.kind) {
      case 'begin':
        if (this.#txn?.implicit) this.#txn.implicit = false;
        else if (this.#txn) this.#notice('WARNING', SqlState.activeSqlTransaction, 'there is already a transaction in progress');
        else this.#txn = this.#newTxn(false);
        if (c.modes.isolation !== undefined && this.#txn.lake === undefined) this.#txn.isolation = isolationText(c.modes.isolation);
        this.#settings.set('transaction_isolation', this.#txn.isolation);
        return command(c.start === true ? 'START TRANSACTION' : 'BEGIN');
      case 'commit': {
        const t = this.#txn;
        if (!t) {
          this.#notice('WARNING', SqlState.noActiveSqlTransaction, 'there is no transaction in progress');
          return command('COMMIT');
        }
        this.#txn = undefined;
        this.#restoreSettings(t, !t.failed);
        await this.#closeCursors(false);
        if (t.failed) {
          this.#server.transactionEnded(false);
          if (t.lake?.state === 'open') await t.lake.abort().catch(() => undefined);
          await this.#temp.endTransaction(false);
          return command('ROLLBACK');
        }
        try {
          if (t.lake) await this.#commitLake(t.lake);
        } catch (e) {
          this.#server.transactionEnded(false);
          throw e;
        } finally {
          await this.#temp.endTransaction(t.lake === undefined || t.lake.state === 'committed');
        }
        // NOTIFYs go out, and transaction-level advisory locks are released, only once the commit holds.
        this.#server.transactionEnded(true);
        return command('COMMIT');
      }
      case 'rollback': {
        const t = this.#txn;
        if (!t) {
          this.#notice('WARNING', SqlState.noActiveSqlTransaction, 'there is no transaction in progress');
          return command('ROLLBACK');
        }
        this.#txn = undefined;
        this.#restoreSettings(t, false);
        this.#server.transactionEnded(false);
        await this.#closeCursors(false);
        if (t.lake?.state === 'open') await t.lake.abort();
        await this.#temp.endTransaction(false);
        return command('ROLLBACK');
      }
      case 'savepoint': {
        const t = this.#requireTxn('SAVEPOINT');
        t.savepoints.push({ name: c.name, writes: t.writes, lakeMark: t.lake?.state === 'open' ? t.lake.savepoint() : undefined, constraintModes: t.constraintModes });
        return command('SAVEPOINT');
      }
      case 'release': {
        const t = this.#requireTxn('RELEASE SAVEPOINT');
        const at = this.#savepointIndex(t, c.name);
        t.savepoints.splice(at);
        return command('RELEASE');
      }
      case 'rollbackTo': {
        const t = this.#requireTxn('ROLLBACK TO SAVEPOINT');
        const at = this.#savepointIndex(t, c.name);
        const sp = t.savepoints[at]!;
        if (t.writes > sp.writes && t.lake !== undefined) {
          if (t.lake.state !== 'open') {
            // The lake transaction already ended (a failed commit attempt): nothing partial to keep.
            throw new FloeError(SqlState.inFailedSqlTransaction, 'the transaction can only be rolled back as a whole',
              { hint: 'Issue ROLLBACK.' });
          }
          await t.lake.rollbackTo(sp.lakeMark);
          t.writes = sp.writes;
        }
        // SET CONSTRAINTS since the savepoint is undone with it, as PostgreSQL restores its trigger state.
        if (t.constraintModes !== sp.constraintModes) {
          t.constraintModes = sp.constraintModes;
          if (t.lake?.state === 'open') await t.lake.setConstraintModes(t.constraintModes);
        }
        t.savepoints.splice(at + 1);
        t.failed = false;
        return command('ROLLBACK');
      }
      case 'set':
        if (c.local && !this.#txn) {
          this.#notice('WARNING', SqlState.noActiveSqlTransaction, 'SET LOCAL can only be used in transaction blocks');
          return command('SET');
        }
        if (c.name === 'transaction_isolation' && c.value !== null) {
          this.#setIsolation(c.value, false);
          return command('SET');
        }
        if (c.local) this.#txn!.localSettings.add(c.name);
        return this.#set(c.name, c.value);
      case 'setTransaction':
        if (c.modes.isolation !== undefined) this.#setIsolation(c.modes.isolation, c.session);
        return command('SET');
      case 'reset':
        if (c.name === 'all') {
          for (const [k, v] of this.#defaults) this.#setSetting(k, v);
        } else {
          this.#setSetting(c.name, this.#defaults.get(c.name) ?? '');
        }
        return command('RESET');
      case 'show': return this.#show(c.name);
      case 'showTblProperties': {
        const t = this.#deps.warehouse.getTable(c.table.namespace, c.table.name);
        if (!t) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
        const rows = Object.entries(t.properties).sort(([a], [b]) => a.localeCompare(b));
        return this.#memoryRows([textColumn('key'), textColumn('value')], rows, 'SHOW');
      }
      case 'discard':
        if (c.target === 'all') {
          if (this.#txn && !this.#txn.implicit) throw new FloeError(SqlState.activeSqlTransaction, 'DISCARD ALL cannot run inside a transaction block');
          this.#prepared.clear();
          await this.#closeCursors(true);
          for (const [k, v] of this.#defaults) this.#setSetting(k, v);
        }
        if (c.target === 'all' || c.target === 'temp') await this.#temp.close();
        return command(`DISCARD ${c.target.toUpperCase()}`);
      case 'deallocate':
        if (c.name === null) this.#prepared.clear();
        else if (!this.#prepared.delete(c.name)) throw new FloeError(SqlState.invalidSqlStatementName, `prepared statement "${c.name}" does not exist`);
        return command(c.name === null ? 'DEALLOCATE ALL' : 'DEALLOCATE');
      case 'prepare':
        if (this.#prepared.has(c.name)) throw new FloeError(SqlState.duplicatePreparedStatement, `prepared statement "${c.name}" already exists`);
        bindStatement(c.statement, this.#bindEnv(c.paramTypes));
        this.#prepared.set(c.name, { stmt: c.statement, paramTypes: c.paramTypes });
        return command('PREPARE');
      case 'execute': {
        const p = this.#prepared.get(c.name);
        if (!p) throw new FloeError(SqlState.invalidSqlStatementName, `prepared statement "${c.name}" does not exist`);
        const args = await this.#evalArgs(c.args.plan, c.args.types, signal);
        return this.#runParsed(p.stmt, args, p.paramTypes.length > 0 ? p.paramTypes : c.args.types, signal);
      }
      case 'declareCursor': {
        if (!this.#txn && !c.hold) throw new FloeError(SqlState.noActiveSqlTransaction, 'DECLARE CURSOR can only be used in transaction blocks');
        if (this.#cursors.has(c.name)) throw new FloeError(SqlState.duplicateCursor, `cursor "${c.name}" already exists`);
        const batches = executePlan(c.query.plan, this.#execContext([], new AbortController().signal, this.#txn?.lake));
        this.#cursors.set(c.name, { columns: c.query.columns, iterator: batches[Symbol.asyncIterator](), buffer: [], done: false, hold: c.hold });
        return command('DECLARE CURSOR');
      }
      case 'fetch': return this.#fetch(c);
      case 'closeCursor':
        if (c.name === null) await this.#closeCursors(true);
        else {
          const cur = this.#cursors.get(c.name);
          if (!cur) throw new FloeError(SqlState.invalidCursorName, `cursor "${c.name}" does not exist`);
          this.#cursors.delete(c.name);
          await cur.iterator.return?.();
        }
        return command(c.name === null ? 'CLOSE CURSOR ALL' : 'CLOSE CURSOR');
      case 'copyFrom': return this.#copyFrom(c);
      case 'copyTo': return this.#copyTo(c, signal);
      case 'explain': return this.#explain(c, signal, params);
      case 'call': return this.#call(c.procedure, await this.#evalArgs(c.args.plan, c.args.types, signal), c.argNames);
      case 'listen':
        this.#server.notifications.listen(c.channel);
        return command('LISTEN');
      case 'unlisten':
        this.#server.notifications.unlisten(c.channel);
        return command('UNLISTEN');
      case 'notify':
        this.#server.notify(c.channel, c.payload ?? '');
        return command('NOTIFY');
      case 'noop':
        for (const n of c.notices ?? []) this.#notice('NOTICE', SqlState.successfulCompletion, n);
        return command(c.tag);
      case 'lockTable':
        if (!this.#txn || this.#txn.implicit) throw new FloeError(SqlState.noActiveSqlTransaction, 'LOCK TABLE can only be used in transaction blocks');
        return command('LOCK TABLE');
      case 'setConstraints': {
        const t = this.#txn;
        // PostgreSQL warns outside a block (an implicit one of a multi-statement string counts as one) and still checks the names.
        if (t === undefined) this.#notice('WARNING', SqlState.noActiveSqlTransaction, 'SET CONSTRAINTS can only be used in transaction blocks');
        const temp = this.#temp.tempNamespace;
        const target = c.names === 'all' ? 'all' as const
          : constraintsToSet(this.#deps.warehouse, c.names.map((n) => (n.schema === 'pg_temp' && temp !== undefined ? { ...n, schema: temp } : n)),
            [...(temp === undefined ? [] : [temp]), ...this.#searchPath()]);
        if (t !== undefined) {
          t.constraintModes = withConstraintMode(t.constraintModes, target, c.deferred ? 'deferred' : 'immediate');
          if (t.lake?.state === 'open') await t.lake.setConstraintModes(t.constraintModes);
        }
        return command('SET CONSTRAINTS');
      }
    }
  }

  #notice(severity: 'WARNING' | 'NOTICE', sqlstate: string, message: string): void {
    this.#events?.notice({ severity, sqlstate, message });
  }

  #requireTxn(what: string): Txn {
    if (!this.#txn) throw new FloeError(SqlState.noActiveSqlTransaction, `${what} can only be used in transaction blocks`);
    return this.#txn;
  }

  #savepointIndex(t: Txn, name: string): number {
    for (let i = t.savepoints.length - 1; i >= 0; i--) if (t.savepoints[i]!.name === name) return i;
    throw new FloeError('3B001', `savepoint "${name}" does not exist`);
  }

  async #closeCursors(includingHeld: boolean): Promise<void> {
    for (const [name, c] of this.#cursors) {
      if (c.hold && !includingHeld) continue;
      this.#cursors.delete(name);
      await c.iterator.return?.();
    }
  }

  #setSetting(name: string, value: string): void {
    if (this.#txn && !this.#txn.settingsBefore.has(name)) this.#txn.settingsBefore.set(name, this.#settings.get(name));
    this.#settings.set(name, value);
    const wireName = REPORTED_SETTINGS[name];
    if (wireName) this.#events?.parameterStatus(wireName, value);
  }

  #set(name: string, value: string | null): StatementResult {
    if (name === 'server_version' || name === 'server_version_num' || name === 'server_encoding' || name === 'integer_datetimes') {
      throw new FloeError('55P02', `parameter "${name}" cannot be changed`);
    }
    let v = value ?? this.#defaults.get(name) ?? '';
    if (name === 'client_encoding' && !/^(utf-?8|unicode)$/i.test(v)) {
      throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "client_encoding": "${v}"`, { detail: 'Floe speaks UTF8 only.' });
    }
    if (name === 'client_encoding') v = 'UTF8';
    if (name === 'timezone' && /^(local|default)$/i.test(v)) v = 'UTC';
    if (name === QUERY_MEMORY_LIMIT) parseMemorySetting(name, v);
    if (isDurationSetting(name)) v = formatDurationMs(parseDurationSetting(name, v));
    // SET … TO DEFAULT (no value) puts back the default, which needs no check.
    if (value !== null) checkRuntimeFilterSetting(name, v);
    this.#setSetting(name, v);
    return { kind: 'command', tag: 'SET' };
  }

  /** set_config(): SET, or SET LOCAL when asked (which outside a transaction block lasts no longer than the statement, as in PostgreSQL). */
  #setFromFunction(name: string, value: string, isLocal: boolean): string {
    if (isLocal && !this.#txn) return value;
    if (isLocal) this.#txn!.localSettings.add(name);
    this.#set(name, value);
    return this.#settings.get(name) ?? value;
  }

  /** SET TRANSACTION / SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL. */
  #setIsolation(level: string, session: boolean): void {
    const text = isolationText(level);
    if (session) {
      this.#set('default_transaction_isolation', text);
      return;
    }
    const t = this.#txn;
    if (t === undefined || t.implicit) {
      this.#notice('WARNING', SqlState.noActiveSqlTransaction, 'SET TRANSACTION can only be used in transaction blocks');
      return;
    }
    if (t.lake !== undefined && text !== t.isolation) {
      throw new FloeError('25001', 'SET TRANSACTION ISOLATION LEVEL must be called before any query');
    }
    t.isolation = text;
    this.#settings.set('transaction_isolation', text);
  }

  #show(name: string): StatementResult {
    if (name === 'all') {
      const rows = [...this.#settings].filter(([k]) => !k.startsWith('floe.')).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [displayName(k), v, '']);
      return this.#memoryRows([textColumn('name'), textColumn('setting'), textColumn('description')], rows, 'SHOW');
    }
    const v = this.#settings.get(name);
    if (v === undefined) throw new FloeError(SqlState.undefinedObject, `unrecognized configuration parameter "${name}"`);
    return this.#memoryRows([textColumn(displayName(name))], [[v]], 'SHOW');
  }

  #memoryRows(columns: ColumnDescription[], rows: readonly (readonly unknown[])[], tag: string): StatementResult {
    const batch = rowsBatch(rows, columns.length);
    return {
      kind: 'rows', columns,
      batches: (async function* () { if (batch.numRows > 0) yield batch; })(),
      commandTag: (n) => (tag === 'SHOW' || tag === 'EXPLAIN' ? tag : `${tag} ${n}`),
    };
  }

  async #evalArgs(plan: PhysicalPlan, types: readonly SqlType[], signal: AbortSignal): Promise<unknown[]> {
    for await (const b of executePlan(plan, this.#execContext([], signal, this.#txn?.lake))) {
      if (b.numRows > 0) return types.map((t, i) => vectorToValues(b.getChildAt(i)!, t)[0] ?? null);
    }
    return types.map(() => null);
  }

  /** COPY FROM's rows (one array per column) against the table's CHECK constraints. */
  async #enforceChecks(table: TableMetadata, columns: readonly (readonly unknown[])[]): Promise<void> {
    const checks = bindTableCheckConstraints(this.#bindEnv(), table);
    if (checks === undefined) return;
    const rows = (columns[0] ?? []).map((_v, r) => columns.map((c) => c[r]));
    await enforceCheckConstraints(checks, table, rows, this.#execContext([], new AbortController().signal, this.#txn?.lake));
  }

  /** What ALTER TABLE's row checks and defaults need (alter-table-action.ts). */
  #alterTableIo(): AlterTableIo {
    return {
      evalDefault: async (expr, type) => (await this.#evalDefaults(expr, type, 1))[0],
      anyRow: async (sql) => {
        const [stmt] = parseStatements(sql);
        const bound = bindStatement(stmt!, this.#bindEnv());
        if (bound.kind !== 'query') return false;
        for await (const b of executePlan(bound.plan, this.#execContext([], new AbortController().signal, this.#txn?.lake))) {
          if (b.numRows > 0) return true;
        }
        return false;
      },
      notice: (message) => this.#notice('NOTICE', SqlState.successfulCompletion, message),
    };
  }

  /**
   * A column DEFAULT for the `rows` rows COPY does not supply it for. A literal is parsed
   * once; any other expression runs once per row (`FROM generate_series(1, rows)`), so a
   * volatile default (nextval, random()) gives each row its own value, while now() still
   * gives the transaction's time, as in PostgreSQL.
   */
  async #evalDefaults(expr: string, type: SqlType, rows: number): Promise<unknown[]> {
    // Literal defaults (the common case) need no plan.
    const lit = /^\s*(?:'((?:[^']|'')*)'|([+-]?\d+(?:\.\d+)?))\s*$/.exec(expr);
    if (lit) {
      const v = parseValue(lit[1] !== undefined ? lit[1].replaceAll("''", "'") : lit[2]!, type, this.#textSettings());
      return new Array<unknown>(rows).fill(v);
    }
    if (/^\s*null\s*$/i.test(expr) || rows === 0) return new Array<unknown>(rows).fill(null);
    const [stmt] = parseStatements(`SELECT CAST((${expr}) AS ${formatTypeName(type)}) FROM generate_series(1, ${rows})`);
    const bound = bindStatement(stmt!, this.#bindEnv());
    if (bound.kind !== 'query') return new Array<unknown>(rows).fill(null);
    const out: unknown[] = [];
    for await (const b of executePlan(bound.plan, this.#execContext([], new AbortController().signal, this.#txn?.lake))) {
      out.push(...vectorToValues(b.getChildAt(0)!, type));
    }
    return out;
  }

  /**
   * EXPLAIN: the plan with what the lake's planScan reports for each scan (tasks,
   * pruning). ANALYZE also runs it (writes included, as PostgreSQL does): a query
   * prints each operator's rows and inclusive time from the executor's metrics
   * (src/planner/explain/explain-plan.ts documents the line format); DML prints
   * the totals. TIMING OFF and SUMMARY OFF work as in PostgreSQL.
   */
  async #explain(c: Extract<UtilityCommand, { kind: 'explain' }>, signal: AbortSignal, params: readonly unknown[]): Promise<StatementResult> {
    const st = c.statement;
    if (st.kind !== 'query' && st.kind !== 'dml') {
      return explainResult({ title: 'Utility Statement', details: [], children: [] }, c.options.format, undefined, (cols, rows) => this.#memoryRows(cols, rows, 'EXPLAIN'));
    }
    const opts = c.options;
    const w = this.#deps.warehouse;
    const scans = new Map<LakeScanPlan, ScanReport>();
    const visit = async (p: PhysicalPlan): Promise<void> => {
      if (p.kind === 'lakeScan') {
        const table = w.getTableById(p.table.id);
        if (table) {
          const sp = await w.planScan({
            table, at: resolveSnapshotSelectorIn(p.at, this.#execContext([], signal, this.#txn?.lake)), txn: this.#txn?.lake, projection: [...p.projection],
            filters: bindScanFilters(p.filters, undefined), limit: p.residual ? undefined : p.limit,
          });
          // Parameter filters have no value to push here: their pushdown shows as nothing.
          const bound = p.filters.filter((f) => f.param === undefined);
          const pushdown = p.filters.map((f) => (f.param === undefined ? sp.pushdown[bound.indexOf(f)] : undefined));
          scans.set(p, { snapshotId: sp.snapshotId, tasks: sp.tasks.length, pushdown, stats: sp.stats });
        }
      }
      for (const child of planInputs(p)) await visit(child);
    };
    await visit(st.plan);
    if (!opts.analyze) return explainResult(explainTree(st.plan, scans), opts.format, undefined, (cols, rows) => this.#memoryRows(cols, rows, 'EXPLAIN'));
    const started = process.hrtime.bigint();
    let rows = 0;
    let tree: ExplainNode;
    if (st.kind === 'query') {
      const metrics = new Map<PhysicalPlan, OperatorMetrics>();
      const ctx: ExecContext = { ...this.#execContext(params, signal, this.#txn?.lake), metrics };
      for await (const b of executePlan(st.plan, ctx)) rows += b.numRows;
      tree = explainTree(st.plan, scans, { metrics, timing: opts.timing });
    } else {
      const r = await this.#runDml(st, params, signal);
      if (r.kind === 'rows') for await (const b of r.batches) rows += b.numRows;
      else rows = Number(/(\d+)$/.exec(r.kind === 'command' ? r.tag : '')?.[1] ?? 0);
      tree = explainTree(st.plan, scans);
    }
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    return explainResult(tree, opts.format, opts.summary ? { rows, elapsedMs: elapsed } : undefined, (cols, r) => this.#memoryRows(cols, r, 'EXPLAIN'));
  }

  async #fetch(c: Extract<UtilityCommand, { kind: 'fetch' }>): Promise<StatementResult> {
    const cur = this.#cursors.get(c.cursor);
    if (!cur) throw new FloeError(SqlState.invalidCursorName, `cursor "${c.cursor}" does not exist`);
    if (c.direction !== 'forward' && !(c.direction === 'relative' && c.count === 0n)) {
      throw new FloeError(SqlState.featureNotSupported, 'cursor can only scan forward', { hint: 'Declare it with SCROLL option to enable backward scan.' });
    }
    const want = c.count === 'all' ? Infinity : Number(c.count);
    const types = cur.columns.map((col) => col.type);
    const rows: unknown[][] = [];
    while (rows.length < want) {
      if (cur.buffer.length === 0) {
        if (cur.done) break;
        const next = await cur.iterator.next();
        if (next.done) { cur.done = true; break; }
        const batch = toRowBatch(next.value, types);
        for (let r = 0; r < batch.numRows; r++) cur.buffer.push(batch.columns.map((col) => col.get(r)));
        continue;
      }
      const take = Math.min(want - rows.length, cur.buffer.length);
      rows.push(...cur.buffer.splice(0, take));
    }
    if (c.move) return { kind: 'command', tag: `MOVE ${rows.length}` };
    return this.#memoryRows(describeColumns(cur.columns), rows, 'FETCH');
  }

  #textSettings() {
    return { timeZone: this.#settings.get('timezone') ?? 'UTC', nowMicros: nowMicros() };
  }

  async #copyFrom(c: Extract<UtilityCommand, { kind: 'copyFrom' }>): Promise<StatementResult> {
    if (c.source !== 'stdin') throw new FloeError(SqlState.featureNotSupported, 'COPY FROM a server file is not supported', { hint: "Use COPY … FROM STDIN (psql's \\copy)." });
    const binary = c.options.format === 'binary';
    const table = this.#deps.warehouse.getTable(c.table.namespace, c.table.name);
    if (!table) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
    const chunks: Buffer[] = [];
    // Binary COPY: the wire decodes the rows (canonical values of the columns' types).
    const decoded: (readonly unknown[])[] = [];
    const session = this;
    const sink: CopyInSink = {
      async write(chunk) { chunks.push(Buffer.from(chunk)); },
      async writeRows(rows) { for (const r of rows) decoded.push(r); },
      async fail() { chunks.length = 0; decoded.length = 0; },
      async finish() {
        return session.#guard(async () => {
          const rows: readonly (readonly unknown[])[] = binary ? decoded : parseCopyBytes(Buffer.concat(chunks), c.options);
          const settings = session.#textSettings();
          const byName = new Map(c.columns.map((col, i) => [col.name, i]));
          const defaults = new Map<string, unknown[]>();
          for (const tc of table.columns) {
            const expr = tc.identity !== undefined ? `nextval(${tc.identity.sequenceId}::regclass)` : tc.defaultExpr;
            if (!byName.has(tc.name) && expr !== undefined) defaults.set(tc.name, await session.#evalDefaults(expr, tc.type, rows.length));
          }
          const columns = table.columns.map((tc) => {
            const at = byName.get(tc.name);
            if (at === undefined && defaults.has(tc.name)) return defaults.get(tc.name)!;
            return rows.map((r, line) => {
              if (r.length !== c.columns.length) {
                throw new FloeError('22P04', r.length < c.columns.length ? `missing data for column "${c.columns[r.length]!.name}"` : 'extra data after last expected column', { detail: `COPY ${table.name}, line ${line + 1}` });
              }
              const text = at === undefined ? null : r[at]!;
              if (text === null) {
                if (!tc.nullable || table.primaryKey.includes(tc.name)) throw new FloeError(SqlState.notNullViolation, `null value in column "${tc.name}" of relation "${table.name}" violates not-null constraint`);
                return null;
              }
              return binary ? binaryCopyValue(text, tc.type, settings) : parseValue(text as string, tc.type, settings);
            });
          });
          if (rows.length > 0) await session.#enforceChecks(table, columns);
          if (rows.length > 0) {
            const { lake, autocommit } = await session.#writeTxn();
            try {
              // UPSERT is the blind bulk upsert; plain COPY is INSERT (23505 for a live key).
              if (c.options.upsert === true) await lake.upsert(table, c.branch ?? 'main', columns);
              else await lake.insert(table, c.branch ?? 'main', columns);
              if (autocommit) await session.#commitLake(lake);
            } catch (e) {
              if (autocommit && lake.state === 'open') await lake.abort().catch(() => undefined);
              throw e;
            }
          }
          return `COPY ${rows.length}`;
        });
      },
    };
    if (binary) return { kind: 'copyIn', format: 'binary', columnCount: c.columns.length, columnOids: c.columns.map((col) => typeOid(col.type)), sink };
    return { kind: 'copyIn', format: 'text', columnCount: c.columns.length, sink };
  }

  async #copyTo(c: Extract<UtilityCommand, { kind: 'copyTo' }>, signal: AbortSignal): Promise<StatementResult> {
    if (c.target !== 'stdout') throw new FloeError(SqlState.featureNotSupported, 'COPY TO a server file is not supported', { hint: "Use COPY … TO STDOUT (psql's \\copy)." });
    const q: QueryBound = c.query;
    const types = q.columns.map((col) => col.type);
    const settings = this.#textSettings();
    const batches = executePlan(q.plan, this.#execContext([], signal, this.#txn?.lake));
    let count = 0;
    const options = c.options;
    const self = this;
    async function* chunks(): AsyncIterable<Uint8Array> {
      try {
        if (options.header) yield Buffer.from(formatCopyRow(q.columns.map((col) => col.name), options));
        for await (const b of batches) {
          const rb = toRowBatch(b, types);
          const text = copyRowsText(rb, types, settings, options);
          count += rb.numRows;
          if (text !== '') yield Buffer.from(text);
        }
      } catch (e) {
        self.#fail();
        throw e;
      }
    }
    if (options.format === 'binary') {
      async function* noChunks(): AsyncIterable<Uint8Array> { /* the wire encodes rowBatches */ }
      async function* rowBatches(): AsyncIterable<RowBatch> {
        try {
          for await (const b of batches) {
            const rb = toRowBatch(b, types);
            count += rb.numRows;
            yield rb;
          }
        } catch (e) {
          self.#fail();
          throw e;
        }
      }
      return {
        kind: 'copyOut', format: 'binary', columnCount: q.columns.length, chunks: noChunks(), rowBatches: rowBatches(),
        columnOids: types.map(typeOid), commandTag: () => `COPY ${count}`,
      };
    }
    return { kind: 'copyOut', format: 'text', columnCount: q.columns.length, chunks: chunks(), commandTag: () => `COPY ${count}` };
  }

  /** A procedure's timestamp argument: a timestamptz value, or text read as one (a zone-less time is UTC). */
  #timestampArg(v: unknown, procedure: string): bigint {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'string') {
      const zoned = /[zZ]$|[+-]\d{2}(:?\d{2})?$/.test(v.trim()) ? v : `${v.trim()}+00`;
      return parseValue(zoned, { kind: 'timestamptz' }, this.#textSettings()) as bigint;
    }
    throw new FloeError(SqlState.invalidParameterValue, `${procedure} needs a timestamp argument`, {
      hint: `e.g. CALL ${procedure}('t', now() - interval '7 days'${procedure === 'expire_snapshots' ? ', 1' : ''})`,
    });
  }

  #snapshotIdArg(v: unknown): bigint {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return BigInt(v.trim());
    throw new FloeError(SqlState.invalidParameterValue, `a snapshot id must be an integer, not "${String(v)}"`);
  }

  /** `CALL expire_snapshots('t', older_than [, retain_last])` (Iceberg's procedure; positional arguments). */
  async #expireSnapshots(table: TableMetadata, args: readonly unknown[]): Promise<StatementResult> {
    const [olderThanArg, retainLast] = args;
    const olderThan = this.#timestampArg(olderThanArg, 'expire_snapshots');
    if (retainLast !== undefined && retainLast !== null && !(Number(retainLast) >= 1)) {
      throw new FloeError(SqlState.invalidParameterValue, 'expire_snapshots: retain_last must be at least 1');
    }
    await this.#deps.warehouse.expireSnapshots(table, {
      olderThanMicros: olderThan, ...(retainLast === undefined || retainLast === null ? {} : { retainLast: Number(retainLast) }),
    });
    return { kind: 'command', tag: 'CALL' };
  }

  async #call(procedureName: string, given: unknown[], names?: readonly (string | undefined)[]): Promise<StatementResult> {
    const w = this.#deps.warehouse;
    const procedure = procedureName.toLowerCase().replace(/^(system|floe)\./, '');
    const args = procedureArguments(procedure, given, names);
    const table = (name: unknown) => {
      const text = String(name);
      const [ns, n] = text.includes('.') ? text.split('.', 2) as [string, string] : [this.#searchPath().find((s) => w.getTable(s, text)) ?? 'public', text];
      const t = w.getTable(ns, n);
      if (!t) throw new FloeError(SqlState.undefinedTable, `relation "${text}" does not exist`);
      return t;
    };
    switch (procedure) {
      case 'fast_forward': await w.fastForward(table(args[0]), String(args[1]), String(args[2])); break;
      case 'rollback_to_snapshot': await w.rollbackToSnapshot(table(args[0]), this.#snapshotIdArg(args[1])); break;
      case 'rollback_to_timestamp': await w.rollbackToTimestamp(table(args[0]), this.#timestampArg(args[1], 'rollback_to_timestamp')); break;
      case 'expire_snapshots': return this.#expireSnapshots(table(args[0]), args.slice(1));
      case 'optimize': return callOptimize(this.#optimizing, table(args[0]), args[1]);
      default: throw new FloeError(SqlState.undefinedFunction, `procedure ${procedureName} does not exist`);
    }
    return { kind: 'command', tag: 'CALL' };
  }
}

