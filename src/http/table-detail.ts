import { FloeError } from '../common/floe-error.js';
import { formatType } from '../common/sql-type.js';
import { SqlState } from '../common/sqlstate.js';
import type { OptimizingService } from '../service/index.js';
import type { OptimizingRun, TableMetadata, Warehouse } from '../lake/index.js';
import { fileSizeHistogram } from './file-size-histogram.js';
import { idText, isoOfMicros } from './json-values.js';
import { tableStorage } from './table-storage.js';

/** Snapshots a table page lists, newest first; the total is given beside them. */
const SNAPSHOT_LIMIT = 500;
/** Optimizing processes a table page lists, newest first. */
const HISTORY_LIMIT = 100;

/** The table, or 42P01 as a statement naming it would fail. */
export function findTable(warehouse: Warehouse, schema: string, name: string): TableMetadata {
  const t = warehouse.getTable(schema, name);
  if (t === undefined) throw new FloeError(SqlState.undefinedTable, `relation "${schema}.${name}" does not exist`);
  return t;
}

/**
 * One table's page: what `\d`, SHOW TBLPROPERTIES, t$snapshots, t$refs, t$files,
 * t$buckets, floe_optimizing and floe_optimizing_history show of it, from the same lake
 * and service calls.
 */
export function tableDetail(warehouse: Warehouse, optimizing: OptimizingService, t: TableMetadata) {
  const head = warehouse.resolveSnapshot(t);
  const files = head === undefined ? [] : warehouse.listFiles(t);
  const snapshots = warehouse.listSnapshots(t);
  const row = optimizing.tables().find((r) => r.tableId === t.id);
  return {
    schema: t.namespace,
    table: t.name,
    id: t.id,
    keyed: t.primaryKey.length > 0,
    primaryKey: t.primaryKey,
    columns: t.columns.map((c) => ({ name: c.name, type: formatType(c.type), nullable: c.nullable, default: c.defaultExpr ?? null })),
    partitionBy: t.partitionBy.map((p) => ({ name: p.name, column: p.sourceColumn, transform: p.transform })),
    properties: t.properties,
    headSnapshotId: idText(head?.id),
    snapshotsTotal: snapshots.length,
    snapshots: snapshots.slice(-SNAPSHOT_LIMIT).reverse().map((s) => ({
      id: idText(s.id), parentId: idText(s.parentId), branch: s.branch, committedAt: isoOfMicros(s.committedAtMicros),
      operation: s.operation, summary: s.summary,
    })),
    refs: warehouse.listRefs(t).map((r) => ({
      name: r.name, kind: r.kind, snapshotId: idText(r.snapshotId), retainMs: r.retainMicros === undefined ? null : Number(r.retainMicros / 1000n),
    })),
    files: { stores: tableStorage(files), sizes: fileSizeHistogram(files) },
    buckets: head === undefined ? [] : warehouse.bucketTree(t).map((b) => ({
      partition: b.partitionKey, node: `${b.node.index}/${b.node.mask}`, mask: b.node.mask, index: b.node.index, isFrontier: b.isFrontier,
      baseFiles: b.baseFiles, baseRows: b.baseRows, baseBytes: b.baseBytes, pendingChangeFiles: b.changeFiles, pendingChangeRows: b.changeRows,
    })),
    optimizing: row === undefined ? null : {
      enabled: row.enabled, group: row.group, status: row.status, quota: row.quota, occupation: row.occupation, healthScore: row.healthScore,
      pendingChangeFiles: row.pendingChangeFiles, pendingChangeRows: row.pendingChangeRows, pendingChangeBytes: row.pendingChangeBytes,
      baseFiles: row.baseFiles, smallFiles: row.smallFiles, freshnessLagSeconds: row.optimizingLagMs / 1000,
      lastMinor: isoOfMicros(row.lastMinorMicros), lastMajor: isoOfMicros(row.lastMajorMicros), lastFull: isoOfMicros(row.lastFullMicros),
    },
    readAmplification: row === undefined ? null : { target: row.readAmplificationMax, actual: row.readAmplification },
    history: warehouse.listOptimizingRuns({ tableId: t.id, limit: HISTORY_LIMIT }).map(runJson),
  };
}

/** One floe_optimizing_history row. */
export function runJson(r: OptimizingRun) {
  return {
    id: r.id, kind: r.kind, status: r.status, trigger: r.trigger, started: isoOfMicros(r.startedMicros), durationMs: r.durationMs,
    nodes: r.nodes, splits: r.splits, filesIn: r.filesIn, bytesIn: r.bytesIn, rowsIn: r.rowsIn,
    filesOut: r.filesOut, bytesOut: r.bytesOut, rowsOut: r.rowsOut, snapshotId: idText(r.snapshotId), error: r.error ?? null,
  };
}
