import type { SqlType } from '../../common/sql-type.js';
import { compareEnumLabels } from '../types/enum-value.js';
import { registerScalarFunction } from './function-registry.js';

const BOOL: SqlType = { kind: 'bool' };

/** The enum comparison functions the binder calls for `<`, `<=`, `>`, `>=` on enum operands (PostgreSQL's enum_lt …). */
export const ENUM_ORDERING_FUNCTIONS: Readonly<Record<string, string>> = { '<': 'enum_lt', '<=': 'enum_le', '>': 'enum_gt', '>=': 'enum_ge' };

/**
 * enum_eq … enum_ge and enum_cmp: comparisons in the enum's sort order. Their arguments are
 * text carrying the enum type, so the order is taken from the call site's argument types.
 */
export function registerBuiltinEnumFunctions(): void {
  const tests: [string, (c: number) => boolean][] = [
    ['enum_eq', (c) => c === 0], ['enum_ne', (c) => c !== 0], ['enum_lt', (c) => c < 0],
    ['enum_le', (c) => c <= 0], ['enum_gt', (c) => c > 0], ['enum_ge', (c) => c >= 0],
  ];
  const order = (types: readonly SqlType[]) => {
    const e = types.map((t) => (t.kind === 'text' ? t.enumType : undefined)).find((x) => x !== undefined);
    return (a: unknown, b: unknown): number => (e === undefined
      ? ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0)
      : compareEnumLabels(a as string, b as string, e));
  };
  for (const [name, test] of tests) {
    registerScalarFunction({
      name, args: ['anyelement', 'anyelement'], returns: BOOL,
      impl: ([a, b]) => test(order([])(a, b)),
      implFor: (types) => { const cmp = order(types); return ([a, b]) => test(cmp(a, b)); },
    });
  }
  registerScalarFunction({
    name: 'enum_cmp', args: ['anyelement', 'anyelement'], returns: { kind: 'int4' },
    impl: ([a, b]) => order([])(a, b),
    implFor: (types) => { const cmp = order(types); return ([a, b]) => cmp(a, b); },
  });
}
