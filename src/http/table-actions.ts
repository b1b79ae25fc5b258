import type { OptimizingService } from '../service/index.js';
import { optimizeKindArgument } from '../service/index.js';
import type { TableMetadata, Warehouse } from '../lake/index.js';
import { idText } from './json-values.js';

/**
 * The admin actions on a table. Pause and resume set `self-optimizing.enabled`, as
 * `ALTER TABLE t SET ('self-optimizing.enabled' = …)` would; optimize now is CALL optimize.
 */
export async function setOptimizingEnabled(warehouse: Warehouse, optimizing: OptimizingService, t: TableMetadata, enabled: boolean) {
  const after = await warehouse.alterTable(t.namespace, t.name, { kind: 'setProperties', properties: { 'self-optimizing.enabled': String(enabled) } });
  optimizing.nudge?.();
  return { schema: after.namespace, table: after.name, optimizingEnabled: enabled };
}

export async function optimizeNow(optimizing: OptimizingService, t: TableMetadata, kindArgument: unknown) {
  const r = await optimizing.optimizeNow(t, optimizeKindArgument(kindArgument));
  return {
    schema: t.namespace, table: t.name, kind: r.kind, nodes: r.nodes, splits: r.splits, merges: r.nodesMerged,
    filesIn: r.filesIn, filesOut: r.filesOut, rowsIn: r.rowsIn, rowsOut: r.rowsOut, bytesIn: r.bytesIn, bytesOut: r.bytesOut,
    durationMs: r.durationMs, snapshotId: idText(r.snapshotId),
  };
}
