import type { CallSpecialization } from './call-specialization.js';
import * as equalityAsInList from './equality-as-in-list.js';
import * as fusedNumeric from './fused-numeric.js';
import * as intColumnComparison from './int-column-comparison.js';
import * as scaledComparison from './scaled-comparison.js';

/**
 * The specialized routes for function calls, tried in this order; the first
 * that covers a call compiles it, and the general route takes the rest.
 * Each can be turned off by name (compileExprWith's `disabled`), so tests can
 * check it against the general route.
 */
export const CALL_SPECIALIZATIONS: readonly CallSpecialization[] = [
  fusedNumeric,
  equalityAsInList,
  scaledComparison,
  intColumnComparison,
];
