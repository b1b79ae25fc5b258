import { registerScalarFunction } from './function-registry.js';
import { BuiltinTypes as T } from './builtin-operators.js';

/**
 * The dimensions of an array: a multi-dimensional array is nested JS arrays
 * (all sub-arrays of one level the same length, lower bounds 1). An empty
 * array has no dimensions.
 */
export function arrayDimensions(a: readonly unknown[]): number[] {
  const dims: number[] = [];
  for (let x: unknown = a; Array.isArray(x) && x.length > 0; x = x[0]) dims.push(x.length);
  return dims;
}

/** array_ndims, array_dims, array_length/upper/lower per dimension, cardinality. */
export function registerBuiltinArrayDimensionFunctions(): void {
  const I = T.int4;
  const dims = (a: unknown): number[] => arrayDimensions(a as unknown[]);
  registerScalarFunction({ name: 'array_ndims', args: ['anyarray'], returns: I, impl: ([a]) => (dims(a).length === 0 ? null : dims(a).length) });
  registerScalarFunction({ name: 'array_dims', args: ['anyarray'], returns: T.text, impl: ([a]) => (dims(a).length === 0 ? null : dims(a).map((n) => `[1:${n}]`).join('')) });
  registerScalarFunction({ name: 'array_length', args: ['anyarray', I], returns: I, impl: ([a, d]) => dims(a)[(d as number) - 1] ?? null });
  registerScalarFunction({ name: 'array_upper', args: ['anyarray', I], returns: I, impl: ([a, d]) => dims(a)[(d as number) - 1] ?? null });
  registerScalarFunction({ name: 'array_lower', args: ['anyarray', I], returns: I, impl: ([a, d]) => (dims(a)[(d as number) - 1] === undefined ? null : 1) });
  registerScalarFunction({ name: 'cardinality', args: ['anyarray'], returns: I, impl: ([a]) => dims(a).reduce((n, d) => n * d, dims(a).length === 0 ? 0 : 1) });
}
