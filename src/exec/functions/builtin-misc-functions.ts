import type { SqlType } from '../../common/sql-type.js';
import type { EvalContext } from '../expr/eval-context.js';
import { formatFloat, typeDisplayName } from '../types/text-io.js';
import { valueToText } from './builtin-operators.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { jsonbNormalize } from '../types/cast-value.js';
import { registerScalarFunction } from './function-registry.js';
import { TEMP_SCHEMA_ALIAS, withTempNamespace } from '../../common/temp-namespace.js';
import { pgSizePretty, pgSizePrettyNumeric } from './pg-size-pretty.js';
import { toNumber } from './to-number.js';

export function registerBuiltinMiscFunctions(): void {
  const S = T.text; const N = T.name;
  registerScalarFunction({ name: 'current_user', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'session_user', args: [], returns: N, impl: (_a, ctx) => ctx.settings.get('session_authorization') ?? ctx.user });
  registerScalarFunction({ name: 'user', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'current_role', args: [], returns: N, impl: (_a, ctx) => ctx.user });
  registerScalarFunction({ name: 'current_database', args: [], returns: N, impl: (_a, ctx) => ctx.database });
  registerScalarFunction({ name: 'current_catalog', args: [], returns: N, impl: (_a, ctx) => ctx.database });
  registerScalarFunction({ name: 'current_schema', args: [], returns: N, impl: (_a, ctx) => ctx.searchPath.find((s) => s !== '$user' && s !== 'pg_catalog') ?? null });
  registerScalarFunction({
    name: 'current_schemas', args: [T.bool], returns: { kind: 'array', element: N } as SqlType, session: true,
    impl: ([implicit], ctx) => {
      const path = ctx.searchPath.filter((s) => s !== '$user');
      const withCatalog = implicit && !path.includes('pg_catalog') ? ['pg_catalog', ...path] : path;
      // The session's temporary schema is implicit too, unless search_path names pg_temp.
      const temp = (ctx.warehouse as { readonly tempNamespace?: string } | undefined)?.tempNamespace;
      const named = path.some((s) => s === TEMP_SCHEMA_ALIAS || s === temp);
      return withTempNamespace(withCatalog, implicit || named ? temp : undefined);
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
  const J = T.json; const JB = T.jsonb;
  registerScalarFunction({
    name: 'json_build_object', args: ['any'], variadic: true, returns: J, strict: false, id: 'json_build_object(any...)',
    impl: (a, ctx) => buildObject(a, a.map(() => ({ kind: 'text' }) as SqlType), ctx, false),
    implFor: (types) => (a, ctx) => buildObject(a, types, ctx, false),
  });
  registerScalarFunction({
    name: 'jsonb_build_object', args: ['any'], variadic: true, returns: JB, strict: false, id: 'jsonb_build_object(any...)',
    impl: (a, ctx) => buildObject(a, a.map(() => ({ kind: 'text' }) as SqlType), ctx, true),
    implFor: (types) => (a, ctx) => buildObject(a, types, ctx, true),
  });
  registerScalarFunction({
    name: 'json_build_array', args: ['any'], variadic: true, returns: J, strict: false, id: 'json_build_array(any...)',
    impl: (a, ctx) => `[${a.map((v) => toJsonText(v, { kind: 'text' }, ctx)).join(', ')}]`,
    implFor: (types) => (a, ctx) => `[${a.map((v, i) => toJsonText(v, types[i]!, ctx)).join(', ')}]`,
  });
  for (const [name, ret] of [['to_json', J]] as const) {
    registerScalarFunction({
      name, args: ['anyelement'], returns: ret,
      impl: ([v], ctx) => toJsonText(v, { kind: 'text' }, ctx),
      implFor: (types) => ([v], ctx) => toJsonText(v, types[0]!, ctx),
    });
  }
  registerScalarFunction({
    // PostgreSQL returns regtype; the name is returned as text until regtype values print as names (they print OIDs here).
    name: 'pg_typeof', args: ['any'], returns: S, strict: false, id: 'pg_typeof(any)',
    impl: () => 'text',
    implFor: (types) => () => (types[0]!.kind === 'array' ? `${typeDisplayName(types[0]!.element)}[]` : typeDisplayName(types[0]!)),
  });
  registerScalarFunction({ name: 'pg_size_pretty', args: [T.int8], returns: S, impl: ([n]) => pgSizePretty(n as bigint) });
  registerScalarFunction({ name: 'to_number', args: [S, S], returns: T.numeric, impl: ([t, f]) => toNumber(t as string, f as string) });
  registerScalarFunction({ name: 'pg_size_pretty', args: [T.numeric], returns: S, impl: ([n]) => pgSizePrettyNumeric(n as string) });
  void S;
}

/** A SQL value as to_json writes it. */
export function toJsonText(v: unknown, t: SqlType, ctx: EvalContext): string {
  if (v === null || v === undefined) return 'null';
  switch (t.kind) {
    case 'int2': case 'int4': case 'int8': case 'numeric': case 'oid': return String(v);
    case 'float4': case 'float8': return Number.isFinite(v as number) ? formatFloat(v as number, t.kind === 'float4') : JSON.stringify(formatFloat(v as number));
    case 'bool': return v ? 'true' : 'false';
    case 'json': case 'jsonb': return v as string;
    case 'array': return `[${(v as unknown[]).map((e) => toJsonText(e, t.element, ctx)).join(',')}]`;
    // ISO 8601 (XSD) form: a T between date and time, and a zone with minutes.
    case 'timestamp': return JSON.stringify(valueToText(v, t, ctx).replace(' ', 'T'));
    case 'timestamptz': return JSON.stringify(valueToText(v, t, ctx).replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
    default: return JSON.stringify(valueToText(v, t, ctx));
  }
}

function buildObject(a: unknown[], types: readonly SqlType[], ctx: EvalContext, jsonb: boolean): string {
  if (a.length % 2 !== 0) throw new FloeError(SqlState.invalidParameterValue, 'argument list must have even number of elements', { hint: `The arguments of ${jsonb ? 'jsonb' : 'json'}_build_object() must consist of alternating keys and values.` });
  const parts: string[] = [];
  for (let i = 0; i < a.length; i += 2) {
    if (a[i] === null) throw new FloeError(SqlState.invalidParameterValue, 'null value not allowed for object key');
    parts.push(`${JSON.stringify(valueToText(a[i], types[i]!, ctx))} : ${toJsonText(a[i + 1], types[i + 1]!, ctx)}`);
  }
  const text = `{${parts.join(', ')}}`;
  return jsonb ? jsonbNormalize(text) : text;
}
