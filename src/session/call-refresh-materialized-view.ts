import { FloeError } from '../common/floe-error.js';
import { typeLength, typeOid, type SqlType } from '../common/sql-type.js';
import type { ColumnDescription, StatementResult } from '../common/session-handler.js';
import { SqlState } from '../common/sqlstate.js';
import type { TableMetadata } from '../lake/index.js';
import { refreshMaterializedView } from './refresh-materialized-view.js';
import { batchUnlessEmpty, rowsBatch } from './result-columns.js';
import type { SessionContext } from './session-context.js';

/**
 * `CALL refresh_materialized_view('mv' [, 'auto' | 'incremental' | 'full'])`: REFRESH with the
 * mode chosen, answering what it did in one row (the refresh service calls it too).
 * 'incremental' is 0A000 for a view that can only be refreshed in full.
 */

const int8: SqlType = { kind: 'int8' };
const text: SqlType = { kind: 'text' };

export const REFRESH_RESULT_COLUMNS: readonly ColumnDescription[] = ([['mode', text], ['duration_ms', int8], ['rows_changed', int8]] as const)
  .map(([name, t]) => ({ name, tableOid: 0, columnNumber: 0, typeOid: typeOid(t), typeSize: typeLength(t), typeModifier: -1 }));

export async function callRefreshMaterializedView(ctx: SessionContext, table: TableMetadata, modeArgument: unknown, signal: AbortSignal): Promise<StatementResult> {
  const mode = modeArgument === undefined || modeArgument === null ? 'auto' : String(modeArgument).toLowerCase();
  if (mode !== 'auto' && mode !== 'incremental' && mode !== 'full') {
    throw new FloeError(SqlState.invalidParameterValue, `invalid refresh mode "${String(modeArgument)}"`, { hint: "Valid modes are 'auto', 'incremental' and 'full'." });
  }
  const mv = ctx.deps.warehouse.getMaterializedView(table.id);
  if (mv === undefined) throw new FloeError(SqlState.wrongObjectType, `"${table.name}" is not a materialized view`);
  if (mode === 'incremental' && mv.fullRefreshReason !== undefined) {
    throw new FloeError(SqlState.featureNotSupported, `materialized view "${table.name}" cannot be refreshed incrementally: ${mv.fullRefreshReason}`);
  }
  if (mode === 'incremental' && !mv.populated) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState, `materialized view "${table.name}" has not been populated`, { hint: 'Refresh it in full first.' });
  }
  const done = await refreshMaterializedView(ctx, table, mode === 'full' ? 'full' : 'auto', signal);
  const batch = rowsBatch([[done.mode, BigInt(done.durationMs), BigInt(done.rowsChanged)]], REFRESH_RESULT_COLUMNS.length);
  return { kind: 'rows', columns: [...REFRESH_RESULT_COLUMNS], batches: batchUnlessEmpty(batch), commandTag: () => 'CALL' };
}
