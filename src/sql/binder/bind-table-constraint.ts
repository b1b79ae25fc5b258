import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Expr } from '../../exec/index.js';
import type { TableConstraint } from '../../lake/index.js';
import { parseFragment } from '../parser/pg-parser.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindCondition } from './bind-expr.js';
import { resolveRelation } from './resolve-relation.js';
import type { ScopeColumn } from './scope.js';

/** The table a CHECK or FOREIGN KEY is declared on, as far as naming and binding need it. */
export interface ConstraintHost {
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: SqlType }[];
  /** Constraint (and index) names already in use on the table; a chosen name is added. */
  readonly taken: Set<string>;
}

type CheckConstraint = Extract<TableConstraint, { kind: 'check' }>;
type ForeignKeyConstraint = Extract<TableConstraint, { kind: 'foreignKey' }>;

/**
 * A CHECK or FOREIGN KEY constraint node (column or table form) as a TableConstraint;
 * undefined for other kinds. `column` is the column a column constraint sits on.
 */
export function bindTableConstraint(ctx: BindContext, con: Raw, host: ConstraintHost, column?: string): CheckConstraint | ForeignKeyConstraint | undefined {
  switch (con.contype as string) {
    case 'CONSTR_CHECK': return bindCheck(ctx, con, host);
    case 'CONSTR_FOREIGN': return bindForeignKey(ctx, con, host, column);
    default: return undefined;
  }
}

/**
 * PostgreSQL's choice of a constraint name: `<table>_<columns>_<suffix>`, numbered
 * from 1 on collision (ChooseConstraintName), each part cut so the whole fits 63 bytes.
 */
export function chooseConstraintName(host: ConstraintHost, columns: readonly string[], suffix: string): string {
  const label = columns.join('_');
  for (let n = 0; ; n++) {
    const tail = `${suffix}${n === 0 ? '' : n}`;
    let table = host.name;
    let cols = label;
    while (Buffer.byteLength(`${table}${cols === '' ? '' : `_${cols}`}_${tail}`) > 63) {
      if (Buffer.byteLength(table) >= Buffer.byteLength(cols)) table = table.slice(0, -1);
      else cols = cols.slice(0, -1);
    }
    const name = `${table}${cols === '' ? '' : `_${cols}`}_${tail}`;
    if (!host.taken.has(name)) {
      host.taken.add(name);
      return name;
    }
  }
}

function claimName(host: ConstraintHost, name: string, con: Raw): string {
  if (host.taken.has(name)) {
    throw new FloeError(SqlState.duplicateObject, `constraint "${name}" for relation "${host.name}" already exists`);
  }
  host.taken.add(name);
  return name;
}

/** Scope over the host table's row, in table order. */
function hostScope(host: ConstraintHost): ScopeColumn[] {
  return host.columns.map((c, i) => ({
    name: c.name, relation: host.name, schema: host.namespace, index: i, type: c.type, tableOid: host.id, columnNumber: i + 1,
  }));
}

/** Binds a CHECK expression over the host's row (42703 for unknown columns, 42804 unless boolean). */
export function bindCheckExpr(ctx: BindContext, node: Raw, host: Pick<ConstraintHost, 'id' | 'namespace' | 'name' | 'columns'>): Expr {
  return bindCondition(ctx, node, { scope: { columns: hostScope({ ...host, taken: new Set() }) }, clause: 'CHECK' });
}

function bindCheck(ctx: BindContext, con: Raw, host: ConstraintHost): CheckConstraint {
  if (con.is_no_inherit || con.skip_validation) {
    throw new FloeError(SqlState.featureNotSupported, 'CHECK … NO INHERIT and NOT VALID are not supported', { position: positionOf(con) });
  }
  rejectSubqueries(con.raw_expr);
  bindCheckExpr(ctx, con.raw_expr, host);
  const columns = [...new Set(columnRefs(con.raw_expr).map((r) => r.name))];
  // PostgreSQL names a CHECK after its column when it reads exactly one, else after the table alone.
  const name = con.conname ? claimName(host, con.conname, con) : chooseConstraintName(host, columns.length === 1 ? columns : [], 'check');
  return { kind: 'check', name, expr: checkSourceText(ctx, con), columns };
}

function bindForeignKey(ctx: BindContext, con: Raw, host: ConstraintHost, column?: string): ForeignKeyConstraint {
  const fkColumns = column !== undefined ? [column] : strList(con.fk_attrs);
  for (const c of fkColumns) {
    if (!host.columns.some((x) => x.name === c)) {
      throw new FloeError(SqlState.undefinedColumn, `column "${c}" referenced in foreign key constraint does not exist`);
    }
  }
  const pk = con.pktable as Raw;
  const selfRef = (pk.schemaname === undefined || pk.schemaname === host.namespace) && pk.relname === host.name;
  let refNamespace: string;
  let refColumns: readonly string[] = strList(con.pk_attrs);
  let refTableColumns: readonly string[];
  let refKeys: readonly (readonly string[])[];
  if (selfRef) {
    refNamespace = host.namespace;
    refTableColumns = host.columns.map((c) => c.name);
    refKeys = [];
  } else {
    // PostgreSQL resolves the referenced table when it executes the DDL: its errors carry no position.
    const rel = resolveRelation(ctx, pk.schemaname, pk.relname, undefined);
    if (rel.kind !== 'lake') {
      throw new FloeError(SqlState.wrongObjectType, `referenced relation "${pk.relname}" is not a table`, { position: positionOf(pk) });
    }
    refNamespace = rel.table.namespace;
    refTableColumns = rel.table.columns.map((c) => c.name);
    const uniques = (rel.table.constraints ?? []).filter((c) => c.kind === 'unique').map((c) => (c as { columns: readonly string[] }).columns);
    refKeys = [rel.table.primaryKey, ...uniques].filter((k) => k.length > 0);
    if (refColumns.length === 0) {
      if (rel.table.primaryKey.length === 0) {
        throw new FloeError(SqlState.invalidForeignKey, `there is no primary key for referenced table "${pk.relname}"`);
      }
      refColumns = rel.table.primaryKey;
    }
  }
  for (const c of refColumns) {
    if (!refTableColumns.includes(c)) {
      throw new FloeError(SqlState.undefinedColumn, `column "${c}" referenced in foreign key constraint does not exist`);
    }
  }
  if (refColumns.length !== fkColumns.length) {
    throw new FloeError(SqlState.invalidForeignKey, 'number of referencing and referenced columns for foreign key disagree');
  }
  // PostgreSQL requires the referenced columns to carry a primary key or unique constraint.
  if (!selfRef && !refKeys.some((k) => k.length === refColumns.length && k.every((c) => refColumns.includes(c)))) {
    throw new FloeError(SqlState.invalidForeignKey, `there is no unique constraint matching given keys for referenced table "${pk.relname}"`);
  }
  const name = con.conname ? claimName(host, con.conname, con) : chooseConstraintName(host, fkColumns, 'fkey');
  return { kind: 'foreignKey', name, columns: fkColumns, refNamespace, refTable: pk.relname as string, refColumns: [...refColumns] };
}

function rejectSubqueries(node: Raw): void {
  const visit = (n: Raw): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) { n.forEach(visit); return; }
    if ('SubLink' in n) throw new FloeError(SqlState.featureNotSupported, 'cannot use subquery in check constraint', { position: positionOf(n) });
    Object.values(n).forEach(visit);
  };
  visit(node);
}

/** The single-name column references of an expression, with their offsets in its text. */
export function columnRefs(node: Raw): { name: string; location: number }[] {
  const out: { name: string; location: number }[] = [];
  const visit = (n: Raw): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) { n.forEach(visit); return; }
    const [tag, body] = Object.keys(n).length === 1 ? unwrap(n) : ['', n];
    if (tag === 'ColumnRef') {
      const fields = strList(body.fields);
      if (fields.length > 0) out.push({ name: fields[fields.length - 1]!, location: body.location as number });
      return;
    }
    Object.values(n).forEach(visit);
  };
  visit(node);
  return out;
}

/** The text between CHECK's parentheses, as the user wrote it. */
function checkSourceText(ctx: BindContext, con: Raw): string {
  const src = ctx.stmt.source;
  const from = (positionOf(con) ?? 1) - 1;
  const at = /\bcheck\s*\(/iy;
  let i = from;
  // CONSTRAINT name CHECK ( … ): find the CHECK keyword from the constraint's start.
  for (; i < src.length; i++) {
    at.lastIndex = i;
    if (at.test(src)) break;
  }
  const inner = parenthesizedText(src, src.indexOf('(', i));
  if (inner === undefined) throw new FloeError(SqlState.syntaxError, 'could not find the end of the CHECK expression', { position: from + 1 });
  return inner.text;
}

/** The text inside the parentheses opening at `open` (quotes respected), and where they close; undefined when they do not. */
export function parenthesizedText(src: string, open: number): { text: string; close: number } | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let j = open; j < src.length; j++) {
    const ch = src[j]!;
    if (quote) { if (ch === quote) quote = undefined; continue; }
    if (ch === "'" || ch === '"') { quote = ch; continue; }
    if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return { text: src.slice(open + 1, j).trim(), close: j };
  }
  return undefined;
}

/** Parses a stored CHECK text back to its expression node (locations relative to the text). */
export function parseCheckText(expr: string): Raw {
  const select = parseFragment('SELECT ', expr, 0);
  return unwrap(unwrap(select)[1].targetList[0])[1].val;
}

/** A column identifier as SQL text: quoted unless a plain lower-case name. */
function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** A stored CHECK's text with references to column `from` renamed to `to` (undefined when it reads no `from`). */
export function renameInCheckText(expr: string, from: string, to: string): string | undefined {
  const refs = columnRefs(parseCheckText(expr)).filter((r) => r.name === from).sort((a, b) => b.location - a.location);
  if (refs.length === 0) return undefined;
  let out = expr;
  for (const r of refs) {
    // The reference may be qualified (t.c): replace its last identifier, quoted or not.
    const tail = /^(?:(?:"(?:[^"]|"")*"|[^\s."()]+)\s*\.\s*)*("(?:[^"]|"")*"|[^\s."()=<>!+\-*/,]+)/.exec(out.slice(r.location));
    if (tail === null) continue;
    const start = r.location + tail[0].length - tail[1]!.length;
    out = out.slice(0, start) + quoteIdent(to) + out.slice(start + tail[1]!.length);
  }
  return out;
}
