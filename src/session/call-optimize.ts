import { typeLength, typeOid } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import type { ColumnDescription, StatementResult } from '../common/session-handler.js';
import type { TableMetadata } from '../lake/index.js';
import { optimizeKindArgument, type OptimizingService } from '../service/index.js';
import { batchUnlessEmpty, rowsBatch } from './result-columns.js';

/**
 * `CALL optimize('t' [, 'minor' | 'major' | 'full'])`: one optimize process now, through the
 * self-optimizing service (so it is recorded in floe_optimizing_history and takes the table's
 * claim), answered as PostgreSQL answers a CALL of a procedure with OUT parameters: one row,
 * then the tag CALL. The kind's argument is read as the service reads it (optimizeKindArgument).
 */

const int8: SqlType = { kind: 'int8' };
const text: SqlType = { kind: 'text' };

const RESULT: readonly (readonly [string, SqlType])[] = [
  ['kind', text], ['nodes', int8], ['splits', int8], ['merges', int8], ['files_in', int8], ['files_out', int8],
  ['rows_in', int8], ['rows_out', int8], ['bytes_in', int8], ['bytes_out', int8], ['duration_ms', int8], ['snapshot_id', int8],
];

const columns: ColumnDescription[] = RESULT.map(([name, t]) => ({
  name, tableOid: 0, columnNumber: 0, typeOid: typeOid(t), typeSize: typeLength(t), typeModifier: -1,
}));

/** The row CALL optimize returns. */
export const OPTIMIZE_RESULT_COLUMNS: readonly ColumnDescription[] = columns;

export async function callOptimize(service: OptimizingService, table: TableMetadata, kindArgument: unknown): Promise<StatementResult> {
  const kind = optimizeKindArgument(kindArgument);
  const r = await service.optimizeNow(table, kind);
  const n = (x: number) => BigInt(Math.round(x));
  const row = [
    r.kind, n(r.nodes), n(r.splits), n(r.nodesMerged), n(r.filesIn), n(r.filesOut), n(r.rowsIn), n(r.rowsOut),
    n(r.bytesIn), n(r.bytesOut), n(r.durationMs), r.snapshotId ?? null,
  ];
  const batch = rowsBatch([row], columns.length);
  return { kind: 'rows', columns, batches: batchUnlessEmpty(batch), commandTag: () => 'CALL' };
}
