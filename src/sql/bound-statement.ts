import type { PhysicalPlan } from '../exec/plan/physical-plan.js';
import type { SqlType } from '../common/sql-type.js';
import type { DdlCommand } from './ddl-command.js';
import type { ResultColumn } from './result-column.js';
import type { UtilityCommand } from './utility-command.js';

/** The outcome of binding one statement: something to execute, or a command for the session. */
export type BoundStatement =
  | {
      readonly kind: 'query';
      readonly plan: PhysicalPlan;
      readonly columns: readonly ResultColumn[];
      /** Resolved types of $1..$n (inferred where the client left them open). */
      readonly paramTypes: readonly SqlType[];
    }
  | {
      readonly kind: 'dml';
      readonly plan: PhysicalPlan;
      /** RETURNING columns, or [] (then the plan yields no rows, only the affected count). */
      readonly columns: readonly ResultColumn[];
      /** INSERT 0 n / UPDATE n / DELETE n / MERGE n. */
      readonly commandTag: (rowCount: number) => string;
      readonly paramTypes: readonly SqlType[];
    }
  | { readonly kind: 'ddl'; readonly command: DdlCommand }
  | { readonly kind: 'utility'; readonly command: UtilityCommand };
