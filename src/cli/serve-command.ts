import { mkdirSync, readFileSync } from 'node:fs';
import type { SecureVersion } from 'node:tls';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { closeSharedScanPool, sharedScanPool, spilledBytes } from '../exec/index.js';
import { FloeMetrics, startHttpServer } from '../http/index.js';
import { BOOTSTRAP_SUPERUSER_OID, openWarehouse } from '../lake/index.js';
import { DEFAULT_QUERY_MEMORY_LIMIT, SessionRegistry, checkSetting, createFloeSession, parseMemorySetting, sweepDeadSessionDirectories } from '../session/index.js';
import { createSystemCatalog, loadSqlParser, registerCatalogFunctions, regprocedureName, regprocName } from '../sql/index.js';
import { pgHbaFileRuleRows, registerRegNameLookup, startWireServer, type LoginAttemptEvent } from '../wire/index.js';
import { AuditSpool, AuditTrail, IcebergMetadataService, createIcebergExportPool, createTieringPool, LogTieringService, MaterializedViewRefresher, SubscriptionManager, recoverAuditSpools } from '../service/index.js';
import { materializedViewRefreshRunner } from './materialized-view-refresh-runner.js';
import { createLogger } from './cli-logger.js';
import { LoginThrottle } from '../common/login-throttle.js';
import { stopOnSignal } from './stop-on-signal.js';
import { OPTIMIZER_FLAGS, createOptimizingRuntime, parseOptimizerFlags } from './optimizing-runtime.js';
import { catalogAuthProvider, catalogHttpCredentials } from './role-auth.js';
import { importUsersFile } from './users-file-import.js';
import { loadHbaFile } from './hba-file.js';
import { DEFAULT_HTTP_PORT, parseHttpFlags } from './http-flags.js';
import { httpSessionDirectory } from './http-session-directory.js';
import { WAREHOUSE_FLAGS, WAREHOUSE_USAGE, warehouseLocation } from '../tools/warehouse-location.js';
import { UsageError, parseCommandLine } from '../tools/command-line.js';

const SERVE_USAGE = `usage: floe serve [--port 5433] [--host 127.0.0.1] [--max-message-bytes N]
${WAREHOUSE_USAGE}
    [--query-memory-limit 1GB] [--tls-cert FILE --tls-key FILE [--tls-ca FILE] [--ssl-min-protocol-version TLSv1.2]]
                         (--tls-ca: clients may present certificates signed by it, for hba's cert method and clientcert)
    [--optimizer-threads 1] [--optimizer-memory 1GB]   (0 threads: no background optimizing)
    [--optimizer-nice 19]   (the optimizer threads' nice value, 0–19: queries go first when both want the CPU)
    [--scan-threads N]   (scan worker threads; default: the machine's cores)
    [--no-log-tiering]   (leave the log store's files to the optimizer instead of tiering them into Parquet)
    [--no-iceberg-metadata]   (do not write Iceberg metadata beside the data; with several gateways, keep it on in one)
    [--http-port 5480] [--http-host 127.0.0.1] [--http-auth loopback|always] [--no-http]
                         (the management server: /metrics, /healthz, /readyz, /api/v1, the Iceberg REST
                          catalog at /iceberg; port 0 picks a free one;
                          HTTPS with --tls-cert/--tls-key; off loopback it needs them)
    [--log-min-duration-statement -1]   (log statements that ran at least this long: '250ms', '1s'; 0 all, -1 none)
    [--superuser floe]   (the bootstrap superuser's name, given when the first start creates the catalog)
    [--hba FILE]   (who may connect, in pg_hba.conf's format; default: the bootstrap superuser without a
                    password on loopback, SCRAM for every other role from anywhere)
    [--audit] [--audit-retention 90d]   (record logins, DDL, privilege changes and writes in audit.floe_audit
                    and the log; reads too under SET audit.log_reads = on; rows older than the retention go)
  The PostgreSQL gateway on an embedded warehouse (created when --data does not exist), until SIGTERM.
  With --data s3://…, data files live in the bucket and the catalog in --state-dir (or in --catalog).`;

/**
 * The old generation may grow to three times what survived the last full GC before
 * the next one (V8 otherwise picks a factor near 1 for heaps this small). A query
 * promotes tens of MB of batches that die soon after; with V8's own limits each
 * thread ran a full mark about every second query, ~50-110 ms of marking each on the
 * main thread alone. Process-wide and read at each GC, so set here it reaches the scan
 * workers too. Measured in bench/README.md ("Fifteenth session").
 */
const HEAP_GROWING_PERCENT = 200;

/** Settings a flag gives every session a default of, as `postgres -c name=value` does; a bad value is a usage error. */
function serverSettingFlags(values: { 'log-min-duration-statement'?: string; 'ssl-min-protocol-version'?: string; 'tls-cert'?: string }): Map<string, string> {
  const checked = (flag: string, name: string, value: string) => {
    try {
      return checkSetting(name, value);
    } catch (e) {
      throw new UsageError(`--${flag}: ${(e as Error).message}`, SERVE_USAGE);
    }
  };
  return new Map([
    ['log_min_duration_statement', checked('log-min-duration-statement', 'log_min_duration_statement', values['log-min-duration-statement'] ?? '-1')],
    ['ssl', values['tls-cert'] === undefined ? 'off' : 'on'],
    ['ssl_min_protocol_version', checked('ssl-min-protocol-version', 'ssl_min_protocol_version', values['ssl-min-protocol-version'] ?? 'TLSv1.2')],
  ]);
}

/** --audit-retention: whole days, hours or minutes ('90d', '12h', '30min'; a bare number is days); a usage error otherwise. */
function auditRetentionMs(text: string): number {
  const m = /^\s*(\d+)\s*(d|h|min)?\s*$/.exec(text);
  const unitMs = { d: 86_400_000, h: 3_600_000, min: 60_000 }[(m?.[2] ?? 'd') as 'd' | 'h' | 'min'];
  const ms = m === null ? NaN : Number(m[1]) * unitMs;
  if (!(ms > 0)) throw new UsageError(`--audit-retention: expected a positive duration such as 90d, 12h or 30min, not "${text}"`, SERVE_USAGE);
  return ms;
}

/** `floe serve`: the gateway on an embedded warehouse; resolves once it listens, and runs until SIGTERM. */
export async function runServeCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(SERVE_USAGE, argv, (args) => parseArgs({
    args,
    options: {
      port: { type: 'string', default: '5433' },
      ...WAREHOUSE_FLAGS,
      host: { type: 'string', default: '127.0.0.1' },
      'max-message-bytes': { type: 'string' },
      'query-memory-limit': { type: 'string', default: DEFAULT_QUERY_MEMORY_LIMIT },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-ca': { type: 'string' },
      'ssl-min-protocol-version': { type: 'string' },
      // Tiering the log store into Parquet change files (docs/design-notes.md, "Tiering, as built").
      'log-tiering': { type: 'boolean', default: true },
      'iceberg-metadata': { type: 'boolean', default: true },
      'scan-threads': { type: 'string' },
      // The management server (src/http): README.md, "Management".
      http: { type: 'boolean', default: true },
      'http-port': { type: 'string', default: String(DEFAULT_HTTP_PORT) },
      'http-host': { type: 'string', default: '127.0.0.1' },
      'http-auth': { type: 'string', default: 'loopback' },
      'log-min-duration-statement': { type: 'string', default: '-1' },
      superuser: { type: 'string' },
      hba: { type: 'string' },
      audit: { type: 'boolean', default: false },
      'audit-retention': { type: 'string', default: '90d' },
      ...OPTIMIZER_FLAGS,
    },
    allowNegative: true,
  }));
  const { values } = parsed;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // A log reader that went away (EPIPE) must not take the server down, nor keep it from stopping.
  process.stdout.on('error', () => undefined);
  const optimizerFlags = parseOptimizerFlags(values);
  const scanThreads = values['scan-threads'] === undefined ? undefined : Number(values['scan-threads']);
  if (scanThreads !== undefined && !(Number.isInteger(scanThreads) && scanThreads >= 1)) {
    throw new UsageError(`--scan-threads must be a whole number of at least 1, not "${values['scan-threads']}"`, SERVE_USAGE);
  }
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) throw new Error('--tls-cert and --tls-key go together');
  const http = values.http === true ? parseHttpFlags(values, values['tls-cert'] !== undefined, SERVE_USAGE) : undefined;
  const queryMemoryLimit = values['query-memory-limit']!;
  parseMemorySetting('--query-memory-limit', queryMemoryLimit);
  const serverSettings = serverSettingFlags(values);
  const logger = createLogger();
  const location = warehouseLocation(values, SERVE_USAGE);
  const dataDir = location.dir;
  mkdirSync(dataDir, { recursive: true });
  await loadSqlParser();
  registerCatalogFunctions();
  // regproc and regprocedure values print as function names (the wire cannot read pg_proc itself).
  registerRegNameLookup((typeOid, oid) => (typeOid === 24 ? regprocName(oid) : typeOid === 2202 ? regprocedureName(oid) : undefined));
  // Counts commits and statements from the start, through the observers the lake and the wire are given.
  const metrics = new FloeMetrics();
  if (values.superuser !== undefined && (values.superuser === '' || /^(public|none)$|^pg_/.test(values.superuser))) {
    throw new UsageError(`--superuser: "${values.superuser}" is a reserved role name`, SERVE_USAGE);
  }
  const warehouse = await openWarehouse({
    path: dataDir, logger: logger.child({ component: 'lake' }), commitObserver: metrics.commitObserver,
    ...(values.superuser === undefined ? {} : { superuser: values.superuser }),
    ...(location.storage === undefined ? {} : { storage: location.storage }),
    ...(location.catalog === undefined ? {} : { catalog: location.catalog }),
  });
  // Temporary tables of sessions a crash ended (session-warehouse.ts).
  await sweepDeadSessionDirectories(dataDir);
  const catalog = createSystemCatalog();
  // Threads start with the server, so no session pays for starting them.
  const scanPool = sharedScanPool({ threads: scanThreads });
  const imported = importUsersFile(dataDir, warehouse.roles);
  if (imported.length > 0) logger.info({ users: imported }, 'users.json imported into the catalog as login roles');
  // The bootstrap superuser is oid 10 whatever its name; the rules and the HTTP trust name it.
  const superuser = warehouse.roles.getByOid(BOOTSTRAP_SUPERUSER_OID)!.name;
  const hba = loadHbaFile(values.hba, superuser, SERVE_USAGE);
  const auth = catalogAuthProvider(warehouse.roles, hba);
  const auditLogger = logger.child({ component: 'audit' });
  if (values.audit === true) {
    // Rows a killed gateway had spooled and not flushed go in before anything new is recorded.
    const recovered = await recoverAuditSpools(warehouse, dataDir);
    if (recovered > 0) auditLogger.info({ rows: recovered }, 'audit rows recovered from the spool of a stopped process');
  }
  const auditTrail = values.audit === true ? new AuditTrail({
    warehouse, logger: auditLogger, retention: { maxAgeMs: auditRetentionMs(values['audit-retention']!) }, spool: new AuditSpool(dataDir),
  }) : undefined;
  const optimizing = createOptimizingRuntime(warehouse, { ...optimizerFlags, logger: logger.child({ component: 'optimizer' }) });
  // CDC in: the runners of the warehouse's subscriptions (src/service/subscriptions).
  const subscriptions = new SubscriptionManager({ warehouse, logger: logger.child({ component: 'subscriptions' }) });
  let port = Number(values.port);
  // The server's sessions, as pg_stat_activity, pg_cancel_backend, NOTIFY and advisory locks see them.
  const registry = new SessionRegistry();
  if (values['tls-ca'] !== undefined && values['tls-cert'] === undefined) throw new UsageError('--tls-ca needs --tls-cert and --tls-key', SERVE_USAGE);
  const tls = values['tls-cert'] === undefined ? undefined : {
    cert: readFileSync(values['tls-cert']), key: readFileSync(values['tls-key']!),
    minVersion: serverSettings.get('ssl_min_protocol_version') as SecureVersion,
  };
  const sessions = httpSessionDirectory(registry);
  // One count of failed logins per address for the wire and the HTTP server alike.
  const loginThrottle = new LoginThrottle();
  // Before the wire listens, so /healthz answers while the rest starts and /readyz turns 200 only after it.
  const httpServer = http === undefined ? undefined : await startHttpServer({
    host: http.host, port: http.port, ...(tls === undefined ? {} : { tls }),
    auth: { mode: http.auth, credentials: catalogHttpCredentials(warehouse.roles), trustedUser: superuser, throttle: loginThrottle },
    warehouse, optimizing: optimizing.service, sessions, metrics, logger: logger.child({ component: 'http' }),
    // The dashboard's rate charts sample every 10 s; tests set a shorter interval to see points sooner.
    ...(process.env.FLOE_HTTP_RATE_SAMPLE_SECONDS === undefined ? {} : { rateSampleSeconds: Number(process.env.FLOE_HTTP_RATE_SAMPLE_SECONDS) }),
  });
  const server = await startWireServer({
    host: values.host!,
    port,
    auth,
    logger: logger.child({ component: 'wire' }),
    maxMessageBytes: values['max-message-bytes'] === undefined ? undefined : Number(values['max-message-bytes']),
    // With a certificate, SSLRequest is answered with TLS instead of 'N'.
    tls,
    ...(values['tls-ca'] === undefined ? {} : { clientCa: readFileSync(values['tls-ca']) }),
    statementObserver: metrics.statementObserver,
    loginThrottle,
    ...(auditTrail === undefined ? {} : {
      loginObserver: (e: LoginAttemptEvent) => auditTrail.record({
        at: BigInt(Date.now()) * 1000n, userName: e.user, clientAddr: e.remoteAddress === '' ? null : e.remoteAddress, applicationName: e.applicationName,
        action: 'connect', objects: [e.database], statement: null, rows: null, sqlstate: e.sqlstate, outcome: e.outcome,
      }),
    }),
    createSession: (startup) => createFloeSession({
      warehouse, catalog, startup, port, scanPool, queryMemoryLimit, serverSettings, optimizing: optimizing.service, registry, subscriptions,
      hbaFileRules: () => pgHbaFileRuleRows(hba).map((r) => ({ ...r })),
      ...(auditTrail === undefined ? {} : { audit: auditTrail }),
    }),
  });
  port = server.port;
  metrics.watch({
    warehouse, optimizing: optimizing.service,
    gauges: { wireConnections: () => server.connectionCount, scanQueueDepth: () => scanPool.queueSize ?? 0, spilledBytes },
  });
  httpServer?.markReady();
  optimizing.start();
  subscriptions.start();
  auditTrail?.start();
  // The log store's tiering, beside the optimizer (src/service/log-tiering); its Parquet
  // files are written on a background thread of their own.
  const tieringPool = values['log-tiering'] === true ? createTieringPool() : undefined;
  const tiering = new LogTieringService(warehouse, {
    logger: logger.child({ component: 'log-tiering' }), ...(tieringPool === undefined ? {} : { rewriteChangeGroup: tieringPool.rewriteChangeGroup }),
  });
  if (values['log-tiering'] === true) tiering.start();
  // Iceberg v2 metadata of each table's base store, after its commits (src/service/iceberg-metadata).
  // Its change-store files are written on a background thread of their own, at a low priority.
  const icebergExport = createIcebergExportPool();
  const icebergMetadata = new IcebergMetadataService(warehouse, {
    logger: logger.child({ component: 'iceberg-metadata' }), writeChangeStore: icebergExport.writeChangeStore,
  });
  if (values['iceberg-metadata'] === true) icebergMetadata.start();
  // Materialized views with a declared freshness, kept within it (src/service/materialized-views).
  const refresher = new MaterializedViewRefresher({
    warehouse, logger: logger.child({ component: 'materialized-views' }),
    run: materializedViewRefreshRunner(() => createFloeSession({
      warehouse, catalog, port, scanPool, queryMemoryLimit, serverSettings, optimizing: optimizing.service, subscriptions,
      startup: { user: superuser, database: 'floe', parameters: { application_name: 'floe materialized view refresh' }, remoteAddress: '', processId: 0 },
    })),
  });
  refresher.start();
  logger.info({
    host: values.host, port, data: location.data, ...(location.storage === undefined ? {} : { stateDir: dataDir }),
    ...(location.catalogShown === undefined ? {} : { catalog: location.catalogShown }), tls: values['tls-cert'] !== undefined,
    optimizerThreads: optimizerFlags.threads, scanThreads: scanPool.size, logTiering: values['log-tiering'] === true, icebergMetadata: values['iceberg-metadata'] === true, httpPort: httpServer?.port, https: httpServer?.secure,
  }, 'listening');

  stopOnSignal(logger, 'draining sessions', async () => {
    await httpServer?.close();
    await server.close({ drainMs: 5000 });
    await optimizing.stop();
    await subscriptions.stop();
    await tiering.stop();
    await tieringPool?.close();
    await icebergMetadata.stop();
    await icebergExport.close();
    await refresher.stop();
    // After the sessions ended: their last events are in the buffer this flushes.
    await auditTrail?.stop();
    await closeSharedScanPool();
    await warehouse.close();
  });
}
