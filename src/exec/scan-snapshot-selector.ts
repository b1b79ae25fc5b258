import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SnapshotSelector } from '../lake/index.js';
import { evaluateConstant } from './expr/evaluate-constant.js';
import type { ScanSnapshotSelector } from './plan/physical-plan.js';
import type { RunState } from './run-state.js';

/**
 * The lake's selector for a scan's AS OF clause. An expression (`now() - interval '1 day'`,
 * `$1`, a timestamp in a named zone) is evaluated here, when the scan starts, with the
 * statement's parameters, clock and TimeZone — the binder cannot know them.
 */
export function resolveSnapshotSelector(at: ScanSnapshotSelector | undefined, run: RunState): SnapshotSelector | undefined {
  if (at === undefined) return undefined;
  if (at.kind === 'versionExpr') {
    const v = evaluateConstant(at.expr, run);
    if (typeof v !== 'string') throw new FloeError(SqlState.nullValueNotAllowed, 'SYSTEM_VERSION AS OF needs a snapshot id, tag or branch name, not NULL');
    return { kind: 'version', value: v };
  }
  if (at.kind !== 'timestampExpr') return at;
  const v = evaluateConstant(at.expr, run);
  if (typeof v !== 'bigint') {
    throw new FloeError(SqlState.nullValueNotAllowed, 'SYSTEM_TIME AS OF needs a timestamp, not NULL');
  }
  return { kind: 'timestamp', micros: v };
}
