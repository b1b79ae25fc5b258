import type { SqlType } from '../../common/sql-type.js';
import type { EvalContext } from '../expr/eval-context.js';
import { jsonbNormalize } from '../types/cast-value.js';
import { toJsonText } from './builtin-misc-functions.js';
import { BuiltinTypes as T, valueToText } from './builtin-operators.js';
import { registerAggregateFunction, registerScalarFunction } from './function-registry.js';

/*
 * Whole-row values (`to_json(p)`, `json_agg(p)`, `SELECT p`, `count(p.*)`,
 * `row_to_json(row(…))`). Floe has no composite type: the binder hands each
 * function below a row's fields as arguments — `nullWhenAllNull`, then name and
 * value pairs — and each renders the row the way PostgreSQL renders a composite
 * datum in that place.
 */

/** The binder's names for the functions below (no PostgreSQL function has them). */
export const RowValueFunctions = Object.freeze({
  json: 'floe_row_json',
  prettyJson: 'floe_row_json_pretty',
  jsonb: 'floe_row_jsonb',
  text: 'floe_row_text',
  /** json_agg over rows: PostgreSQL puts a line break before each composite element after the first. */
  jsonAgg: 'floe_row_json_agg',
});

type RowRenderer = (names: readonly string[], values: readonly unknown[], types: readonly SqlType[], ctx: EvalContext) => string;

function registerRowFunction(name: string, returns: SqlType, render: RowRenderer): void {
  const impl = (types: readonly SqlType[]) => (a: unknown[], ctx: EvalContext): unknown => {
    const names: string[] = [];
    const values: unknown[] = [];
    const valueTypes: SqlType[] = [];
    for (let i = 1; i + 1 < a.length; i += 2) {
      names.push(a[i] as string);
      values.push(a[i + 1]);
      valueTypes.push(types[i + 1] ?? { kind: 'text' });
    }
    // A range variable's row is NULL where an outer join null-extended it: every field NULL.
    if (a[0] === true && values.every((v) => v === null)) return null;
    return render(names, values, valueTypes, ctx);
  };
  registerScalarFunction({
    name, args: ['any'], variadic: true, returns, strict: false, id: `${name}(any...)`,
    impl: (a, ctx) => impl(a.map(() => ({ kind: 'text' }) as SqlType))(a, ctx),
    implFor: impl,
  });
}

/** PostgreSQL's record_out: fields in parentheses, quoted when empty or holding `"\(),` or white space. */
function recordText(_names: readonly string[], values: readonly unknown[], types: readonly SqlType[], ctx: EvalContext): string {
  const fields = values.map((v, i) => {
    if (v === null) return '';
    const text = valueToText(v, types[i]!, ctx);
    if (text !== '' && !/[",\\()\s]/.test(text)) return text;
    return `"${text.replace(/(["\\])/g, '$1$1')}"`;
  });
  return `(${fields.join(',')})`;
}

/** PostgreSQL's composite_to_json: `{"id":1,"name":"joe"}`, or one field a line when pretty. */
function rowJson(pretty: boolean): RowRenderer {
  return (names, values, types, ctx) => {
    const fields = names.map((n, i) => `${JSON.stringify(n)}:${toJsonText(values[i], types[i]!, ctx)}`);
    return `{${fields.join(pretty ? ',\n ' : ',')}}`;
  };
}

export function registerRowValueFunctions(): void {
  registerRowFunction(RowValueFunctions.json, T.json, rowJson(false));
  registerRowFunction(RowValueFunctions.prettyJson, T.json, rowJson(true));
  registerRowFunction(RowValueFunctions.jsonb, T.jsonb, (names, values, types, ctx) => jsonbNormalize(rowJson(false)(names, values, types, ctx)));
  registerRowFunction(RowValueFunctions.text, T.text, recordText);
  // jsonb_agg of rows: the binder passes each row as its jsonb text, listed as jsonb writes an array.
  registerListAggregate('jsonb_agg', T.jsonb, 'jsonb_agg(jsonb)', ', ');
  registerListAggregate(RowValueFunctions.jsonAgg, T.json, `${RowValueFunctions.jsonAgg}(json)`, ', \n ');
}

/** An aggregate listing its (JSON text) inputs in an array, NULL as null, the array NULL over no rows. */
function registerListAggregate(name: string, type: SqlType, id: string, separator: string): void {
  registerAggregateFunction({
    name, args: [type], returns: type, strict: false, id,
    impl: () => ({
      init: () => ({ v: [] as string[] }),
      step: (s, [v]) => { (s as { v: string[] }).v.push(v === null ? 'null' : (v as string)); return s; },
      combine: (a, b) => ({ v: [...(a as { v: string[] }).v, ...(b as { v: string[] }).v] }),
      final: (s) => ((s as { v: string[] }).v.length === 0 ? null : `[${(s as { v: string[] }).v.join(separator)}]`),
    }),
  });
}
