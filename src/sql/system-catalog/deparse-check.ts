import type { SqlType } from '../../common/sql-type.js';
import { parseFragment } from '../parser/pg-parser.js';
import { strList, unwrap, type Raw } from '../binder/ast.js';

/**
 * A stored CHECK expression as pg_get_constraintdef prints it: `pretty` as psql's \d
 * asks (parentheses only where precedence needs them), otherwise every operator
 * parenthesized, as PostgreSQL's ruleutils does. Covers what CHECKs are usually made
 * of (comparisons, arithmetic, AND/OR/NOT, IS [NOT] NULL, constants, CURRENT_USER and its
 * kin, which policies are made of); anything else is
 * printed as the user wrote it. Literals get PostgreSQL's casts where the column
 * compared with them says which (an integer against a numeric or float column);
 * string literals print as text.
 */
export function deparseCheck(text: string, pretty: boolean, columns: ReadonlyMap<string, SqlType> = new Map()): string {
  let node: Raw;
  try {
    const select = parseFragment('SELECT ', text, 0);
    node = unwrap(unwrap(select)[1].targetList[0])[1].val;
  } catch {
    return text;
  }
  const out = deparse(node, pretty, undefined, columns);
  return out ?? text;
}

type Parent = { kind: 'op'; op: string } | { kind: 'bool' } | undefined;

function ident(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function constant(c: Raw): string | undefined {
  if (c.isnull) return 'NULL';
  // The parser folds a minus sign into the constant; PostgreSQL prints such constants quoted, with their type.
  if (c.ival !== undefined) return (c.ival.ival ?? 0) < 0 ? `'${c.ival.ival}'::integer` : String(c.ival.ival ?? 0);
  if (c.fval !== undefined) {
    const v = String(c.fval.fval);
    return v.startsWith('-') ? `'${v}'::${negativeConstantType(v.slice(1))}` : v;
  }
  // A string constant is usually compared with a text column: PostgreSQL then prints it as text.
  if (c.sval !== undefined) return `'${String(c.sval.sval ?? '').replaceAll("'", "''")}'::text`;
  if (c.boolval !== undefined) return c.boolval.boolval ? 'true' : 'false';
  return undefined;
}

function negativeConstantType(digits: string): string {
  if (digits.includes('.')) return 'numeric';
  const v = BigInt(digits);
  return v <= 2147483648n ? 'integer' : v <= 9223372036854775808n ? 'bigint' : 'numeric';
}

/** An integer constant compared with a numeric or float column, cast as PostgreSQL's coercion prints it. */
function castConstant(node: Raw, text: string, other: Raw, cols: ReadonlyMap<string, SqlType>, pretty: boolean): string {
  const [tag, n] = unwrap(node);
  const [otag, o] = unwrap(other);
  if (tag !== 'A_Const' || n.ival === undefined || otag !== 'ColumnRef' || text.startsWith("'")) return text;
  const kind = cols.get(strList(o.fields).pop() ?? '')?.kind;
  const type = kind === 'numeric' ? 'numeric' : kind === 'float8' || kind === 'float4' ? 'double precision' : undefined;
  if (type === undefined) return text;
  return pretty ? `${text}::${type}` : `(${text})::${type}`;
}

/** PostgreSQL's isSimpleNode for an operator under an operator: only higher-precedence ones go bare. */
function simpleUnderOp(op: string, parentOp: string): boolean {
  if (op === '^') return parentOp !== '^';
  if ('*/%'.includes(op) && op.length === 1) return '+-'.includes(parentOp) && parentOp.length === 1;
  return false;
}

function deparse(node: Raw, pretty: boolean, parent: Parent, cols: ReadonlyMap<string, SqlType>): string | undefined {
  const [tag, n] = unwrap(node);
  const wrap = (s: string, simple: boolean): string => (pretty ? (simple ? s : `(${s})`) : `(${s})`);
  switch (tag) {
    case 'ColumnRef': {
      const fields = strList(n.fields);
      return fields.length > 0 ? fields.map(ident).join('.') : undefined;
    }
    case 'A_Const': return constant(n);
    case 'A_Expr': {
      if (n.kind !== 'AEXPR_OP') return undefined;
      const op = strList(n.name).pop()!;
      const me: Parent = { kind: 'op', op };
      const r = deparse(n.rexpr, pretty, me, cols);
      if (r === undefined) return undefined;
      if (n.lexpr === undefined) {
        // A negative constant, folded and printed with its type as PostgreSQL does.
        if (op === '-' && unwrap(n.rexpr)[0] === 'A_Const' && /^[0-9.]+$/.test(r)) return `'-${r}'::${negativeConstantType(r)}`;
        const s = `${op} ${r}`;
        return parent === undefined && pretty ? s : wrap(s, parent?.kind === 'bool');
      }
      const l0 = deparse(n.lexpr, pretty, me, cols);
      if (l0 === undefined) return undefined;
      const l = castConstant(n.lexpr, l0, n.rexpr, cols, pretty);
      const s = `${l} ${op} ${castConstant(n.rexpr, r, n.lexpr, cols, pretty)}`;
      if (!pretty) return `(${s})`;
      if (parent === undefined || parent.kind === 'bool') return s;
      return simpleUnderOp(op, parent.op) ? s : `(${s})`;
    }
    case 'BoolExpr': {
      const me: Parent = { kind: 'bool' };
      const args = (n.args as Raw[]).map((a) => deparse(a, pretty, me, cols));
      if (args.some((a) => a === undefined)) return undefined;
      const boolArgs = (n.args as Raw[]).map((a) => unwrap(a));
      if (n.boolop === 'NOT_EXPR') {
        const s = `NOT ${args[0]}`;
        return pretty ? (parent === undefined || parent.kind === 'bool' ? s : `(${s})`) : `(${s})`;
      }
      const word = n.boolop === 'AND_EXPR' ? ' AND ' : ' OR ';
      // Pretty: a nested AND under AND (OR under OR) needs no parentheses; another kind keeps them.
      const parts = args.map((a, i) => {
        const [t, b] = boolArgs[i]!;
        return pretty && t === 'BoolExpr' && b.boolop === n.boolop ? a!.slice(1, -1) : a!;
      });
      const s = parts.join(word);
      return pretty && parent === undefined ? s : `(${s})`;
    }
    case 'NullTest': {
      const arg = deparse(n.arg, pretty, { kind: 'bool' }, cols);
      if (arg === undefined) return undefined;
      const s = `${arg} ${n.nulltesttype === 'IS_NULL' ? 'IS NULL' : 'IS NOT NULL'}`;
      return pretty ? (parent === undefined || parent.kind === 'bool' ? s : `(${s})`) : `(${s})`;
    }
    case 'SQLValueFunction': return sqlValueFunction(n);
    default:
      return undefined;
  }
}

/** CURRENT_USER, SESSION_USER, CURRENT_DATE, LOCALTIMESTAMP(3), …: the SQL keyword, as ruleutils prints them. */
function sqlValueFunction(n: Raw): string | undefined {
  const m = /^SVFOP_([A-Z_]+?)(_N)?$/.exec(String(n.op));
  if (m === null) return undefined;
  return m[2] === undefined ? m[1]! : `${m[1]}(${n.typmod})`;
}
