import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { ColumnSpec, PartitionFieldSpec, UniqueSpec } from '../ddl-command.js';
import type { PartitionSpecClause } from '../parser/lake-clause.js';
import { positionOf, str, strList, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindExpr } from './bind-expr.js';
import { coerceTo } from './coerce.js';
import { propertiesOf } from './bind-ddl.js';
import { checkForeignKeyPersistence, createTableTarget } from './create-table-target.js';
import { resolveTypeName } from './resolve-type-name.js';
import { userTypeLookup } from './user-type-lookup.js';
import { identityOf, serialType } from './bind-sequence.js';
import type { SqlType } from '../../common/sql-type.js';
import { uniqueSpecOf } from './bind-unique.js';
import { bindTableConstraint, type ConstraintHost } from './bind-table-constraint.js';
import { bindTableLike } from './bind-table-like.js';
import type { TableConstraint } from '../../lake/index.js';

export interface BoundColumnDef {
  readonly spec: ColumnSpec;
  readonly primaryKey: boolean;
  /** UNIQUE column constraints on it. */
  readonly unique: readonly UniqueSpec[];
  /** CHECK and REFERENCES nodes on the column, bound by the caller once every column is known (bind-table-constraint.ts). */
  readonly constraintNodes: readonly Raw[];
}

/** A column definition: type, NOT NULL / NULL, DEFAULT (checked by binding it), PRIMARY KEY. */
export function bindColumnDef(ctx: BindContext, def: Raw): BoundColumnDef {
  const serial = serialType(def.typeName);
  const type: SqlType = serial !== undefined ? { kind: serial } : resolveTypeName(def.typeName, userTypeLookup(ctx));
  let nullable = true;
  let primaryKey = false;
  let defaultExpr: string | undefined;
  let sequence: ColumnSpec['sequence'] = serial !== undefined ? { kind: 'serial', options: {} } : undefined;
  const unique: UniqueSpec[] = [];
  const constraintNodes: Raw[] = [];
  for (const c of (def.constraints as Raw[] | undefined) ?? []) {
    const con = unwrap(c)[1];
    switch (con.contype as string) {
      case 'CONSTR_NOTNULL': nullable = false; break;
      case 'CONSTR_NULL': nullable = true; break;
      case 'CONSTR_PRIMARY': primaryKey = true; nullable = false; break;
      case 'CONSTR_DEFAULT': {
        const e = bindExpr(ctx, con.raw_expr, { scope: { columns: [] }, clause: 'DEFAULT expressions' });
        coerceTo(ctx, e, type, 'assignment', positionOf(con.raw_expr));
        defaultExpr = sourceText(ctx, con.raw_expr);
        break;
      }
      case 'CONSTR_IDENTITY':
        if (sequence !== undefined) {
          throw new FloeError(SqlState.syntaxError, `multiple identity specifications for column "${def.colname}" of table "${tableNameOf(ctx)}"`, { position: positionOf(con) });
        }
        sequence = identityOf(con);
        break;
      case 'CONSTR_UNIQUE': unique.push(uniqueSpecOf(con, def.colname)); break;
      case 'CONSTR_CHECK': case 'CONSTR_FOREIGN':
        constraintNodes.push(con);
        break;
      case 'CONSTR_EXCLUSION':
        throw new FloeError(SqlState.featureNotSupported, `${String(con.contype).replace('CONSTR_', '')} constraints are not supported`, { position: positionOf(con) });
      default:
        break;
    }
  }
  if (sequence !== undefined && defaultExpr !== undefined) {
    throw new FloeError(SqlState.syntaxError, `multiple default values specified for column "${def.colname}" of table "${tableNameOf(ctx)}"`);
  }
  return {
    spec: { name: def.colname, type, nullable, ...(defaultExpr !== undefined ? { defaultExpr } : {}), ...(sequence !== undefined ? { sequence } : {}) },
    primaryKey,
    unique,
    constraintNodes,
  };
}

/** The table a CREATE / ALTER TABLE statement names, for messages. */
function tableNameOf(ctx: BindContext): string {
  const [, n] = unwrap(ctx.stmt.ast);
  return String(n?.relation?.relname ?? '');
}

/** The text of an expression node as the user wrote it (the default is stored as SQL text). */
export function sourceText(ctx: BindContext, node: Raw): string {
  const start = positionOf(node);
  const src = ctx.stmt.source;
  // A cast's location may point at '::', and a typed literal's (`date '2024-01-01'`) is
  // missing: start at the first location inside the expression.
  const firstLoc = minLocation(node);
  if (start === undefined && firstLoc < 0) return '';
  // Scan forward to the end of the expression: to the next ',' or ')' at depth 0 outside quotes, or a constraint keyword.
  let depth = 0;
  let i = start === undefined ? firstLoc : start - 1;
  if (firstLoc >= 0 && firstLoc < i) i = firstLoc;
  const begin = i;
  let quote: string | undefined;
  for (; i < src.length; i++) {
    const ch = src[i]!;
    if (quote) { if (ch === quote) quote = undefined; continue; }
    if (ch === "'" || ch === '"') { quote = ch; continue; }
    if (ch === '(') depth++;
    else if (ch === ')') { if (depth === 0) break; depth--; }
    else if ((ch === ',' || ch === ';') && depth === 0) break;
    else if (depth === 0 && /\s/.test(ch)) {
      const rest = src.slice(i).trimStart().toLowerCase();
      if (/^(not\s+null|null|primary|unique|check|references|constraint|default|generated|collate)\b/.test(rest)) break;
    }
  }
  return src.slice(begin, i).trim();
}

function minLocation(node: Raw): number {
  let min = -1;
  const visit = (n: Raw): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) { n.forEach(visit); return; }
    for (const [k, v] of Object.entries(n)) {
      if (k === 'location' && typeof v === 'number' && v >= 0) { if (min < 0 || v < min) min = v; }
      else visit(v);
    }
  };
  visit(node);
  return min;
}

const timeTransforms = new Set(['year', 'month', 'day', 'hour', 'years', 'months', 'days', 'hours']);

/**
 * One PARTITION BY element. Floe spells transforms as calls, Iceberg style:
 * `col` (identity), `year(ts)`, `month(ts)`, `day(ts)`, `hour(ts)`, `bucket(n, col)`,
 * `truncate(n, col)` (also `identity(col)`).
 */
function partitionField(el: Raw, columns: readonly ColumnSpec[]): PartitionFieldSpec {
  const [tag, n] = unwrap(el);
  const column = (node: Raw): string => {
    const [t, c] = unwrap(node);
    const name = t === 'ColumnRef' ? strList(c.fields).pop() : undefined;
    if (name === undefined || !columns.some((col) => col.name === name)) {
      throw new FloeError(SqlState.undefinedColumn, `column "${name ?? '?'}" named in partition key does not exist`, { position: positionOf(node) });
    }
    return name;
  };
  const intArg = (node: Raw): number => {
    const [t, c] = unwrap(node);
    if (t !== 'A_Const' || c.ival === undefined || Number(c.ival.ival) <= 0) {
      throw new FloeError(SqlState.invalidParameterValue, 'partition transform width must be a positive integer constant', { position: positionOf(node) });
    }
    return Number(c.ival.ival);
  };
  if (tag === 'ColumnRef') {
    const name = column(el);
    return { sourceColumn: name, transform: { kind: 'identity' }, name };
  }
  if (tag === 'FuncCall') {
    const fn = strList(n.funcname).pop()!.toLowerCase();
    const args = (n.args as Raw[] | undefined) ?? [];
    if (fn === 'identity' && args.length === 1) {
      const name = column(args[0]);
      return { sourceColumn: name, transform: { kind: 'identity' }, name };
    }
    if (timeTransforms.has(fn) && args.length === 1) {
      const kind = fn.replace(/s$/, '') as 'year' | 'month' | 'day' | 'hour';
      const name = column(args[0]);
      return { sourceColumn: name, transform: { kind }, name: `${name}_${kind}` };
    }
    if (fn === 'bucket' && args.length === 2) {
      const buckets = intArg(args[0]);
      const name = column(args[1]);
      return { sourceColumn: name, transform: { kind: 'bucket', buckets }, name: `${name}_bucket` };
    }
    if (fn === 'truncate' && args.length === 2) {
      const width = intArg(args[0]);
      const name = column(args[1]);
      return { sourceColumn: name, transform: { kind: 'truncate', width }, name: `${name}_trunc` };
    }
    throw new FloeError(SqlState.invalidParameterValue, `unknown partition transform ${fn}/${args.length}`, {
      position: positionOf(el), hint: 'Use a column, year(c), month(c), day(c), hour(c), bucket(n, c) or truncate(n, c).',
    });
  }
  throw new FloeError(SqlState.invalidParameterValue, 'a partition field must be a column or a transform call', { position: positionOf(el) });
}

export function bindCreateTable(ctx: BindContext, n: Raw): BoundStatement {
  const rv = n.relation;
  if (n.inhRelations?.length || n.partbound || n.ofTypename) {
    throw new FloeError(SqlState.featureNotSupported, 'table inheritance and partitions of tables are not supported', { position: positionOf(rv) });
  }
  const columns: ColumnSpec[] = [];
  let primaryKey: string[] = [];
  const unique: UniqueSpec[] = [];
  // CHECK and FOREIGN KEY nodes (with the column a column constraint sits on), bound after the columns.
  const constraintNodes: { node: Raw; column?: string }[] = [];
  const likeChecks: TableConstraint[] = [];
  for (const el of (n.tableElts as Raw[] | undefined) ?? []) {
    const [tag, e] = unwrap(el);
    if (tag === 'ColumnDef') {
      const col = bindColumnDef(ctx, e);
      if (columns.some((c) => c.name === col.spec.name)) {
        throw new FloeError(SqlState.duplicateColumn, `column "${col.spec.name}" specified more than once`, { position: positionOf(e) });
      }
      columns.push(col.spec);
      unique.push(...col.unique);
      for (const node of col.constraintNodes) constraintNodes.push({ node, column: col.spec.name });
      if (col.primaryKey) {
        if (primaryKey.length > 0) throw new FloeError(SqlState.syntaxError ?? '42P16', `multiple primary keys for table "${rv.relname}" are not allowed`, { position: positionOf(e) });
        primaryKey = [col.spec.name];
      }
    } else if (tag === 'TableLikeClause') {
      const like = bindTableLike(ctx, e);
      for (const c of like.columns) {
        if (columns.some((x) => x.name === c.name)) throw new FloeError(SqlState.duplicateColumn, `column "${c.name}" specified more than once`);
        columns.push(c);
      }
      if (like.primaryKey.length > 0) {
        if (primaryKey.length > 0) throw new FloeError('42P16', `multiple primary keys for table "${rv.relname}" are not allowed`, { position: positionOf(e) });
        primaryKey = [...like.primaryKey];
      }
      unique.push(...like.unique);
      likeChecks.push(...like.checks);
    } else if (tag === 'Constraint' && e.contype === 'CONSTR_UNIQUE') {
      unique.push(uniqueSpecOf(e));
    } else if (tag === 'Constraint') {
      if (e.contype === 'CONSTR_CHECK' || e.contype === 'CONSTR_FOREIGN') {
        constraintNodes.push({ node: e });
        continue;
      }
      if (e.contype !== 'CONSTR_PRIMARY') {
        throw new FloeError(SqlState.featureNotSupported, `${String(e.contype).replace('CONSTR_', '')} constraints are not supported`, { position: positionOf(e) });
      }
      if (primaryKey.length > 0) throw new FloeError('42P16', `multiple primary keys for table "${rv.relname}" are not allowed`, { position: positionOf(e) });
      primaryKey = strList(e.keys);
    } else {
      throw new FloeError(SqlState.featureNotSupported, `unsupported table element ${tag}`, { position: positionOf(el) });
    }
  }
  for (const k of primaryKey) {
    const i = columns.findIndex((c) => c.name === k);
    if (i < 0) throw new FloeError(SqlState.undefinedColumn, `column "${k}" named in key does not exist`, { position: positionOf(rv) });
    columns[i] = { ...columns[i]!, nullable: false };
  }
  // Partition spec: Floe's `PARTITION BY (…)` (lifted by the pre-pass) or PostgreSQL's `PARTITION BY RANGE|LIST|HASH (…)`.
  const lifted = ctx.stmt.lake.find((c): c is PartitionSpecClause => c.kind === 'partitionSpec');
  let elements: Raw[] = lifted ? [...lifted.elements] : [];
  if (n.partspec) {
    elements = (n.partspec.partParams as Raw[]).map((p) => {
      const pe = unwrap(p)[1];
      return pe.name ? { ColumnRef: { fields: [{ String: { sval: pe.name } }], location: pe.location } } : pe.expr;
    });
  }
  const partitionBy = elements.map((el) => partitionField(el, columns));
  const properties = propertiesOf(n.options);
  const { table, temporary } = createTableTarget(ctx, rv, n.oncommit);
  const host: ConstraintHost = { id: 0, namespace: table.namespace, name: table.name, columns, taken: new Set(primaryKey.length > 0 ? [`${table.name}_pkey`] : []) };
  // Named constraints claim their names before unnamed ones are chosen, as in PostgreSQL.
  for (const { node } of constraintNodes) if (node.conname) host.taken.add(node.conname);
  for (const k of likeChecks) host.taken.add(k.name);
  const constraints = [...likeChecks, ...constraintNodes.map(({ node, column }) => {
    if (node.conname) host.taken.delete(node.conname);
    return bindTableConstraint(ctx, node, host, column)!;
  })];
  checkForeignKeyPersistence(temporary !== undefined, constraints);
  void str;
  return {
    kind: 'ddl',
    command: {
      kind: 'createTable', table, ifNotExists: Boolean(n.if_not_exists),
      columns, primaryKey, partitionBy, properties, ...(constraints.length > 0 ? { constraints } : {}), ...(unique.length > 0 ? { unique } : {}),
      ...(temporary ? { temporary } : {}),
    },
  };
}
