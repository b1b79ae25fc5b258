import type { SqlType } from '../../common/sql-type.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerScalarFunction } from './function-registry.js';

export function registerBuiltinMiscFunctions(): void {
  const S = T.text; const N = T.name;
  registerScalarFunction({ name: 'current_user', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'session_user', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'user', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'current_role', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'current_database', args: [], returns: N, impl: (_a, ctx) => ctx.database });
  registerScalarFunction({ name: 'current_catalog', args: [], returns: N, impl: (_a, ctx) => ctx.database });
  registerScalarFunction({ name: 'current_schema', args: [], returns: N, impl: (_a, ctx) => ctx.searchPath.find((s) => s !== '$user' && s !== 'pg_catalog') ?? null });
  registerScalarFunction({
    name: 'current_schemas', args: [T.bool], returns: { kind: 'array', element: N } as SqlType,
    impl: ([implicit], ctx) => {
      const path = ctx.searchPath.filter((s) => s !== '$user');
      return implicit && !path.includes('pg_catalog') ? ['pg_catalog', ...path] : path;
    },
  });
  registerScalarFunction({
    name: 'num_nulls', args: ['any'], variadic: true, returns: T.int4, strict: false, id: 'num_nulls(any...)',
    impl: (a) => a.filter((x) => x === null).length,
  });
  registerScalarFunction({
    name: 'num_nonnulls', args: ['any'], variadic: true, returns: T.int4, strict: false, id: 'num_nonnulls(any...)',
    impl: (a) => a.filter((x) => x !== null).length,
  });
  void S;
}
