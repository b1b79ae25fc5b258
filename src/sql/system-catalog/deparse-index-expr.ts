import { formatType, type SqlType } from '../../common/sql-type.js';
import { strList, unwrap, type Raw } from '../binder/ast.js';
import { parseFragment } from '../parser/pg-parser.js';

/**
 * An index key expression or partial-index predicate as PostgreSQL's ruleutils prints it
 * after parse analysis: the implicit casts its operators needed shown (`first_name::text =
 * 'Sami'::text` for a varchar column), IN lists as `= ANY (ARRAY[…])`, BETWEEN as two
 * comparisons, LIKE as `~~`. `pretty` is pg_get_indexdef(oid, 0, true) (psql's \d):
 * parentheses only where precedence needs them; otherwise every operator is
 * parenthesized. Covers comparisons, arithmetic, AND/OR/NOT, IS [NOT] NULL, IN, BETWEEN,
 * LIKE/ILIKE and the one-argument text functions; anything else prints as written.
 */
export function deparseIndexExpr(text: string, pretty: boolean, columns: ReadonlyMap<string, SqlType>): string {
  let node: Raw;
  try {
    node = unwrap(unwrap(parseFragment('SELECT ', text, 0))[1].targetList[0])[1].val;
  } catch {
    return text;
  }
  const analyzed = analyze(node, columns);
  return analyzed === undefined ? text : print(analyzed, pretty, undefined);
}

/** Whether pg_get_indexdef prints a key bare: PostgreSQL's looks_like_function (a function call). */
export function looksLikeFunction(text: string, columns: ReadonlyMap<string, SqlType>): boolean {
  try {
    const node = unwrap(unwrap(parseFragment('SELECT ', text, 0))[1].targetList[0])[1].val;
    const a = analyze(node, columns);
    return a !== undefined && a.k === 'func';
  } catch {
    return false;
  }
}

/** The type of an index expression's column (text when it cannot be worked out). */
export function indexExprType(text: string, columns: ReadonlyMap<string, SqlType>): SqlType {
  try {
    const a = analyze(unwrap(unwrap(parseFragment('SELECT ', text, 0))[1].targetList[0])[1].val, columns);
    const t = a === undefined ? 'unknown' : typeOf(a);
    return t === 'unknown' ? TEXT : t;
  } catch {
    return TEXT;
  }
}

/** The analyzed expression: PostgreSQL's node kinds, with the types that decide casts. */
type Node =
  | { k: 'var'; name: string; type: SqlType }
  | { k: 'const'; value: string | null; type: SqlType | 'unknown' }
  | { k: 'cast'; arg: Node; type: SqlType }
  | { k: 'op'; op: string; l: Node; r: Node; type: SqlType }
  | { k: 'bool'; op: 'AND' | 'OR' | 'NOT'; args: Node[] }
  | { k: 'nullTest'; arg: Node; not: boolean }
  | { k: 'anyAll'; op: string; all: boolean; arg: Node; elements: Node[]; arrayCast?: SqlType }
  | { k: 'func'; name: string; args: Node[]; type: SqlType };

const BOOL: SqlType = { kind: 'bool' };
const TEXT: SqlType = { kind: 'text' };
const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);
/** One-argument functions over text and what they return. */
const TEXT_FUNCTIONS: Readonly<Record<string, SqlType>> = {
  lower: TEXT, upper: TEXT, initcap: TEXT, btrim: TEXT, ltrim: TEXT, rtrim: TEXT, md5: TEXT, reverse: TEXT,
  length: { kind: 'int4' }, char_length: { kind: 'int4' }, octet_length: { kind: 'int4' },
};
const NUMERIC_RANK: Readonly<Record<string, number>> = { int2: 1, int4: 1, int8: 1, numeric: 2, float4: 3, float8: 3 };

function typeOf(n: Node): SqlType | 'unknown' {
  switch (n.k) {
    case 'var': case 'cast': case 'op': case 'func': return n.type;
    case 'const': return n.type;
    default: return BOOL;
  }
}

/** A base type without its modifier (`character varying`, not `character varying(10)`): how constants are labelled. */
function label(t: SqlType): string {
  return t.kind === 'array' ? `${label(t.element)}[]` : formatType({ kind: t.kind } as SqlType);
}

const isString = (t: SqlType | 'unknown') => t !== 'unknown' && (t.kind === 'text' || t.kind === 'varchar' || t.kind === 'bpchar' || t.kind === 'name');

/** An unknown-typed literal takes the type it is used as; any other node is cast to it (implicitly, shown). */
function coerce(n: Node, to: SqlType): Node {
  const from = typeOf(n);
  if (n.k === 'const' && from === 'unknown') return { ...n, type: to };
  if (from !== 'unknown' && from.kind === to.kind) return n;
  return { k: 'cast', arg: n, type: to };
}

/** The operand types an operator resolves to, as PostgreSQL's operator lookup picks them for the common cases. */
function operandTypes(l: Node, r: Node, textOnly: boolean): [SqlType, SqlType] | undefined {
  const lt = typeOf(l);
  const rt = typeOf(r);
  if (textOnly || (lt === 'unknown' && rt === 'unknown')) return [TEXT, TEXT];
  if (lt === 'unknown' || rt === 'unknown') {
    const known = (lt === 'unknown' ? rt : lt) as SqlType;
    // varchar has no operators of its own: both sides become text.
    const t = known.kind === 'varchar' ? TEXT : known;
    return [t, t];
  }
  if (isString(lt) && isString(rt)) {
    if (lt.kind === rt.kind && lt.kind !== 'varchar') return [lt, rt];
    return [TEXT, TEXT];
  }
  const lr = NUMERIC_RANK[lt.kind];
  const rr = NUMERIC_RANK[rt.kind];
  if (lr !== undefined && rr !== undefined) {
    // Integer types compare across widths, as do float4 with float8; otherwise the narrower side widens.
    if (lr === rr) return [lt, rt];
    return lr > rr ? [lt, lt] : [rt, rt];
  }
  return lt.kind === rt.kind ? [lt, rt] : undefined;
}

function analyzeConst(c: Raw): Node | undefined {
  if (c.isnull) return { k: 'const', value: null, type: 'unknown' };
  if (c.ival !== undefined) return { k: 'const', value: String(c.ival.ival ?? 0), type: { kind: 'int4' } };
  if (c.fval !== undefined) {
    const v = String(c.fval.fval);
    if (/^-?\d+$/.test(v)) {
      const big = BigInt(v);
      return { k: 'const', value: v, type: big >= -(2n ** 63n) && big < 2n ** 63n ? { kind: 'int8' } : { kind: 'numeric' } };
    }
    return { k: 'const', value: v, type: { kind: 'numeric' } };
  }
  if (c.sval !== undefined) return { k: 'const', value: String(c.sval.sval ?? ''), type: 'unknown' };
  if (c.boolval !== undefined) return { k: 'const', value: c.boolval.boolval ? 'true' : 'false', type: BOOL };
  return undefined;
}

function binary(op: string, l: Node, r: Node): Node | undefined {
  const types = operandTypes(l, r, op.includes('~~'));
  if (types === undefined) return undefined;
  const [lt, rt] = types;
  const type = COMPARISONS.has(op) || op.includes('~~') ? BOOL : lt;
  return { k: 'op', op: op === '!=' ? '<>' : op, l: coerce(l, lt), r: coerce(r, rt), type };
}

function analyze(node: Raw, cols: ReadonlyMap<string, SqlType>): Node | undefined {
  const [tag, n] = unwrap(node);
  const sub = (x: Raw) => analyze(x, cols);
  switch (tag) {
    case 'ColumnRef': {
      const name = strList(n.fields).pop();
      const type = name === undefined ? undefined : cols.get(name);
      return type === undefined ? undefined : { k: 'var', name: name!, type };
    }
    case 'A_Const': return analyzeConst(n);
    case 'A_Expr': {
      const op = strList(n.name).pop()!;
      if (n.kind === 'AEXPR_OP' || n.kind === 'AEXPR_LIKE' || n.kind === 'AEXPR_ILIKE') {
        if (!COMPARISONS.has(op) && !ARITHMETIC.has(op) && !op.includes('~~')) return undefined;
        const r = sub(n.rexpr);
        if (r === undefined) return undefined;
        if (n.lexpr === undefined) {
          // A folded negative constant; any other prefix operator prints as written.
          return op === '-' && r.k === 'const' && r.value !== null && typeOf(r) !== 'unknown' ? { ...r, value: `-${r.value}` } : undefined;
        }
        const l = sub(n.lexpr);
        return l === undefined ? undefined : binary(op, l, r);
      }
      if (n.kind === 'AEXPR_IN') {
        const arg = sub(n.lexpr);
        const items = (unwrap(n.rexpr)[1].items as Raw[] | undefined)?.map(sub);
        if (arg === undefined || items === undefined || items.some((x) => x === undefined)) return undefined;
        return anyAll(op === '=' ? '=' : '<>', op !== '=', arg, items as Node[]);
      }
      if (n.kind === 'AEXPR_BETWEEN' || n.kind === 'AEXPR_NOT_BETWEEN') {
        const arg = sub(n.lexpr);
        const [lo, hi] = ((unwrap(n.rexpr)[1].items as Raw[] | undefined) ?? []).map(sub);
        if (arg === undefined || lo === undefined || hi === undefined) return undefined;
        const not = n.kind === 'AEXPR_NOT_BETWEEN';
        const a = binary(not ? '<' : '>=', arg, lo);
        const b = binary(not ? '>' : '<=', arg, hi);
        return a === undefined || b === undefined ? undefined : { k: 'bool', op: not ? 'OR' : 'AND', args: [a, b] };
      }
      return undefined;
    }
    case 'BoolExpr': {
      const args = (n.args as Raw[]).map(sub);
      if (args.some((a) => a === undefined)) return undefined;
      const op = n.boolop === 'AND_EXPR' ? 'AND' : n.boolop === 'OR_EXPR' ? 'OR' : 'NOT';
      return { k: 'bool', op, args: (args as Node[]).map((a) => coerce(a, BOOL)) };
    }
    case 'NullTest': {
      const arg = sub(n.arg);
      return arg === undefined ? undefined : { k: 'nullTest', arg, not: n.nulltesttype !== 'IS_NULL' };
    }
    case 'FuncCall': {
      const names = strList(n.funcname);
      const name = names[names.length - 1]!;
      const returns = TEXT_FUNCTIONS[name];
      const args = ((n.args as Raw[] | undefined) ?? []).map(sub);
      if (returns === undefined || names.length > 1 || args.length !== 1 || args[0] === undefined || n.agg_star || n.over) return undefined;
      const t = typeOf(args[0]);
      if (t !== 'unknown' && !isString(t)) return undefined;
      return { k: 'func', name, args: [t !== 'unknown' && t.kind === 'bpchar' && name.endsWith('length') ? args[0] : coerce(args[0], TEXT)], type: returns };
    }
    default:
      return undefined;
  }
}

/** `x IN (…)` as PostgreSQL keeps it: x = ANY (ARRAY[…]), the elements of x's type (a varchar array cast to text[]). */
function anyAll(op: string, all: boolean, arg: Node, items: Node[]): Node | undefined {
  const at = typeOf(arg);
  const known = at !== 'unknown' ? at : items.map(typeOf).find((t): t is SqlType => t !== 'unknown') ?? TEXT;
  if (known.kind === 'varchar') {
    return { k: 'anyAll', op, all, arg: coerce(arg, TEXT), elements: items.map((i) => coerce(i, known)), arrayCast: { kind: 'array', element: TEXT } };
  }
  const elements = items.map((i) => coerce(i, known));
  return { k: 'anyAll', op, all, arg: coerce(arg, known), elements };
}

type Parent = { k: 'op'; op: string; left: boolean } | { k: 'bool'; op: 'AND' | 'OR' | 'NOT' } | { k: 'cast' } | { k: 'func' } | { k: 'other' } | undefined;

/** PostgreSQL's isSimpleNode: whether a child prints without parentheses under its parent (pretty mode only). */
function simple(n: Node, parent: Parent): boolean {
  switch (n.k) {
    case 'var': case 'const': case 'func': return true;
    case 'cast': return simple(n.arg, { k: 'cast' });
    case 'op': {
      if (parent?.k === 'op') {
        const lo = (o: string) => o === '+' || o === '-';
        const hi = (o: string) => o === '*' || o === '/' || o === '%';
        if (!(lo(n.op) || hi(n.op)) || !(lo(parent.op) || hi(parent.op))) return false;
        if (hi(n.op) && lo(parent.op)) return true;
        if (lo(n.op) && hi(parent.op)) return false;
        return parent.left;
      }
      return parent?.k === 'bool' || parent?.k === 'func';
    }
    case 'nullTest': return parent?.k === 'bool' || parent?.k === 'func';
    case 'bool':
      if (parent?.k === 'bool') return n.op === 'OR' ? parent.op === 'OR' : parent.op !== 'NOT';
      return parent?.k === 'func';
    case 'anyAll': return false;
  }
}

function printConst(n: Extract<Node, { k: 'const' }>): string {
  if (n.value === null) return n.type === 'unknown' ? 'NULL' : `NULL::${label(n.type)}`;
  const quoted = `'${n.value.replaceAll("'", "''")}'`;
  if (n.type === 'unknown') return quoted;
  switch (n.type.kind) {
    case 'bool': return n.value;
    case 'int4': return n.value.startsWith('-') ? `${quoted}::integer` : n.value;
    case 'numeric': return /^\d/.test(n.value) && /[.eE]/.test(n.value) ? n.value : `${quoted}::numeric`;
    default: return `${quoted}::${label(n.type)}`;
  }
}

function print(n: Node, pretty: boolean, parent: Parent): string {
  const child = (c: Node, p: Parent): string => {
    const s = print(c, pretty, p);
    return pretty && !simple(c, p) ? `(${s})` : s;
  };
  const wrap = (s: string) => (pretty ? s : `(${s})`);
  switch (n.k) {
    case 'var': return ident(n.name);
    case 'const': return printConst(n);
    case 'cast': {
      const arg = pretty ? child(n.arg, { k: 'cast' }) : `(${print(n.arg, pretty, { k: 'cast' })})`;
      return `${arg}::${label(n.type)}`;
    }
    case 'op': return wrap(`${child(n.l, { k: 'op', op: n.op, left: true })} ${n.op} ${child(n.r, { k: 'op', op: n.op, left: false })}`);
    case 'bool': {
      const me: Parent = { k: 'bool', op: n.op };
      if (n.op === 'NOT') return wrap(`NOT ${child(n.args[0]!, me)}`);
      return wrap(n.args.map((a) => child(a, me)).join(` ${n.op} `));
    }
    case 'nullTest': return wrap(`${child(n.arg, { k: 'other' })} IS ${n.not ? 'NOT ' : ''}NULL`);
    case 'anyAll': {
      const array = `ARRAY[${n.elements.map((e) => print(e, pretty, { k: 'func' })).join(', ')}]`;
      const right = n.arrayCast === undefined ? array : `${pretty ? array : `(${array})`}::${label(n.arrayCast)}`;
      return wrap(`${child(n.arg, { k: 'other' })} ${n.op} ${n.all ? 'ALL' : 'ANY'} (${right})`);
    }
    case 'func': return `${n.name}(${n.args.map((a) => print(a, pretty, { k: 'func' })).join(', ')})`;
  }
}

function ident(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}
