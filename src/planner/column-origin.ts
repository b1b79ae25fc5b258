import type { LogicalPlan } from './logical/logical-plan.js';
import type { LogicalScan } from './logical/logical-scan.js';

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
