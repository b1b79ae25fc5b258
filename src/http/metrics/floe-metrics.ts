import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CommitObserver, Warehouse } from '../../lake/index.js';
import type { OptimizingService } from '../../service/index.js';
import type { ServerGauges } from '../management-sources.js';
import { sqlstateClass, statementKind } from './statement-kind.js';
import { registerTableMetrics, type TableMetrics } from './table-metrics.js';

/** Commit latency: a group-committed fsync is sub-millisecond to a few ms; a large COPY's commit seconds. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Statement latency, from point reads to long analytic queries. */
const QUERY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** What the wire tells of each statement answered (src/wire's StatementObserver, structurally). */
export interface StatementMetricsObserver {
  completed(tag: string, seconds: number): void;
  failed(sqlstate: string): void;
}

/** Running totals since the process started, for the dashboard's rate charts (metrics/rate-sampler.ts). */
export interface ActivityTotals {
  readonly commits: number;
  readonly ingestRows: number;
  readonly queries: number;
  readonly errors: number;
}

/**
 * Floe's Prometheus metrics, on a registry of their own. Commits and statements are
 * counted as they happen, through the observers the lake and the wire are given (so
 * neither imports prom-client); everything else is read when Prometheus scrapes, once
 * `watch` has the warehouse, the optimizing service and the server's gauges.
 */
export class FloeMetrics {
  readonly registry = new Registry();
  readonly commitObserver: CommitObserver;
  readonly statementObserver: StatementMetricsObserver;
  #tables: TableMetrics | undefined;
  // Kept beside the prom-client series: reading those back is async and per label set.
  #totals = { commits: 0, ingestRows: 0, queries: 0, errors: 0 };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const commits = new Counter({ name: 'floe_commits_total', help: 'Transactions committed that wrote rows.', registers: [this.registry] });
    const commitSeconds = new Histogram({
      name: 'floe_commit_duration_seconds', help: 'From COMMIT to the snapshot being visible to every session (log fsync and catalog apply).',
      buckets: COMMIT_BUCKETS, registers: [this.registry],
    });
    const ingestRows = new Counter({ name: 'floe_ingest_rows_total', help: 'Rows written by committed transactions (an update counts its before and after images).', registers: [this.registry] });
    const totals = this.#totals;
    this.commitObserver = {
      committed(c) {
        totals.commits++;
        totals.ingestRows += c.rows;
        commits.inc();
        commitSeconds.observe(c.seconds);
        ingestRows.inc(c.rows);
      },
    };
    const queries = new Histogram({
      name: 'floe_query_duration_seconds', help: 'Statements answered, by kind (from the command tag), from receipt to CommandComplete.',
      labelNames: ['kind'], buckets: QUERY_BUCKETS, registers: [this.registry],
    });
    const errors = new Counter({ name: 'floe_query_errors_total', help: 'Errors sent to clients, by SQLSTATE class.', labelNames: ['sqlstate_class'], registers: [this.registry] });
    this.statementObserver = {
      completed: (tag, seconds) => {
        totals.queries++;
        queries.observe({ kind: statementKind(tag) }, seconds);
      },
      failed: (sqlstate) => {
        totals.errors++;
        errors.inc({ sqlstate_class: sqlstateClass(sqlstate) });
      },
    };
  }

  /** Commits, rows written, statements answered and errors sent since the process started. */
  totals(): ActivityTotals {
    return { ...this.#totals };
  }

  /** Registers what is read at scrape time. */
  watch(sources: { warehouse: Warehouse; optimizing: OptimizingService; gauges: ServerGauges }): void {
    const { warehouse, optimizing, gauges } = sources;
    const registers = [this.registry];
    new Gauge({ name: 'floe_wire_connections', help: 'PostgreSQL wire connections open now.', registers, collect() { this.set(gauges.wireConnections()); } });
    new Gauge({ name: 'floe_scan_pool_queue_depth', help: 'Scan tasks waiting for a free scan worker thread.', registers, collect() { this.set(gauges.scanQueueDepth()); } });
    let spillSeen = 0;
    new Counter({
      name: 'floe_spill_bytes_total', help: 'Bytes queries wrote to spill files.', registers,
      collect() {
        const now = gauges.spilledBytes();
        this.inc(now - spillSeen);
        spillSeen = now;
      },
    });
    const groupGauge = (name: string, help: string, of: (g: ReturnType<OptimizingService['groups']>[number]) => number) => new Gauge({
      name, help, labelNames: ['group'], registers,
      collect() {
        this.reset();
        for (const g of optimizing.groups()) this.set({ group: g.name }, of(g));
      },
    });
    groupGauge('floe_optimizer_tasks_running', 'Optimizing processes running now, by optimizer group.', (g) => g.tasksRunning);
    groupGauge('floe_optimizer_tasks_queued', 'Optimizing processes due and waiting for a thread, by optimizer group.', (g) => g.tasksQueued);
    // The history is the warehouse's (every process on it records there): processes that ended since this server started.
    let lastRunId = optimizing.history()[0]?.id ?? 0;
    new Counter({
      name: 'floe_optimizer_processes_total', help: 'Optimizing processes ended since the server started, by status (success, failed, canceled).',
      labelNames: ['status'], registers,
      collect() {
        const runs = optimizing.history(); // newest first
        for (const s of ['success', 'failed', 'canceled']) this.inc({ status: s }, 0);
        for (const r of runs) {
          if (r.id <= lastRunId) break;
          this.inc({ status: r.status });
        }
        lastRunId = Math.max(lastRunId, runs[0]?.id ?? 0);
      },
    });
    this.#tables = registerTableMetrics(this.registry, warehouse, optimizing);
  }

  /** The exposition text of every metric, per-table gauges read now. */
  async scrape(): Promise<string> {
    this.#tables?.refresh();
    // prom-client 15 writes NaN as "Nan" (the event-loop lag of an interval without samples); the
    // exposition format spells it "NaN", and strict parsers refuse the other. A value ends its line.
    return (await this.registry.metrics()).replace(/ Nan$/gm, ' NaN');
  }
}
