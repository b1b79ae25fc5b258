import type { ScanFilter } from '../../lake/index.js';
import { paramValue } from '../expr/param-value.js';
import type { ScanFilterSpec } from '../plan/physical-plan.js';
import type { RunState } from '../run-state.js';

/**
 * A scan's filters as the lake takes them: each `column op $n` gets this execution's
 * parameter value. One whose parameter is NULL is left out (the residual, which keeps
 * the conjunct, then finds no row); without a run (plain EXPLAIN of a statement with
 * parameters) parameter filters are left out too.
 */
export function bindScanFilters(filters: readonly ScanFilterSpec[], run: RunState | undefined): ScanFilter[] {
  const out: ScanFilter[] = [];
  for (const f of filters) {
    if (f.param === undefined) { out.push(f as ScanFilter); continue; }
    if (run === undefined || f.param.index >= run.params.length) continue;
    const value = paramValue(run, f.param.index, f.param.type);
    if (value !== null) out.push({ column: f.column, op: f.op, value });
  }
  return out;
}
