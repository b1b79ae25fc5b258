import type {
  NodeRewriteResult, NodeRewriteTask, OptimizeKind, OptimizeResult, OptimizingSettings, OptimizingStatus, TableMetadata,
} from '../../lake/index.js';
import type { OptimizeReport } from './optimizing-service.js';
import type { OptimizingRun } from '../../lake/index.js';
import type { OptimizingWarehouse, ServiceLogger } from './optimizing-warehouse.js';
import type { ServiceClock } from './service-clock.js';

/** A process that runs longer than this is aborted and recorded as failed (default). */
export const DEFAULT_PROCESS_DEADLINE_MS = 30 * 60_000;

export interface OptimizingProcessOptions {
  readonly warehouse: OptimizingWarehouse;
  readonly clock: ServiceClock;
  readonly table: TableMetadata;
  readonly kind: OptimizeKind;
  /** The table's settings when the scheduler runs it (only nodes past their triggers); absent for CALL optimize. */
  readonly triggers?: OptimizingSettings;
  /** 'scheduler' or 'call', as floe_optimizing_history shows it. */
  readonly trigger: 'scheduler' | 'call';
  readonly deadlineMs?: number;
  readonly runNodeRewrite?: (task: NodeRewriteTask) => Promise<NodeRewriteResult>;
  /** Aborted when the service stops. */
  readonly signal?: AbortSignal;
  readonly onStatus?: (status: OptimizingStatus) => void;
  /** Where the process's start and end lines go; the optimizer group it runs in, for them. */
  readonly logger?: ServiceLogger;
  readonly group?: string;
}

export interface OptimizingProcessOutcome {
  /** What history recorded (a failed run carries the error text). */
  readonly report: OptimizeReport;
  /** Undefined on success. */
  readonly error: unknown;
  /** It ended because the service stopped (`signal`), not because the optimize failed. */
  readonly canceled: boolean;
  /** The low watermark the optimize planned at; undefined when it failed. */
  readonly lowWatermark: bigint | undefined;
}

const STATUS_OF_PHASE: Readonly<Record<string, OptimizingStatus>> = { plan: 'planning', node: 'executing', commit: 'committing' };

/**
 * One optimize process of one table, start to end: runs the lake's optimize under a
 * deadline, reports its status as it moves (planning → executing → committing), and
 * records the run in the history, whatever the outcome. It never throws what the optimize threw:
 * a failure is an outcome, so the caller's bookkeeping always runs. A process that
 * ignores its abort past the deadline is abandoned, not waited for: whatever it still
 * does cannot commit (the lake checks the signal before committing), and it no longer
 * holds anything of the scheduler's.
 */
export async function runOptimizingProcess(o: OptimizingProcessOptions): Promise<OptimizingProcessOutcome> {
  const started = o.clock.nowMicros();
  const subject = { table: `${o.table.namespace}.${o.table.name}`, kind: o.kind, trigger: o.trigger, ...(o.group === undefined ? {} : { group: o.group }) };
  o.logger?.info(subject, 'optimize started');
  const controller = new AbortController();
  const deadlineMs = o.deadlineMs ?? DEFAULT_PROCESS_DEADLINE_MS;
  let cancelDeadline: () => void = () => undefined;
  let onOuterAbort: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    cancelDeadline = o.clock.setTimer(() => {
      const e = new Error(`optimize of "${o.table.name}" did not finish within its deadline of ${Math.round(deadlineMs / 1000)} s`);
      controller.abort(e);
      reject(e);
    }, deadlineMs);
    onOuterAbort = () => {
      const e = new Error('optimize canceled: the optimizing service is stopping');
      controller.abort(e);
      reject(e);
    };
    if (o.signal?.aborted) onOuterAbort();
    else o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  });
  let result: OptimizeResult | undefined;
  let error: unknown;
  try {
    const running = o.warehouse.optimize(o.table, {
      kind: o.kind,
      ...(o.triggers ? { triggers: o.triggers } : {}),
      ...(o.runNodeRewrite ? { runNodeRewrite: o.runNodeRewrite } : {}),
      signal: controller.signal,
      onProgress: (p) => {
        const status = STATUS_OF_PHASE[p.phase];
        if (status !== undefined) o.onStatus?.(status);
      },
    });
    // Once abandoned, its eventual rejection must not surface as an unhandled one.
    running.catch(() => undefined);
    result = await Promise.race([running, stopped]);
  } catch (e) {
    error = e;
  } finally {
    cancelDeadline();
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
  const durationMs = Number(o.clock.nowMicros() - started) / 1000;
  const canceled = error !== undefined && o.signal?.aborted === true;
  const run = o.warehouse.recordOptimizingRun({
    tableId: o.table.id,
    kind: o.kind,
    status: error === undefined ? 'success' : canceled ? 'canceled' : 'failed',
    trigger: o.trigger,
    startedMicros: started,
    durationMs,
    nodes: result?.nodesOptimized ?? 0,
    splits: result?.nodesSplit ?? 0,
    filesIn: result?.filesIn ?? 0,
    bytesIn: result?.bytesIn ?? 0,
    rowsIn: result?.rowsIn ?? 0,
    filesOut: result?.filesOut ?? 0,
    bytesOut: result?.bytesOut ?? 0,
    rowsOut: result?.rowsOut ?? 0,
    snapshotId: result?.snapshotId,
    error: error === undefined ? undefined : errorText(error),
  });
  if (o.logger !== undefined) logProcessEnd(o.logger, subject, run);
  return { report: { ...run, nodesMerged: result?.nodesMerged ?? 0 }, error, canceled, lowWatermark: result?.lowWatermark };
}

/**
 * Every optimize process ends with one line, whoever ran it (the scheduler, CALL optimize):
 * its outcome, duration and what it read and wrote, as floe_optimizing_history records it.
 * A failure is a warning: the table backs off and is retried, but an operator should see it.
 */
function logProcessEnd(log: ServiceLogger, subject: object, run: OptimizingRun): void {
  const line = {
    ...subject, outcome: run.status, duration_ms: Math.round(run.durationMs), nodes: run.nodes, splits: run.splits,
    files_in: run.filesIn, bytes_in: run.bytesIn, rows_in: run.rowsIn, files_out: run.filesOut, bytes_out: run.bytesOut, rows_out: run.rowsOut,
    ...(run.snapshotId === undefined ? {} : { snapshot_id: String(run.snapshotId) }),
    ...(run.error === undefined ? {} : { error: run.error }),
  };
  if (run.status === 'failed') log.warn(line, 'optimize failed');
  else log.info(line, run.status === 'canceled' ? 'optimize canceled' : 'optimize finished');
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
