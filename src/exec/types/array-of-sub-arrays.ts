import { FloeError } from '../../common/floe-error.js';
import { flattenArray } from '../../lake/index.js';

/**
 * ARRAY[a, b, …] over arrays: PostgreSQL's ExecEvalArrayExpr for sub-arrays. They become
 * one more dimension. Input that is all NULL or empty gives '{}'; otherwise a NULL or empty sub-array, or
 * sub-arrays of different shapes, are 2202E.
 */
export function arrayOfSubArrays(parts: readonly unknown[]): unknown[] {
  const present = parts.filter((p): p is unknown[] => p !== null);
  const nonEmpty = present.filter((p) => p.length > 0);
  if (nonEmpty.length === 0) return [];
  const shape = flattenArray(nonEmpty[0]!).dims.join(',');
  if (nonEmpty.length !== parts.length || nonEmpty.some((p) => flattenArray(p).dims.join(',') !== shape)) {
    throw new FloeError('2202E', 'multidimensional arrays must have array expressions with matching dimensions');
  }
  return nonEmpty;
}

/** array_agg over arrays (PostgreSQL's array_agg_array_transfn): each input is one more row of the result. */
export function accumulateSubArray(acc: unknown[], v: unknown): void {
  if (v === null) throw new FloeError('22004', 'cannot accumulate null arrays');
  const sub = v as unknown[];
  if (sub.length === 0) throw new FloeError('2202E', 'cannot accumulate empty arrays');
  if (acc.length > 0 && flattenArray(acc[0] as unknown[]).dims.join(',') !== flattenArray(sub).dims.join(',')) {
    throw new FloeError('2202E', 'cannot accumulate arrays of different dimensionality');
  }
  acc.push(sub);
}
