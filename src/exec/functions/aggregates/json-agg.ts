import type { SqlType } from '../../../common/sql-type.js';
import { valueToText, BuiltinTypes as T } from '../builtin-operators.js';
import { registerAggregateFunction } from '../function-registry.js';
import { simple } from './aggregate-support.js';

/** json_agg (the executor orders the rows before stepping). */
export function registerJsonAgg(): void {
  registerAggregateFunction({
    name: 'json_agg', args: ['anyelement'], returns: T.json, strict: false,
    impl: (types) => simple(() => ({ v: [] as string[] }),
      (s, [v]) => { (s as { v: string[] }).v.push(v === null ? 'null' : jsonValue(v, types[0]!)); return s; },
      (a, b) => ({ v: [...(a as { v: string[] }).v, ...(b as { v: string[] }).v] }),
      (s) => ((s as { v: string[] }).v.length === 0 ? null : `[${(s as { v: string[] }).v.join(', ')}]`)),
  });
}

function jsonValue(v: unknown, t: SqlType): string {
  switch (t.kind) {
    case 'int2': case 'int4': case 'int8': case 'float4': case 'float8': case 'numeric': return String(v);
    case 'bool': return v ? 'true' : 'false';
    case 'json': case 'jsonb': return v as string;
    default: return JSON.stringify(typeof v === 'string' ? v : valueToText(v, t, { settings: new Map(), user: '', database: '', searchPath: [], warehouse: undefined, virtualTables: undefined, transactionStartMicros: 0n, statementStartMicros: 0n }));
  }
}
