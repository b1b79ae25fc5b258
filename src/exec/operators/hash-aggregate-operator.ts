import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { HashAggregatePlan } from '../plan/physical-plan.js';
import { AggregateTable } from '../aggregate/aggregate-table.js';
import { compileAggregation, type CompiledAggregation } from '../aggregate/compile-aggregation.js';
import { compileScanPipeline, type CompiledScanPipeline } from './lake-scan-operator.js';
import type { Operator } from './operator.js';
import { emitBatches, inputBatches, meteredOperator, recordMetric, selectRows } from './operator-support.js';
import { compileExpr, truthySelection, type CompiledExpr } from '../expr/compile-expr.js';
import { aggregateShipment, runPartialAggregates, type AggregateShipment } from '../aggregate/partial-aggregate.js';
import { runKeyRangeAggregate } from '../aggregate/key-range-aggregate.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';

/**
 * GROUP BY with hash tables, in DuckDB's pipeline-breaker phases:
 *  sink — per input batch, evaluate keys/arguments and step group states
 *         (one batch step per aggregate where the aggregate offers one);
 *  combine — merge partial tables: over a lake scan on the worker pool, each
 *            scan task's worker aggregates its own rows and sends back a partial
 *            (or, split by key ranges, each worker finishes its range's groups);
 *  finalize — run DISTINCT/ORDER BY buffers and final functions;
 *  source — emit the groups as batches.
 */
export function createHashAggregateOperator(plan: HashAggregatePlan, input: Operator): Operator {
  const withGroupingId = plan.groupingSets !== undefined;
  const expectedCols = plan.groupBy.length + plan.aggregates.length + (withGroupingId ? 1 : 0);
  if (plan.columns.length !== expectedCols) {
    throw new FloeError(SqlState.internalError, `hashAggregate has ${plan.columns.length} columns, expected ${expectedCols}`);
  }
  const compiled = compileAggregation(plan);
  const having = plan.having ? compileExpr(plan.having) : undefined;
  if (plan.strategy === 'keyRanges' && plan.keyRangeSplit === undefined) {
    throw new FloeError(SqlState.internalError, 'hashAggregate by key ranges has no key range split');
  }
  // Where the groups are built is the planner's choice (strategy); the input must ship for the workers to take it.
  const shipment = plan.strategy !== undefined ? aggregateShipment(plan) : undefined;
  if (plan.strategy !== undefined && shipment === undefined) {
    throw new FloeError(SqlState.internalError, `hashAggregate planned ${plan.strategy} in the scan workers over an input that does not ship`);
  }
  const shippedPipeline = shipment ? compileScanPipeline(shipment) : undefined;

  const prepared: PreparedAggregate = { plan, input, withGroupingId, compiled, having, shipment, shippedPipeline };
  return meteredOperator(plan, (run) => aggregatedBatches(prepared, run));
}

/** An aggregate's compiled form, HAVING, and the shipment the workers take when it runs there. */
interface PreparedAggregate {
  readonly plan: HashAggregatePlan;
  readonly input: Operator;
  readonly withGroupingId: boolean;
  readonly compiled: CompiledAggregation;
  readonly having: CompiledExpr | undefined;
  readonly shipment: AggregateShipment | undefined;
  readonly shippedPipeline: CompiledScanPipeline | undefined;
}

/** The groups, built here, by the scan workers' partials, or by key ranges in the workers. */
async function* aggregatedBatches(prepared: PreparedAggregate, run: RunState): AsyncGenerator<ColumnarBatch> {
  const { plan, input, withGroupingId, compiled, having, shipment, shippedPipeline } = prepared;
  let reserved = 0;
  // Without a scan worker pool for it, a planned split falls back to partials, and partials to this thread.
  const ranged = shipment && plan.strategy === 'keyRanges' ? await runKeyRangeAggregate(plan, shipment, run) : undefined;
  if (ranged !== undefined) {
    try {
      run.memory.reserve(ranged.bytes, 'hash aggregate');
      reserved = ranged.bytes;
      recordMetric(plan, run, 'groups', ranged.groups);
      // The workers applied `having` to their ranges' groups.
      yield* ranged.batches;
    } finally {
      run.memory.release(reserved);
    }
    return;
  }
  const table = new AggregateTable(compiled);
  try {
    const shipped = shipment
      ? await runPartialAggregates(plan, shipment, { pipeline: shippedPipeline!, aggregation: compiled }, run, (p) => {
        const bytes = table.merge(p);
        run.memory.reserve(bytes, 'hash aggregate');
        reserved += bytes;
      }, async (b) => { reserved += await table.sink(b, run); })
      : false;
    if (!shipped) {
      for await (const b of inputBatches(input, run)) reserved += await table.sink(b, run);
    }
    // A grand total (no keys) yields one row even on empty input.
    table.ensureEmptySets();
    recordMetric(plan, run, 'groups', table.size);
    // ---- source ----
    const { columns, numRows } = table.finish(withGroupingId);
    table.release();
    for (const b of emitBatches(columns, numRows)) {
      if (having === undefined) { yield b; continue; }
      const keep = truthySelection(await having.evaluate(b, run), b.numRows);
      if (keep.length > 0) yield keep.length === b.numRows ? b : selectRows(b, keep);
    }
  } finally {
    run.memory.release(reserved);
  }
}
