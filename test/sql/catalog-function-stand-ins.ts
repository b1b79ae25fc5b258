import type { SqlType } from '../../src/common/sql-type.js';
import { registerScalarFunction, resolveFunction, type ParamSpec } from '../../src/exec/functions/function-registry.js';

/*
 * The catalog functions SESSION registers (src/sql/system-catalog). Binding needs only their
 * signatures, so where the registry does not have one yet a stand-in is registered here.
 */
const t = (kind: string): SqlType => ({ kind } as SqlType);
const standIns: [string, ParamSpec[], SqlType][] = [
  ['pg_get_expr', [t('text'), t('oid')], t('text')],
  ['pg_get_expr', [t('text'), t('oid'), t('bool')], t('text')],
  ['pg_get_userbyid', [t('oid')], t('name')],
  ['pg_table_is_visible', [t('oid')], t('bool')],
  ['pg_function_is_visible', [t('oid')], t('bool')],
  ['format_type', [t('oid'), t('int4')], t('text')],
  ['pg_get_indexdef', [t('oid'), t('int4'), t('bool')], t('text')],
  ['pg_get_constraintdef', [t('oid'), t('bool')], t('text')],
  ['pg_get_statisticsobjdef_columns', [t('oid')], t('text')],
  ['pg_relation_is_publishable', [t('regclass')], t('bool')],
  ['pg_encoding_to_char', [t('int4')], t('name')],
  ['col_description', [t('oid'), t('int4')], t('text')],
  ['pg_get_function_result', [t('oid')], t('text')],
  ['pg_get_function_arguments', [t('oid')], t('text')],
  ['current_schemas', [t('bool')], { kind: 'array', element: t('name') }],
  ['array_upper', ['anyarray', t('int4')], t('int4')],
  ['array_to_string', ['anyarray', t('text')], t('text')],
];
for (const [name, args, returns] of standIns) {
  const known = resolveFunction(name, args.map((a) => (typeof a === 'string' ? { kind: 'array', element: t('int4') } as SqlType : a)));
  if (!known) registerScalarFunction({ name, args, returns, impl: () => null });
}

