import type { OutputColumn } from '../../exec/index.js';
import type { LogicalCte } from './logical-cte.js';
import type { LogicalPlan } from './logical-plan.js';

/**
 * A statement whose WITH holds INSERT/UPDATE/DELETE queries: they run first, in
 * order, each once, then `input` (which reads their RETURNING rows through
 * cteScans of the same LogicalCte objects). Only ever the root of a statement's
 * plan, so the rules never see it; `countRows` makes a SELECT report its rows as
 * DML does.
 */
export interface LogicalDataModifyingCtes {
  readonly kind: 'dataModifyingCtes';
  readonly ctes: readonly LogicalCte[];
  readonly input: LogicalPlan;
  readonly countRows: boolean;
  readonly columns: readonly OutputColumn[];
}

export const LogicalDataModifyingCtes = Object.freeze({
  create(props: Omit<LogicalDataModifyingCtes, 'kind'>): LogicalDataModifyingCtes {
    return Object.freeze({ kind: 'dataModifyingCtes', ...props });
  },
});
