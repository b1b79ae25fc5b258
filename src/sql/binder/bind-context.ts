import '../../exec/functions/builtins.js';
import { AccessLog } from './access-log.js';
import type { SqlType } from '../../common/sql-type.js';
import type { OutputColumn } from '../../exec/index.js';
import type { LogicalCte, LogicalPlan } from '../../planner/index.js';
import type { BindEnv } from '../bind-env.js';
import type { ParsedStatement } from '../parsed-statement.js';
import type { Scope, ScopeColumn } from './scope.js';

/** A bound query: its plan and the scope columns its output exposes. */
export interface BoundQuery {
  readonly plan: LogicalPlan;
  readonly columns: readonly ScopeColumn[];
}

/** A WITH item, bound once and inlined at each reference. */
export interface CteDefinition {
  readonly name: string;
  readonly query: BoundQuery;
  /** Set when the WITH query runs once for all its readers (cte-materialization.ts). */
  readonly materialized?: LogicalCte;
}

/** Statement-wide binding state: the environment, parameter types being inferred, CTEs in scope. */
export class BindContext {
  readonly env: BindEnv;
  readonly stmt: ParsedStatement;
  /** $1..$n types; undefined until declared or inferred. */
  readonly params: (SqlType | undefined)[];
  readonly #ctes: Map<string, CteDefinition>[] = [];
  /** Ids of the tables and views FROM clauses named (a view's direct dependencies). */
  readonly relationsRead = new Set<number>();
  /** The relations and columns the statement reads and writes, for the session's privilege check (a view's inner context shares its statement's). */
  access = new AccessLog();
  /** A FROM clause named a relation of the temporary schema: a view over it is temporary too. */
  readsTemporaryRelation = false;
  /** Views being expanded around this statement, outermost first (a view reading itself is refused). */
  viewsExpanding: readonly number[] = [];

  /** A context for binding stored text (a CHECK, a policy) outside any client statement. */
  static outsideStatement(env: BindEnv, text = ''): BindContext {
    return new BindContext({ text, location: 0, ast: {} as ParsedStatement['ast'], lake: [], source: text, isTransactionEnd: false }, env);
  }

  constructor(stmt: ParsedStatement, env: BindEnv) {
    this.stmt = stmt;
    this.env = env;
    this.params = (env.paramTypes ?? []).map((t) => (t === undefined || t.kind === 'unknown' ? undefined : t));
  }

  /**
   * The view whose owner what this query names is checked as (privileges and row security):
   * the view being expanded, unless it is `security_invoker`; none at the top.
   */
  enclosingView: number | undefined = undefined;

  paramType(index: number): SqlType | undefined {
    return this.params[index];
  }

  /** Records that $index+1 is used, so the statement reports it even while its type is open. */
  noteParam(index: number): void {
    while (this.params.length <= index) this.params.push(undefined);
  }

  setParamType(index: number, type: SqlType): void {
    while (this.params.length <= index) this.params.push(undefined);
    this.params[index] = type;
  }

  /** Parameter types for the bound statement: unresolved ones become text, as a client sending text expects. */
  finalParamTypes(): SqlType[] {
    return this.params.map((t) => t ?? { kind: 'text' });
  }

  pushCtes(defs: Map<string, CteDefinition>): void {
    this.#ctes.push(defs);
  }

  popCtes(): void {
    this.#ctes.pop();
  }

  lookupCte(name: string): CteDefinition | undefined {
    for (let i = this.#ctes.length - 1; i >= 0; i--) {
      const d = this.#ctes[i]!.get(name);
      if (d) return d;
    }
    return undefined;
  }
}

export function outputColumns(columns: readonly ScopeColumn[]): OutputColumn[] {
  return columns.map((c) => ({ name: c.name, type: c.type }));
}

/** Scope over a plan's output, all columns exposed under `relation`. */
export function scopeOf(columns: readonly ScopeColumn[], relation: string | undefined, parent?: Scope): Scope {
  const cols = columns.map((c, index): ScopeColumn => ({ ...c, index, ...(relation === undefined ? {} : { relation }) }));
  return parent === undefined ? { columns: cols } : { columns: cols, parent };
}
