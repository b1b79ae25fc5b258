import type { MaterializedCte, PhysicalPlan, UnplannedSubquery } from '../exec/index.js';
import { estimateRows } from './estimate-rows.js';
import type { LogicalCte } from './logical/logical-cte.js';
import { LogicalCteScan } from './logical/logical-cte-scan.js';
import { logicalInputs, withInputs, type LogicalPlan } from './logical/logical-plan.js';
import type { LogicalStatementPlan } from './logical/logical-statement-plan.js';
import { subqueryLogicalPlan } from './logical/logical-subquery.js';
import { optimizeLogicalPlan, type OptimizeOptions } from './optimizer.js';
import { lowerSubqueries } from './physical/lower-subqueries.js';
import type { NestedPlans } from './physical/nested-plans.js';
import type { PhysicalRule } from './physical/physical-rule.js';
import { decideNode, physicalRules } from './physical/physical-rules.js';
import { keepScansDecoded } from './physical/rules/keep-scans-decoded.js';
import { runUnionInputsTogether } from './physical/rules/run-union-inputs-together.js';
import { toPhysicalPlan } from './physical/to-physical-plan.js';

export interface PlanStatementOptions {
  /** Optimizer and physical rules to skip, by name (tests; diagnosing a bad rewrite). They are skipped in nested plans too. */
  readonly disabledRules?: ReadonlySet<string>;
  /**
   * The statement runs again within seconds over mostly the same files (an incremental
   * refresh of a materialized view): its scans keep what they decode (keep-scans-decoded.ts).
   */
  readonly rereads?: boolean;
  /**
   * Nothing reads the statement's rows in order (a materialized view's refresh): UNION ALL
   * may run its inputs at once (run-union-inputs-together.ts).
   */
  readonly rowOrderFree?: boolean;
}

/**
 * The planner's one entry: a bound statement's logical plan, optimized and then
 * physically planned into what the executor runs — and what EXPLAIN prints. Nested
 * plans (subquery expressions, lateral right sides, recursive terms, materialized
 * WITH queries) are each optimized and planned on their own, once per statement.
 */
export function planStatement(root: LogicalStatementPlan, options: PlanStatementOptions = {}): PhysicalPlan {
  return new StatementPlanner(options).statement(root);
}

interface PlannedCte {
  readonly optimized: LogicalPlan;
  readonly rowEstimate: number;
  materialized?: MaterializedCte;
}

/** One statement's planning: the optimizer's options, and the nested plans already made. */
class StatementPlanner implements NestedPlans {
  readonly #optimize: OptimizeOptions;
  readonly #physicalRules: readonly PhysicalRule[];
  readonly #ctes = new Map<LogicalCte, PlannedCte>();
  /** Objects the subquery lowering has met, with what they became (lower-subqueries.ts). */
  readonly #lowered = new Map<object, unknown>();

  constructor(options: PlanStatementOptions) {
    this.#optimize = options.disabledRules === undefined ? {} : { disabled: options.disabledRules };
    const rules = [...physicalRules, ...(options.rereads === true ? [keepScansDecoded] : []), ...(options.rowOrderFree === true ? [runUnionInputsTogether] : [])];
    this.#physicalRules = rules.filter((r) => !options.disabledRules?.has(r.name));
  }

  statement(root: LogicalStatementPlan): PhysicalPlan {
    if (root.kind !== 'dataModifyingCtes') return this.plan(root);
    const ctes = root.ctes.map((c) => this.materializedCte(c));
    const input = this.plan(root.input);
    return { kind: 'dataModifyingCtes', ctes, input, countRows: root.countRows, columns: input.columns };
  }

  plan(p: LogicalPlan): PhysicalPlan {
    return this.#physical(this.#optimized(p));
  }

  decide(node: PhysicalPlan, from: LogicalPlan): PhysicalPlan {
    return decideNode(node, from, this.#physicalRules);
  }

  materializedCte(cte: LogicalCte): MaterializedCte {
    const planned = this.#cte(cte);
    planned.materialized ??= { name: cte.name, plan: this.#physical(planned.optimized) };
    return planned.materialized;
  }

  #optimized(p: LogicalPlan): LogicalPlan {
    return optimizeLogicalPlan(this.#withCteEstimates(p), this.#optimize).plan;
  }

  #physical(optimized: LogicalPlan): PhysicalPlan {
    const physical = lowerSubqueries(toPhysicalPlan(optimized, this), (s: UnplannedSubquery) => this.plan(subqueryLogicalPlan(s)), this.#lowered);
    // Planned already: an enclosing plan's lowering need not walk it again.
    this.#lowered.set(physical, physical);
    return physical;
  }

  /** A WITH query optimized once, with the rows its readers' join choices assume. */
  #cte(cte: LogicalCte): PlannedCte {
    let planned = this.#ctes.get(cte);
    if (planned === undefined) {
      const optimized = this.#optimized(cte.plan);
      planned = { optimized, rowEstimate: cte.rowEstimate ?? estimateRows(optimized) };
      this.#ctes.set(cte, planned);
    }
    return planned;
  }

  /** `p` with each WITH query read among its nodes carrying its row estimate, for the rules and join sides. */
  #withCteEstimates(p: LogicalPlan): LogicalPlan {
    if (p.kind === 'cteScan') {
      return p.rowEstimate !== undefined ? p : LogicalCteScan.create({ cte: p.cte, rowEstimate: this.#cte(p.cte).rowEstimate, columns: p.columns });
    }
    const inputs = logicalInputs(p);
    const next = inputs.map((i) => this.#withCteEstimates(i));
    return next.some((n, i) => n !== inputs[i]) ? withInputs(p, next) : p;
  }
}
