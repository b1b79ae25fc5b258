import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SqlType } from '../common/sql-type.js';
import type { ColumnDescription, PreparedStatement } from '../common/session-handler.js';
import type { Warehouse } from '../lake/index.js';
import type { BoundStatement, ParsedStatement } from '../sql/index.js';
import { cachedPlanCheck, cachedPlanHolds, sameResultColumns } from './cached-plan-check.js';
import type { CachedPlanCheck } from './cached-plan-check.js';

/** A statement the extended protocol's Parse prepared; the wire keeps it by name. */
export interface Prepared extends PreparedStatement {
  readonly stmt: ParsedStatement | undefined;
  readonly paramTypes: readonly SqlType[];
  /** The plan Execute reuses while what it was built against holds (cached-plan-check.ts). */
  readonly cached: { bound: BoundStatement | undefined; check: CachedPlanCheck | undefined };
}

/**
 * A prepared statement's plan: the cached one while the tables it names and the
 * search path are as they were, else planned again (`bindAgain`). As in PostgreSQL, a new plan
 * whose result columns differ from those Describe reported is refused.
 */
export function preparedPlan(
  p: Prepared, warehouse: Warehouse, searchPath: readonly string[],
  bindAgain: () => BoundStatement, columnsOf: (bound: BoundStatement) => ColumnDescription[] | null,
  viewStillFresh: (id: number) => boolean = () => false,
): BoundStatement {
  const { bound, check } = p.cached;
  // A plan answered from a materialized view holds only while the view is fresh enough.
  const viewHolds = bound?.kind !== 'query' || bound.materializedView === undefined || viewStillFresh(bound.materializedView);
  if (bound !== undefined && viewHolds && (check === undefined || cachedPlanHolds(check, warehouse, searchPath))) return bound;
  const fresh = bindAgain();
  const columns = columnsOf(fresh);
  if (!sameResultColumns(columns, p.columns)) throw new FloeError(SqlState.featureNotSupported, 'cached plan must not change result type');
  p.cached.bound = fresh;
  p.cached.check = cachedPlanCheck(fresh, warehouse, searchPath);
  return fresh;
}

/** A statement SQL's PREPARE named, with its declared parameter types. */
export interface SqlPrepared {
  readonly stmt: ParsedStatement;
  readonly paramTypes: readonly SqlType[];
}

/** SQL-level prepared statements (PREPARE, EXECUTE, DEALLOCATE); the protocol's are the wire's to keep. */
export class PreparedStatements {
  readonly #byName = new Map<string, SqlPrepared>();

  add(name: string, prepared: SqlPrepared): void {
    this.checkFree(name);
    this.#byName.set(name, prepared);
  }

  /** PREPARE checks the name is free before it binds the statement. */
  checkFree(name: string): void {
    if (this.#byName.has(name)) throw new FloeError(SqlState.duplicatePreparedStatement, `prepared statement "${name}" already exists`);
  }

  get(name: string): SqlPrepared {
    const p = this.#byName.get(name);
    if (!p) throw new FloeError(SqlState.invalidSqlStatementName, `prepared statement "${name}" does not exist`);
    return p;
  }

  /** DEALLOCATE name, or DEALLOCATE ALL (null). */
  deallocate(name: string | null): void {
    if (name === null) this.#byName.clear();
    else if (!this.#byName.delete(name)) throw new FloeError(SqlState.invalidSqlStatementName, `prepared statement "${name}" does not exist`);
  }

  clear(): void {
    this.#byName.clear();
  }
}
