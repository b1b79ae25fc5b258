import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SnapshotSelector } from '../lake/index.js';
import { compileExpr } from './expr/compile-expr.js';
import type { ScanSnapshotSelector } from './plan/physical-plan.js';
import type { RunState } from './run-state.js';

const oneRow = { numRows: 1, columns: [] };

/**
 * The lake's selector for a scan's AS OF clause. An expression (`now() - interval '1 day'`,
 * `$1`, a timestamp in a named zone) is evaluated here, when the scan starts, with the
 * statement's parameters, clock and TimeZone — the binder cannot know them.
 */
export function resolveSnapshotSelector(at: ScanSnapshotSelector | undefined, run: RunState): SnapshotSelector | undefined {
  if (at === undefined || at.kind !== 'timestampExpr') return at;
  const v = compileExpr(at.expr).evaluateSync(oneRow, run)[0];
  if (typeof v !== 'bigint') {
    throw new FloeError(SqlState.nullValueNotAllowed, 'SYSTEM_TIME AS OF needs a timestamp, not NULL');
  }
  return { kind: 'timestamp', micros: v };
}
