import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { typeLength, typeOid } from '../common/sql-type.js';
import type { SqlType } from '../common/sql-type.js';
import type { ColumnDescription, StatementResult } from '../common/session-handler.js';
import type { OptimizeKind, TableMetadata } from '../lake/index.js';
import type { OptimizingService } from '../service/index.js';
import { rowsBatch } from './result-columns.js';

/**
 * `CALL optimize('t' [, 'minor' | 'major' | 'full'])`: one optimize process now, through the
 * self-optimizing service (so it is recorded in floe_optimizing_history and takes the table's
 * claim), answered as PostgreSQL answers a CALL of a procedure with OUT parameters: one row,
 * then the tag CALL. Without a kind it runs a major optimize: everything that can be done is,
 * whatever the table's triggers say.
 */
export const DEFAULT_CALL_OPTIMIZE_KIND: OptimizeKind = 'major';

const KINDS: readonly OptimizeKind[] = ['minor', 'major', 'full'];

const int8: SqlType = { kind: 'int8' };
const text: SqlType = { kind: 'text' };

const RESULT: readonly (readonly [string, SqlType])[] = [
  ['kind', text], ['nodes', int8], ['splits', int8], ['merges', int8], ['files_in', int8], ['files_out', int8],
  ['rows_in', int8], ['rows_out', int8], ['bytes_in', int8], ['bytes_out', int8], ['duration_ms', int8], ['snapshot_id', int8],
];

const columns: ColumnDescription[] = RESULT.map(([name, t]) => ({
  name, tableOid: 0, columnNumber: 0, typeOid: typeOid(t), typeSize: typeLength(t), typeModifier: -1,
}));

/** The row description of a CALL of `procedure` (normalized name), or null when it returns no row. */
export function procedureResultColumns(procedure: string): ColumnDescription[] | null {
  return procedure === 'optimize' ? columns : null;
}

/** 22023 with a hint for anything but minor, major or full; SQL NULL or no argument is the default. */
export function optimizeKindArgument(v: unknown): OptimizeKind {
  if (v === undefined || v === null) return DEFAULT_CALL_OPTIMIZE_KIND;
  const k = String(v).trim().toLowerCase();
  if ((KINDS as readonly string[]).includes(k)) return k as OptimizeKind;
  throw new FloeError(SqlState.invalidParameterValue, `invalid optimize kind: "${String(v)}"`, {
    hint: "The kind is 'minor' (fold change files), 'major' (also rewrite undersized and superseded base files; the default) or 'full' (rewrite every node).",
  });
}

export async function callOptimize(service: OptimizingService, table: TableMetadata, kindArgument: unknown): Promise<StatementResult> {
  const kind = optimizeKindArgument(kindArgument);
  const r = await service.optimizeNow(table, kind);
  const n = (x: number) => BigInt(Math.round(x));
  const row = [
    r.kind, n(r.nodes), n(r.splits), n(r.nodesMerged), n(r.filesIn), n(r.filesOut), n(r.rowsIn), n(r.rowsOut),
    n(r.bytesIn), n(r.bytesOut), n(r.durationMs), r.snapshotId ?? null,
  ];
  const batch = rowsBatch([row], columns.length);
  return { kind: 'rows', columns, batches: (async function* () { yield batch; })(), commandTag: () => 'CALL' };
}
