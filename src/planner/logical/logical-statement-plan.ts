import type { LogicalDataModifyingCtes } from './logical-data-modifying-ctes.js';
import type { LogicalPlan } from './logical-plan.js';

/** What a bound query or DML statement hands the planner (src/planner/plan-statement.ts). */
export type LogicalStatementPlan = LogicalPlan | LogicalDataModifyingCtes;
