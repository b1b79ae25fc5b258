import type { Expr } from '../exec/index.js';
import { conjuncts } from './expr-utils.js';
import type { LogicalPlan } from './logical/logical-plan.js';
import type { LogicalScan } from './logical/logical-scan.js';
import { isEqualityFn } from './rules/join-sides.js';

/** Where a column of a plan's output comes from: one scan in the tree (named by its path) and a column it reads. */
export interface ColumnOrigin {
  /** The join sides taken from the plan's root down to the scan: each scan in a tree has its own. */
  readonly path: string;
  readonly scan: LogicalScan;
  readonly column: string;
}

/**
 * The table column that output column `index` of `p` passes through unchanged,
 * if any. The path, not the scan object, names the table instance: a CTE read
 * twice is one plan object under two join sides.
 */
export function originOf(p: LogicalPlan, index: number, path = ''): ColumnOrigin | undefined {
  switch (p.kind) {
    case 'scan': {
      const column = p.projection[index];
      return column === undefined ? undefined : { path, scan: p, column };
    }
    case 'filter': case 'sort': case 'limit': case 'distinct':
      return originOf(p.input, index, path);
    case 'project': {
      const e = p.exprs[index];
      return e?.kind === 'column' ? originOf(p.input, e.index, path) : undefined;
    }
    case 'join': {
      const leftWidth = p.left.columns.length;
      if (index < leftWidth) return originOf(p.left, index, `${path}l`);
      const rightOutput = p.joinType !== 'semi' && p.joinType !== 'anti' && p.joinType !== 'mark';
      return rightOutput ? originOf(p.right, index - leftWidth, `${path}r`) : undefined;
    }
    default:
      return undefined;
  }
}

/** The table instances (by path) whose whole primary key is among `origins`. */
export function keyedInstances(origins: readonly (ColumnOrigin | undefined)[]): Set<string> {
  const keyed = new Set<string>();
  for (const o of origins) {
    if (o === undefined || keyed.has(o.path) || o.scan.table.primaryKey.length === 0) continue;
    const held = new Set(origins.filter((x) => x?.path === o.path).map((x) => x!.column));
    if (o.scan.table.primaryKey.every((c) => held.has(c))) keyed.add(o.path);
  }
  return keyed;
}

/** A table instance of `p` whose whole primary key `columns` of p's output hold (the origin of one of them), if any. */
export function coversPrimaryKey(p: LogicalPlan, columns: readonly number[]): ColumnOrigin | undefined {
  const origins = columns.map((c) => originOf(p, c));
  const keyed = keyedInstances(origins);
  return origins.find((o) => o !== undefined && keyed.has(o.path));
}

/**
 * Pairs of table columns that every row of `p`'s output holds equal (or NULL
 * together: a null-extended side): the column = column conjuncts of filters and
 * of inner join conditions below it. An outer join's own condition is left out:
 * a left row without a partner keeps its column while the other side's is NULL.
 */
export function equalColumns(p: LogicalPlan, path = ''): [ColumnOrigin, ColumnOrigin][] {
  switch (p.kind) {
    case 'filter':
      return [...pairsOf(p.predicate, (i) => originOf(p.input, i, path)), ...equalColumns(p.input, path)];
    case 'sort': case 'limit': case 'distinct': case 'project':
      return equalColumns(p.input, path);
    case 'join': {
      const leftWidth = p.left.columns.length;
      const below = equalColumns(p.left, `${path}l`);
      if (p.joinType === 'semi' || p.joinType === 'anti' || p.joinType === 'mark') return below;
      below.push(...equalColumns(p.right, `${path}r`));
      if (p.joinType !== 'inner' || p.condition === undefined) return below;
      const side = (i: number): ColumnOrigin | undefined => (i < leftWidth ? originOf(p.left, i, `${path}l`) : originOf(p.right, i - leftWidth, `${path}r`));
      return [...pairsOf(p.condition, side), ...below];
    }
    default:
      return [];
  }
}

function pairsOf(predicate: Expr, origin: (column: number) => ColumnOrigin | undefined): [ColumnOrigin, ColumnOrigin][] {
  const pairs: [ColumnOrigin, ColumnOrigin][] = [];
  for (const c of conjuncts(predicate)) {
    if (c.kind !== 'call' || c.args.length !== 2 || !isEqualityFn(c.fn)) continue;
    const [a, b] = c.args as [Expr, Expr];
    if (a.kind !== 'column' || b.kind !== 'column') continue;
    const oa = origin(a.index);
    const ob = origin(b.index);
    if (oa !== undefined && ob !== undefined) pairs.push([oa, ob]);
  }
  return pairs;
}

/**
 * Whether rows that agree on `given` always agree on a column: the columns equal
 * to one given, those equal to one of them, and so on, plus every column of a
 * table instance whose whole primary key is reached (rows of one instance with
 * equal keys are copies of one row; a null-extended row has all of them NULL).
 */
export function determinedBy(given: readonly ColumnOrigin[], equal: readonly (readonly [ColumnOrigin, ColumnOrigin])[]): (o: ColumnOrigin) => boolean {
  const name = (o: ColumnOrigin): string => `${o.path}\u0000${o.column}`;
  const columns = new Set(given.map(name));
  const keyed = new Set<string>();
  const instances = new Map<string, LogicalScan>();
  for (const o of [...given, ...equal.flat()]) instances.set(o.path, o.scan);
  const known = (o: ColumnOrigin): boolean => keyed.has(o.path) || columns.has(name(o));
  for (let grew = true; grew;) {
    grew = false;
    for (const [a, b] of equal) {
      if (known(a) === known(b)) continue;
      columns.add(name(known(a) ? b : a));
      grew = true;
    }
    for (const [path, scan] of instances) {
      const key = scan.table.primaryKey;
      if (keyed.has(path) || key.length === 0 || !key.every((column) => columns.has(name({ path, scan, column })))) continue;
      keyed.add(path);
      grew = true;
    }
  }
  return known;
}
