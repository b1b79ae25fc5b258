import type { LogicalStatementPlan } from '../planner/index.js';
import type { SqlType } from '../common/sql-type.js';
import type { DdlCommand } from './ddl-command.js';
import type { ResultColumn } from './result-column.js';
import type { UtilityCommand } from './utility-command.js';
import type { StatementAccesses } from './relation-access.js';

/**
 * The outcome of binding one statement: something to execute, or a command for the
 * session. A query or DML statement carries its logical plan; the session has the
 * planner turn it into what runs (src/planner/plan-statement.ts).
 */
export type BoundStatement = BoundStatementKinds & {
  /** The relations it reads and writes, checked against privileges at each execution (relation-access.ts). */
  readonly accesses?: StatementAccesses;
};

type BoundStatementKinds =
  | {
      readonly kind: 'query';
      readonly logical: LogicalStatementPlan;
      readonly columns: readonly ResultColumn[];
      /** Resolved types of $1..$n (inferred where the client left them open). */
      readonly paramTypes: readonly SqlType[];
      /** The materialized view (table id) the query was answered from, when it was rewritten to read one. */
      readonly materializedView?: number;
    }
  | {
      readonly kind: 'dml';
      readonly logical: LogicalStatementPlan;
      /** RETURNING columns, or [] (then the plan yields no rows, only the affected count). */
      readonly columns: readonly ResultColumn[];
      /** INSERT 0 n / UPDATE n / DELETE n / MERGE n. */
      readonly commandTag: (rowCount: number) => string;
      readonly paramTypes: readonly SqlType[];
    }
  | { readonly kind: 'ddl'; readonly command: DdlCommand }
  | { readonly kind: 'utility'; readonly command: UtilityCommand };
