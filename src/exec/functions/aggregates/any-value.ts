import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

// PostgreSQL 16's any_value: some non-NULL value of the group (the first one here). The
// binder also reads a column a grouped primary key determines through it.
export function registerAnyValue(): void {
  registerAggregateFunction({
    name: 'any_value', args: ['anyelement'], returns: (a) => a[0]!,
    impl: () => simple(() => ({ v: null as unknown }), (s, [v]) => { const st = s as { v: unknown }; if (st.v === null) st.v = v; return st; },
      (a, b) => ((a as { v: unknown }).v === null ? b : a),
      (s) => (s as { v: unknown }).v),
  });
}
