import { SessionIdentity } from './session-identity.js';
import { rowSecurityOf } from './row-security.js';
import type { AuditContext, AuditSink } from './statement-audit.js';
import { SessionPrivileges } from './session-privileges.js';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SqlType } from '../common/sql-type.js';
import type { ColumnDescription, SessionEvents, StartupInfo, StatementResult } from '../common/session-handler.js';
import type {
  ExecContext, ExecLakeTransaction, ExecWarehouse, PhysicalPlan, ScanPool, VirtualTableRegistry,
} from '../exec/index.js';
import type { DataFileInfo, LakeTransaction, Warehouse } from '../lake/index.js';
import {
  bindStatement, type BoundStatement, type CatalogTable, type DdlCommand,
  type ParsedStatement, type SystemCatalog, type UtilityCommand,
} from '../sql/index.js';
import type { OptimizingService, SubscriptionWorkers } from '../service/index.js';
import { procedureResultColumns } from './procedure-result-columns.js';
import { MV_MAX_STALENESS_SETTING, MV_REWRITE_SETTING, offeredMaterializedViews, offeredViewStillFresh } from './offered-materialized-views.js';
import { Cursors } from './cursors.js';
import { explainColumn } from './explain-result.js';
import { PreparedStatements, preparedPlan, type Prepared } from './prepared-statements.js';
import { describeColumns, textColumn } from './result-columns.js';
import { SessionSequenceState } from './session-sequence-state.js';
import { SessionServerFunctions } from './session-server-functions.js';
import { processSessionRegistry, type SessionRegistry } from './session-registry.js';
import { SessionSettings, parseSearchPath } from './session-settings.js';
import { processStatementStatistics, type StatementStatistics } from './statement-statistics.js';
import { whenSent } from './when-sent.js';
import { physicalPlanOf } from './physical-plan-of.js';
import { planOptions } from './disabled-optimizer-rules.js';
import type { LogicalStatementPlan, PlanStatementOptions } from '../planner/index.js';
import { SessionWarehouse } from './session-warehouse.js';
import { sessionOptimizingService } from './session-optimizing-service.js';
import { AUDIT_LOG_READS, DEFAULT_QUERY_MEMORY_LIMIT, QUERY_MEMORY_LIMIT, displayName, parseMemorySetting, settingDefinition } from './settings-registry.js';
import { columnRanges, liveRows } from './table-estimates.js';
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
  /** Server defaults of other settings by lower-case name (`postgres -c name=value`), already checked: `floe serve --log-min-duration-statement`. */
  readonly serverSettings?: ReadonlyMap<string, string>;
  /** The self-optimizing service (floe serve's scheduler); without one, an inline service per warehouse. */
  readonly optimizing?: OptimizingService;
  /** The server's live sessions and advisory locks; without one, the process-wide registry. */
  readonly registry?: SessionRegistry;
  /** floe serve's subscription runners (CDC in); without them, subscription statements change the catalog only. */
  readonly subscriptions?: SubscriptionWorkers;
  /** The server's statement statistics (floe_stat_statements); without them, the process-wide ones. */
  readonly statementStatistics?: StatementStatistics;
  /** The audit trail statements are recorded in (floe serve's; absent: none). */
  readonly audit?: AuditSink;
  /** pg_hba_file_rules's rows: the server's connection rules. */
  readonly hbaFileRules?: () => readonly Readonly<Record<string, unknown>>[];
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
 * a bind environment, an executor context and a lake transaction to write through
 * (DuckDB's ClientContext). Statements run through it in run-statement.ts, and the SQL
 * the session runs on its own behalf in internal-statements.ts; the utility commands
 * (src/session/commands) take it as their one argument; floe-session.ts is the wire's
 * handler over it.
 */
export class SessionContext {
  readonly deps: SessionDeps;
  /** deps.warehouse plus this session's temporary tables; deps.warehouse is this. */
  readonly temp: SessionWarehouse;
  readonly settings: SessionSettings;
  /** Session and current user (SET SESSION AUTHORIZATION, SET ROLE) and the roles they are checked against. */
  readonly identity: SessionIdentity;
  /** Privilege checks against the catalog's owners and ACLs. */
  readonly privileges: SessionPrivileges;
  /** The open transaction block, if any (BEGIN … COMMIT, or a query string's implicit one). */
  readonly transaction: TransactionState;
  readonly prepared = new PreparedStatements();
  readonly cursors = new Cursors();
  readonly sequences: SessionSequenceState;
  readonly optimizing: OptimizingService;
  /** pg_stat_activity, LISTEN/NOTIFY, advisory locks, signals to other sessions. */
  readonly server: SessionServerFunctions;
  /** Where each finished statement is counted (floe_stat_statements). */
  readonly statistics: StatementStatistics;
  /** The client's notices and ParameterStatus, once the wire started the session. */
  events: SessionEvents | undefined;
  /** How DDL and utility statements run (src/session/commands, handed in so this file imports none of them). */
  readonly commands: SessionCommands;

  constructor(deps: SessionDeps, commands: SessionCommands) {
    this.commands = commands;
    this.statistics = deps.statementStatistics ?? processStatementStatistics;
    this.temp = new SessionWarehouse(deps.warehouse, deps.startup.processId);
    this.deps = { ...deps, warehouse: this.temp };
    this.settings = new SessionSettings({
      startup: deps.startup, port: deps.port, queryMemoryLimit: deps.queryMemoryLimit, serverSettings: deps.serverSettings,
      events: () => this.events, txn: () => this.transaction.current,
    });
    this.identity = new SessionIdentity(this.temp, deps.startup.user, this.settings);
    this.privileges = new SessionPrivileges(this.temp, this.identity);
    this.transaction = new TransactionState(this.temp);
    this.sequences = new SessionSequenceState(this.temp, (s, anyOf) => {
      if (!this.privileges.isSuperuser() && this.privileges.relationMask(s.id, 'sequence', anyOf) === 0) {
        throw new FloeError(SqlState.insufficientPrivilege, `permission denied for sequence ${s.name}`);
      }
    });
    this.optimizing = sessionOptimizingService(deps.warehouse, deps.optimizing);
    deps.catalog.attachServices?.(this.temp, this.optimizing);
    this.server = new SessionServerFunctions(deps.registry ?? processSessionRegistry, {
      startup: deps.startup,
      settings: () => this.settings.values,
      transactionStatus: () => this.transaction.status(),
      transactionStartMicros: () => this.transaction.explicitStartMicros(),
      events: () => this.events,
      warning: (message) => this.notice('WARNING', '01000', message),
      statistics: this.statistics,
      ...(deps.hbaFileRules === undefined ? {} : { hbaFileRules: deps.hbaFileRules }),
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

  /** A statement's result, counted in the statement statistics once the wire has sent it all. */
  counted(text: string, startedMs: number, result: StatementResult): StatementResult {
    const { user, database } = this.deps.startup;
    return whenSent(result, (rows) => this.statistics.record({ user, database, text, ms: performance.now() - startedMs, rows }));
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

  /**
   * What a bound plan depends on besides the tables it names: the search path, and — when
   * row security is in use — the current role, the policies, which the binder applied, and
   * `row_security`.
   */
  planContext(): string[] {
    const rls = (this.deps.warehouse as { rowPolicies?: Warehouse['rowPolicies'] }).rowPolicies?.version() ?? '';
    const path = rls === '' ? this.searchPath() : [...this.searchPath(), `\0${this.identity.currentUser()}\0${rls}\0${this.settings.get('row_security')}`];
    // Whether materialized views may answer: a plan bound with them offered (or not) holds only while that stays so.
    const views = this.settings.get(MV_REWRITE_SETTING) === 'off' || this.transaction.current !== undefined ? 'off' : this.settings.get(MV_MAX_STALENESS_SETTING) ?? '';
    return views === '' ? path : [...path, `\0mv\0${views}`];
  }

  /**
   * search_path as PostgreSQL's recomputeNamespacePath makes it: "$user" kept only when a
   * schema of that name exists, and a schema the current role may not use left out, so an
   * unqualified name is looked up in the next one (and current_schema skips it).
   */
  searchPath(): string[] {
    const user = this.identity.currentUser();
    const path = parseSearchPath(this.settings.get('search_path') ?? 'public');
    const hasUserSchema = path.includes('$user') && this.deps.warehouse.listNamespaces().includes(user);
    const named = path.flatMap((s) => (s === '$user' ? (hasUserSchema ? [user] : []) : [s]));
    return named.filter((s) => this.privileges.schemaUsable(s));
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
      rowSecurity: rowSecurityOf(this.deps.warehouse, this.identity, () => this.settings.get('row_security') !== 'off'),
      // Answers from materialized views only outside a transaction block, whose snapshots a view's rows need not match.
      ...(this.settings.get(MV_REWRITE_SETTING) === 'off' || this.transaction.current !== undefined || this.deps.warehouse.materializedViewIds().length === 0 ? {} : {
        materializedViews: (tableIds: readonly number[]) => offeredMaterializedViews(this.deps.warehouse, tableIds, this.settings.get(MV_MAX_STALENESS_SETTING)),
      }),
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
      user: this.identity.currentUser(),
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
    this.setSetting(name, value);
    return this.settings.get(name) ?? value;
  }

  /** Who the audit trail says ran a statement: the session user (as pgaudit's user), from where, with which application. */
  auditContext(): AuditContext {
    const s = this.deps.startup;
    return {
      userName: this.identity.sessionUser(), clientAddr: s.remoteAddress === '' ? null : s.remoteAddress,
      applicationName: this.settings.get('application_name') ?? '', logReads: this.settings.get(AUDIT_LOG_READS) ?? 'off',
    };
  }

  /** SET and set_config(): the identity settings through their checks (session-identity.ts), the rest through the registry's. */
  setSetting(name: string, value: string | null): void {
    if (name === 'role') this.identity.setRole(value);
    else if (name === 'session_authorization') this.identity.setSessionAuthorization(value);
    else {
      if (settingDefinition(name)?.context === 'superuser' && !this.identity.isSuperuser(this.identity.currentUser())) {
        throw new FloeError(SqlState.insufficientPrivilege, `permission denied to set parameter "${name}"`);
      }
      this.settings.set(name, value);
    }
  }

  /** A prepared statement's plan, bound again when what it was built against changed (prepared-statements.ts). */
  preparedPlan(p: Prepared, stmt: ParsedStatement): BoundStatement {
    return preparedPlan(p, this.deps.warehouse, this.planContext(), () => bindStatement(stmt, this.bindEnv(p.paramTypes)), (b) => this.columnsOf(b),
      (id) => offeredViewStillFresh(this.deps.warehouse, id, this.settings.get(MV_MAX_STALENESS_SETTING)));
  }

  /**
   * The plan a bound query or DML statement runs (and EXPLAIN prints), under the session's
   * disabled optimizer rules; `statement` says more of it (PlanStatementOptions: a statement
   * that runs again within seconds, one whose rows nothing reads in order).
   */
  physicalPlan(bound: { readonly logical: LogicalStatementPlan }, statement: Pick<PlanStatementOptions, 'rereads' | 'rowOrderFree'> = {}): PhysicalPlan {
    return physicalPlanOf(bound, { ...planOptions(this.settings.values), ...statement });
  }
}
