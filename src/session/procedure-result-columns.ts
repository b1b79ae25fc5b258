import type { ColumnDescription } from '../common/session-handler.js';
import { OPTIMIZE_RESULT_COLUMNS } from './call-optimize.js';
import { REFRESH_RESULT_COLUMNS } from './call-refresh-materialized-view.js';

/** The row description of a CALL of `procedure` (normalized name), or null when it returns no row. */
export function procedureResultColumns(procedure: string): ColumnDescription[] | null {
  if (procedure === 'optimize') return [...OPTIMIZE_RESULT_COLUMNS];
  if (procedure === 'refresh_materialized_view') return [...REFRESH_RESULT_COLUMNS];
  return null;
}
