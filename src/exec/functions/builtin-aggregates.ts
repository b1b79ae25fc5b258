import { BuiltinTypes as T } from './builtin-operators.js';
import { registerWindowFunction } from './function-registry.js';
import { registerAnyValue } from './aggregates/any-value.js';
import { registerArrayAgg } from './aggregates/array-agg.js';
import { registerBitAnd } from './aggregates/bit-and.js';
import { registerBoolAndOr } from './aggregates/bool-and-or.js';
import { registerCount } from './aggregates/count.js';
import { registerFloatSums } from './aggregates/float-sum.js';
import { registerIntSums } from './aggregates/int-sum.js';
import { registerIntervalSums } from './aggregates/interval-sum.js';
import { registerJsonAgg } from './aggregates/json-agg.js';
import { registerMinMax } from './aggregates/min-max.js';
import { registerNumericSums } from './aggregates/numeric-sum.js';
import { registerStringAgg } from './aggregates/string-agg.js';
import { registerVariance } from './aggregates/variance.js';

/**
 * The built-in aggregates, one family per file in aggregates/ (each with its
 * row form and, where it has one, its columnar form), registered in this order
 * (pg_proc lists them so); then the window-only functions.
 */
export function registerBuiltinAggregates(): void {
  registerCount();
  registerIntSums();
  registerNumericSums();
  registerFloatSums();
  registerIntervalSums();
  registerMinMax();
  registerBoolAndOr();
  registerStringAgg();
  registerAnyValue();
  registerArrayAgg();
  registerVariance();
  registerBitAnd();
  registerJsonAgg();

  // window-only functions (evaluated by the window operator)
  const I = T.int4;
  const I8 = T.int8;
  const F = T.float8;
  registerWindowFunction({ name: 'row_number', args: [], returns: I8 });
  registerWindowFunction({ name: 'rank', args: [], returns: I8 });
  registerWindowFunction({ name: 'dense_rank', args: [], returns: I8 });
  registerWindowFunction({ name: 'percent_rank', args: [], returns: F });
  registerWindowFunction({ name: 'cume_dist', args: [], returns: F });
  registerWindowFunction({ name: 'ntile', args: [I], returns: I });
  for (const n of ['lag', 'lead']) {
    registerWindowFunction({ name: n, args: ['anyelement'], returns: (a) => a[0]! });
    registerWindowFunction({ name: n, args: ['anyelement', I], returns: (a) => a[0]! });
    registerWindowFunction({ name: n, args: ['anyelement', I, 'anyelement'], returns: (a) => a[0]! });
  }
  registerWindowFunction({ name: 'first_value', args: ['anyelement'], returns: (a) => a[0]! });
  registerWindowFunction({ name: 'last_value', args: ['anyelement'], returns: (a) => a[0]! });
  registerWindowFunction({ name: 'nth_value', args: ['anyelement', I], returns: (a) => a[0]! });
}
