import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { endSpan, startSpan } from '../common/latency-spans.js';
import { formatType as formatTypeName } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import type { ColumnDescription, RowBatch, SessionEvents, StartupInfo, StatementResult } from '../common/session-handler.js';
import {
  enforceCheckConstraints, type ExecContext, type ExecLakeTransaction, executePlan, type ExecWarehouse, parseValue,
  type PhysicalPlan, type ScanPool, vectorToValues, type VirtualTableRegistry,
} from '../exec/index.js';
import type { DataFileInfo, LakeTransaction, TableMetadata, Warehouse } from '../lake/index.js';
import {
  bindStatement, bindTableCheckConstraints, type BoundStatement, type CatalogTable, type DdlCommand,
  type ParsedStatement, parseStatements, type SystemCatalog, type UtilityCommand,
} from '../sql/index.js';
import type { OptimizingService, SubscriptionWorkers } from '../service/index.js';
import type { AlterTableIo } from './alter-table-action.js';
import { procedureResultColumns } from './call-optimize.js';
import { Cursors } from './cursors.js';
import { explainColumn } from './explain-result.js';
import { PreparedStatements, preparedPlan, type Prepared } from './prepared-statements.js';
import { describeColumns, textColumn, toRowBatch } from './result-columns.js';
import type { ViewDdlIo } from './run-view-ddl.js';
import { SessionSequenceState } from './session-sequence-state.js';
import { SessionServerFunctions } from './session-server-functions.js';
import { processSessionRegistry, type SessionRegistry } from './session-registry.js';
import { SessionSettings, parseSearchPath } from './session-settings.js';
import { physicalPlanOf } from './physical-plan-of.js';
import { planOptions } from './disabled-optimizer-rules.js';
import type { LogicalStatementPlan } from '../planner/index.js';
import { SessionWarehouse } from './session-warehouse.js';
import { sessionOptimizingService } from './session-optimizing-service.js';
import { DEFAULT_QUERY_MEMORY_LIMIT, QUERY_MEMORY_LIMIT, displayName, parseMemorySetting } from './settings-registry.js';
import { columnRanges, liveRows } from './table-estimates.js';
import { validateTableProperties } from './table-properties.js';
import { isolationText } from './transaction-isolation.js';
import { TransactionState, nowMicros } from './transaction-state.js';

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

/** How a bound utility or DDL statement runs: src/session/commands, handed in so this file needs none of them. */
export interface SessionCommands {
  runUtility(ctx: SessionContext, c: UtilityCommand, signal: AbortSignal, params: readonly unknown[]): Promise<StatementResult>;
  runDdl(ctx: SessionContext, c: DdlCommand, params: readonly unknown[]): Promise<string>;
}

/** PostgreSQL's answer to a CancelRequest that reached a running statement. */
function canceled(): FloeError {
  return new FloeError(SqlState.queryCanceled, 'canceling statement due to user request');
}

/** The wire aborts with a FloeError reason (57014 cancel, FATAL 57P01 shutdown); anything else reads as a cancel. */
export function abortReason(signal: AbortSignal): FloeError {
  return signal.reason instanceof FloeError ? signal.reason : canceled();
}

/**
 * What one session holds — its transaction block, settings, prepared statements,
 * cursors, sequences and temporary tables — and what every statement needs from it:
 * a bind environment, an executor context, a lake transaction to write through, and
 * the way a query or DML statement runs (DuckDB's ClientContext). The utility commands
 * (src/session/commands) take it as their one argument; floe-session.ts is the wire's
 * handler over it.
 */
export class SessionContext {
  readonly deps: SessionDeps;
  /** deps.warehouse plus this session's temporary tables; deps.warehouse is this. */
  readonly temp: SessionWarehouse;
  readonly settings: SessionSettings;
  /** The open transaction block, if any (BEGIN … COMMIT, or a query string's implicit one). */
  readonly transaction: TransactionState;
  readonly prepared = new PreparedStatements();
  readonly cursors = new Cursors();
  readonly sequences: SessionSequenceState;
  readonly optimizing: OptimizingService;
  /** pg_stat_activity, LISTEN/NOTIFY, advisory locks, signals to other sessions. */
  readonly server: SessionServerFunctions;
  /** The client's notices and ParameterStatus, once the wire started the session. */
  events: SessionEvents | undefined;
  readonly #commands: SessionCommands;

  constructor(deps: SessionDeps, commands: SessionCommands) {
    this.#commands = commands;
    this.temp = new SessionWarehouse(deps.warehouse, deps.startup.processId);
    this.deps = { ...deps, warehouse: this.temp };
    this.settings = new SessionSettings({
      startup: deps.startup, port: deps.port, queryMemoryLimit: deps.queryMemoryLimit,
      events: () => this.events, txn: () => this.transaction.current,
    });
    this.transaction = new TransactionState(this.temp);
    this.sequences = new SessionSequenceState(this.temp);
    this.optimizing = sessionOptimizingService(deps.warehouse, deps.optimizing);
    deps.catalog.attachServices?.(this.temp, this.optimizing);
    this.server = new SessionServerFunctions(deps.registry ?? processSessionRegistry, {
      startup: deps.startup,
      settings: () => this.settings.values,
      transactionStatus: () => this.transaction.status(),
      transactionStartMicros: () => this.transaction.explicitStartMicros(),
      events: () => this.events,
      warning: (message) => this.notice('WARNING', '01000', message),
    });
  }

  /** What `self-optimizing.group` may name: the service's groups. */
  propertyChecks() {
    return { groupExists: (name: string) => this.optimizing.groups().some((g) => g.name === name) };
  }

  notice(severity: 'WARNING' | 'NOTICE', sqlstate: string, message: string): void {
    this.events?.notice({ severity, sqlstate, message });
  }

  /** Commits, then tells the self-optimizing service, so a fast stream's files are folded before they pile up. */
  async commitLake(lake: LakeTransaction): Promise<void> {
    await lake.commit();
    this.optimizing.nudge?.();
  }

  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      this.fail();
      throw e;
    }
  }

  fail(): void {
    if (!this.transaction.markFailed()) this.server.transactionEnded(false);
  }

  /** search_path with "$user" kept only when a schema of that name exists, as PostgreSQL does. */
  searchPath(): string[] {
    const user = this.deps.startup.user;
    const path = parseSearchPath(this.settings.get('search_path') ?? 'public');
    const hasUserSchema = path.includes('$user') && this.deps.warehouse.listNamespaces().includes(user);
    return path.flatMap((s) => (s === '$user' ? (hasUserSchema ? [user] : []) : [s]));
  }

  /** pg_catalog and information_schema, plus the lake's per-table system tables (t$snapshots, …). */
  #virtualTables(): VirtualTableRegistry {
    const c = this.deps.catalog;
    return typeof c.forWarehouse === 'function' ? c.forWarehouse(this.deps.warehouse) : c;
  }

  bindEnv(paramTypes?: readonly (SqlType | undefined)[]) {
    // One statement's estimates read each table's file list once.
    const listed = new Map<number, DataFileInfo[] | undefined>();
    const filesOf = (t: CatalogTable): DataFileInfo[] | undefined => {
      if (!listed.has(t.id)) {
        const meta = this.deps.warehouse.getTableById(t.id);
        listed.set(t.id, meta === undefined ? undefined : this.deps.warehouse.listFiles(meta));
      }
      return listed.get(t.id);
    };
    return {
      warehouse: this.deps.warehouse,
      searchPath: this.searchPath(),
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

  columnsOf(bound: BoundStatement): ColumnDescription[] | null {
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
          const columns = this.cursors.columnsOf(c.cursor);
          return columns ? describeColumns(columns) : null;
        }
        return null;
      }
    }
  }

  execContext(params: readonly unknown[], signal: AbortSignal, txn: LakeTransaction | undefined, onRows?: (n: number) => void): ExecContext {
    return {
      warehouse: this.deps.warehouse as unknown as ExecWarehouse,
      txn: txn as unknown as ExecLakeTransaction | undefined,
      params,
      signal,
      settings: this.settings.values,
      user: this.deps.startup.user,
      database: this.deps.startup.database,
      searchPath: this.searchPath(),
      virtualTables: this.#virtualTables(),
      pool: this.deps.scanPool,
      memoryLimitBytes: parseMemorySetting(QUERY_MEMORY_LIMIT, this.settings.get(QUERY_MEMORY_LIMIT) ?? DEFAULT_QUERY_MEMORY_LIMIT),
      setSetting: (name, value, isLocal) => this.#setFromFunction(name, value, isLocal),
      onRowsAffected: onRows,
      transactionStartMicros: this.transaction.current?.startMicros ?? nowMicros(),
      sequences: this.sequences,
      server: this.server,
      settingRows: () => this.settings.pgSettingsRows(),
    };
  }

  textSettings() {
    return { timeZone: this.settings.get('timezone') ?? 'UTC', nowMicros: nowMicros() };
  }

  /** set_config(): SET, or SET LOCAL when asked (which outside a transaction block lasts no longer than the statement, as in PostgreSQL). */
  #setFromFunction(name: string, value: string, isLocal: boolean): string {
    if (isLocal && !this.transaction.current) return value;
    if (isLocal) this.transaction.current!.localSettings.add(name);
    this.settings.set(name, value);
    return this.settings.get(name) ?? value;
  }

  async runParsed(stmt: ParsedStatement, params: readonly unknown[], paramTypes: readonly (SqlType | undefined)[] | undefined, signal: AbortSignal): Promise<StatementResult> {
    this.transaction.checkNotFailed(stmt);
    const started = startSpan();
    const bound = bindStatement(stmt, this.bindEnv(paramTypes));
    endSpan('session.bind', started);
    return this.runBound(bound, params, signal);
  }

  /**
   * Keeps transaction_isolation in step with the transaction, and at REPEATABLE READ or
   * SERIALIZABLE begins the lake transaction at the first statement that reads, so that
   * every read of a table goes through its snapshot, pinned at the first read of it.
   */
  async #enterStatement(bound: BoundStatement): Promise<void> {
    this.settings.values.set('transaction_isolation', this.transaction.current?.isolation ?? isolationText(this.settings.get('default_transaction_isolation')));
    await this.transaction.enterStatement(bound);
  }

  async runBound(bound: BoundStatement, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    await this.#enterStatement(bound);
    switch (bound.kind) {
      case 'query': {
        const types = bound.columns.map((c) => c.type);
        const batches = executePlan(this.physicalPlan(bound), this.execContext(params, signal, this.transaction.current?.lake));
        return { kind: 'rows', columns: describeColumns(bound.columns), batches: this.#rowBatches(batches, types, signal), commandTag: (n) => `SELECT ${n}` };
      }
      case 'dml': return this.runDml(bound, params, signal);
      case 'ddl': return { kind: 'command', tag: await this.#commands.runDdl(this, bound.command, params) };
      case 'utility': return this.#commands.runUtility(this, bound.command, signal, params);
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
      this.fail();
      throw signal.aborted && !(e instanceof FloeError && (e.sqlstate === SqlState.queryCanceled || e.severity === 'FATAL')) ? abortReason(signal) : e;
    } finally {
      // Also reached when the wire closes the portal before the last row: an autocommit write is then undone.
      if (!completed) await onError?.();
    }
  }

  async runDml(bound: Extract<BoundStatement, { kind: 'dml' }>, params: readonly unknown[], signal: AbortSignal): Promise<StatementResult> {
    let started = startSpan();
    const { lake, autocommit } = await this.transaction.writeTxn(this.settings.get('default_transaction_isolation'));
    endSpan('dml.begin', started);
    started = startSpan();
    let count = 0;
    const ctx = this.execContext(params, signal, lake, (n) => { count += n; });
    const batches = executePlan(this.physicalPlan(bound), ctx);
    const commit = async () => {
      endSpan('dml.execute', started);
      started = startSpan();
      if (autocommit) await this.commitLake(lake);
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

  /** A prepared statement's plan, bound again when what it was built against changed (prepared-statements.ts). */
  preparedPlan(p: Prepared, stmt: ParsedStatement): BoundStatement {
    return preparedPlan(p, this.deps.warehouse, this.searchPath(), () => bindStatement(stmt, this.bindEnv(p.paramTypes)), (b) => this.columnsOf(b));
  }

  async evalArgs(plan: PhysicalPlan, types: readonly SqlType[], signal: AbortSignal): Promise<unknown[]> {
    for await (const b of executePlan(plan, this.execContext([], signal, this.transaction.current?.lake))) {
      if (b.numRows > 0) return types.map((t, i) => vectorToValues(b.getChildAt(i)!, t)[0] ?? null);
    }
    return types.map(() => null);
  }

  /**
   * A column DEFAULT for the `rows` rows COPY does not supply it for. A literal is parsed
   * once; any other expression runs once per row (`FROM generate_series(1, rows)`), so a
   * volatile default (nextval, random()) gives each row its own value, while now() still
   * gives the transaction's time, as in PostgreSQL.
   */
  async evalDefaults(expr: string, type: SqlType, rows: number): Promise<unknown[]> {
    // Literal defaults (the common case) need no plan.
    const lit = /^\s*(?:'((?:[^']|'')*)'|([+-]?\d+(?:\.\d+)?))\s*$/.exec(expr);
    if (lit) {
      const v = parseValue(lit[1] !== undefined ? lit[1].replaceAll("''", "'") : lit[2]!, type, this.textSettings());
      return new Array<unknown>(rows).fill(v);
    }
    if (/^\s*null\s*$/i.test(expr) || rows === 0) return new Array<unknown>(rows).fill(null);
    const [stmt] = parseStatements(`SELECT CAST((${expr}) AS ${formatTypeName(type)}) FROM generate_series(1, ${rows})`);
    const bound = bindStatement(stmt!, this.bindEnv());
    if (bound.kind !== 'query') return new Array<unknown>(rows).fill(null);
    const out: unknown[] = [];
    for await (const b of executePlan(this.physicalPlan(bound), this.execContext([], new AbortController().signal, this.transaction.current?.lake))) {
      out.push(...vectorToValues(b.getChildAt(0)!, type));
    }
    return out;
  }

  /** COPY FROM's rows (one array per column) against the table's CHECK constraints. */
  async enforceChecks(table: TableMetadata, columns: readonly (readonly unknown[])[]): Promise<void> {
    const checks = bindTableCheckConstraints(this.bindEnv(), table);
    if (checks === undefined) return;
    const rows = (columns[0] ?? []).map((_v, r) => columns.map((c) => c[r]));
    await enforceCheckConstraints(checks, table, rows, this.execContext([], new AbortController().signal, this.transaction.current?.lake));
  }

  /** The plan a bound query or DML statement runs (and EXPLAIN prints), under the session's disabled optimizer rules. */
  physicalPlan(bound: { readonly logical: LogicalStatementPlan }): PhysicalPlan {
    return physicalPlanOf(bound, planOptions(this.settings.values));
  }

  /** What ALTER TABLE's row checks and defaults need (alter-table-action.ts). */
  alterTableIo(): AlterTableIo {
    return {
      evalDefault: async (expr, type) => (await this.evalDefaults(expr, type, 1))[0],
      anyRow: async (sql) => {
        const [stmt] = parseStatements(sql);
        const bound = bindStatement(stmt!, this.bindEnv());
        if (bound.kind !== 'query') return false;
        for await (const b of executePlan(this.physicalPlan(bound), this.execContext([], new AbortController().signal, this.transaction.current?.lake))) {
          if (b.numRows > 0) return true;
        }
        return false;
      },
      notice: (message) => this.notice('NOTICE', SqlState.successfulCompletion, message),
    };
  }

  /** What views, CREATE TABLE AS and COMMENT ON need from the session (run-view-ddl.ts). */
  viewDdlIo(params: readonly unknown[] = []): ViewDdlIo {
    return {
      noteTemporary: (table, spec) => this.temp.noteCreated(table, spec, this.transaction.current !== undefined),
      notice: (n) => this.events?.notice(n),
      searchPath: this.searchPath(),
      validateProperties: (p) => validateTableProperties(Object.keys(p), p, this.propertyChecks()),
      fill: async (insert, paramTypes) => {
        const bound = bindStatement(insert, this.bindEnv(paramTypes));
        if (bound.kind !== 'dml') throw new FloeError(SqlState.internalError, 'CREATE TABLE AS did not bind to an INSERT');
        const result = await this.runDml(bound, params, new AbortController().signal);
        return result.kind === 'command' ? Number(result.tag.split(' ').pop()) : 0;
      },
    };
  }
}
