import { formatType } from '../../common/sql-type.js';
import { type Expr, formatInterval, type OutputColumn } from '../../exec/index.js';
import type { Interval } from '../../common/sql-type.js';

/** The name part of a registry id: "+(int4,int4)" → "+", "upper(text)" → "upper". */
function fnName(id: string): string {
  const i = id.indexOf('(');
  return i > 0 ? id.slice(0, i) : id;
}

function literal(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `'{${v.map((x) => (x === null ? 'NULL' : String(x))).join(',')}}'`;
  if (v instanceof Uint8Array) return `'\\x${Buffer.from(v).toString('hex')}'`;
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return String(v);
}

/** EXPLAIN's spelling of an expression, with input columns named from `input` when known. */
export function formatExpr(e: Expr, input?: readonly OutputColumn[]): string {
  const f = (x: Expr): string => formatExpr(x, input);
  switch (e.kind) {
    case 'column': return input?.[e.index]?.name ?? e.name ?? `#${e.index}`;
    case 'outerColumn': return `outer${e.depth}.${e.name ?? `#${e.index}`}`;
    // Folded interval constants read as PostgreSQL prints them.
    case 'literal': if (e.type.kind === 'interval' && e.value !== null) return `'${formatInterval(e.value as Interval)}'::interval`;
      return e.type.kind === 'unknown' || e.type.kind === 'int4' || e.type.kind === 'bool' || e.type.kind === 'numeric' || e.type.kind === 'text'
      ? literal(e.value) : `${literal(e.value)}::${formatType(e.type)}`;
    case 'param': return `$${e.index + 1}`;
    case 'call': {
      const name = fnName(e.fn);
      if (!/^[a-z_]/i.test(name)) {
        return e.args.length === 2 ? `(${f(e.args[0]!)} ${name} ${f(e.args[1]!)})` : `(${name}${f(e.args[0]!)})`;
      }
      return `${name}(${e.args.map(f).join(', ')})`;
    }
    case 'cast': return `(${f(e.arg)})::${formatType(e.type)}`;
    case 'case': {
      const whens = e.whens.map((w) => `WHEN ${f(w.when)} THEN ${f(w.then)}`).join(' ');
      return `CASE ${e.operand ? `${f(e.operand)} ` : ''}${whens}${e.else ? ` ELSE ${f(e.else)}` : ''} END`;
    }
    case 'and': return `(${e.args.map(f).join(' AND ')})`;
    case 'or': return `(${e.args.map(f).join(' OR ')})`;
    case 'not': return `(NOT ${f(e.arg)})`;
    case 'isNull': return `(${f(e.arg)} IS NULL)`;
    case 'isNotNull': return `(${f(e.arg)} IS NOT NULL)`;
    case 'isDistinctFrom': return `(${f(e.left)} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${f(e.right)})`;
    case 'isTruth': return `(${f(e.arg)} IS ${e.negated ? 'NOT ' : ''}${e.test.toUpperCase()})`;
    case 'inList': return `(${f(e.arg)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map(f).join(', ')}))`;
    case 'like': return `(${f(e.arg)} ${e.negated ? 'NOT ' : ''}${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${f(e.pattern)})`;
    case 'coalesce': return `COALESCE(${e.args.map(f).join(', ')})`;
    case 'nullif': return `NULLIF(${f(e.left)}, ${f(e.right)})`;
    case 'greatest': case 'least': return `${e.kind.toUpperCase()}(${e.args.map(f).join(', ')})`;
    case 'array': return `ARRAY[${e.elements.map(f).join(', ')}]`;
    case 'subscript': return `${f(e.arg)}[${f(e.index)}]`;
    case 'scalarSubquery': return `(SubPlan${e.correlated ? ' correlated' : ''})`;
    case 'exists': return `(${e.negated ? 'NOT ' : ''}EXISTS SubPlan${e.correlated ? ' correlated' : ''})`;
    case 'inSubquery': return `(${f(e.arg)} ${e.negated ? 'NOT IN' : 'IN'} SubPlan${e.correlated ? ' correlated' : ''})`;
  }
}
