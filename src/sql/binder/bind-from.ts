import { isTempNamespaceName } from '../../common/temp-namespace.js';
import { AclRight } from '../../lake/index.js';
import { isOptionsToTable, optionsToTableSubselect } from './options-to-table.js';
import { isPublicationTablesCall, publicationTablesSubselect } from './publication-tables-function.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, type ScanSnapshotSelector } from '../../exec/index.js';
import {
  LogicalCteScan, LogicalFilter, LogicalJoin, type LogicalPlan, LogicalProject, LogicalScan, LogicalValues, LogicalVirtualScan,
} from '../../planner/index.js';
import type { CatalogTable, RowSecurityCommand } from '../bind-env.js';
import { parseCheckText } from './bind-table-constraint.js';
import type { TimeTravelClause } from '../parser/lake-clause.js';
import { positionOf, strList, unwrap, type Raw } from './ast.js';
import type { BindContext, BoundQuery } from './bind-context.js';
import { bindCondition, bindExpr } from './bind-expr.js';
import { bindOperator } from './bind-operator.js';
import { bindSubquery, outputCols } from './bind-query.js';
import { coerceTo } from './coerce.js';
import { isLiteralValue, isParameterValue } from './constant-or-parameter.js';
import { relationOid, resolveRelation, type ResolvedRelation } from './resolve-relation.js';
import { bindViewQuery } from './bind-view.js';
import { bindLateralRight, lateralApply, lateralJoin } from './bind-lateral.js';
import { bindRangeFunction } from './bind-range-function.js';
import { bindTableSample } from './bind-table-sample.js';
import type { Scope, ScopeColumn } from './scope.js';

export interface BoundFrom {
  readonly plan: LogicalPlan;
  readonly scope: Scope;
}

/** FROM a, b, … (cross joined; WHERE conditions are pushed into them by the planner). No FROM: one empty row. */
export function bindFromClause(
  ctx: BindContext, items: readonly Raw[] | undefined, parent: Scope | undefined, correlation: { correlated: boolean },
): BoundFrom {
  if (!items || items.length === 0) {
    return { plan: LogicalValues.create({ rows: [[]], columns: [] }), scope: { columns: [], ...(parent ? { parent } : {}), correlation } };
  }
  let acc: BoundFrom | undefined;
  for (const item of items) {
    const next = bindFromItem(ctx, item, parent, correlation, acc);
    if ((next as { replacesLeft?: boolean }).replacesLeft) { acc = next; continue; }
    if (acc) checkDuplicateAliases(acc.scope, next.scope, item);
    acc = acc === undefined ? next : crossJoin(acc, next, parent, correlation);
  }
  return acc!;
}

/** PostgreSQL's 42712: two FROM items may not expose the same name. */
function checkDuplicateAliases(left: Scope, right: Scope, item: Raw): void {
  const names = new Set(left.columns.map((c) => c.relation).filter((r): r is string => r !== undefined));
  for (const c of right.columns) {
    if (c.relation !== undefined && names.has(c.relation)) {
      throw new FloeError('42712', `table name "${c.relation}" specified more than once`, { position: positionOf(item) });
    }
  }
}

function crossJoin(left: BoundFrom, right: BoundFrom, parent: Scope | undefined, correlation: { correlated: boolean }): BoundFrom {
  const plan = LogicalJoin.create({ joinType: 'inner', left: left.plan, right: right.plan, columns: [...left.plan.columns, ...right.plan.columns] });
  return { plan, scope: joinedScope(left.scope, right.scope, parent, correlation) };
}

function joinedScope(left: Scope, right: Scope, parent: Scope | undefined, correlation: { correlated: boolean }): Scope {
  const offset = left.columns.length;
  return {
    columns: [...left.columns, ...right.columns.map((c) => ({ ...c, index: c.index + offset }))],
    ...(parent ? { parent } : {}),
    correlation,
  };
}

/** One FROM item; `lateralLeft` is what precedes it (visible to LATERAL subqueries). */
export function bindFromItem(
  ctx: BindContext, item: Raw, parent: Scope | undefined, correlation: { correlated: boolean }, lateralLeft?: BoundFrom,
): BoundFrom {
  const [tag, n] = unwrap(item);
  switch (tag) {
    case 'RangeVar': return bindRangeVar(ctx, n, parent, correlation);
    case 'RangeSubselect': {
      const alias = n.alias?.aliasname as string | undefined;
      if (n.lateral && lateralLeft) {
        // Earlier items are outer rows to a LATERAL subquery; one that reads them runs per row.
        const inner = { correlated: false };
        const query = bindSubquery(ctx, n.subquery, lateralLeft.scope, inner);
        const right = fromQuery(query, alias, strList(n.alias?.colnames), parent, correlation, n);
        return inner.correlated ? lateralApply(ctx, lateralLeft, right, 'inner', parent, correlation) : right;
      }
      // A reference from the subquery to an outer query makes the enclosing query correlated too.
      const query = bindSubquery(ctx, n.subquery, parent, correlation);
      return fromQuery(query, alias, strList(n.alias?.colnames), parent, correlation, n);
    }
    case 'JoinExpr': return bindJoin(ctx, n, parent, correlation);
    case 'RangeFunction':
      if (isOptionsToTable(n)) return bindFromItem(ctx, optionsToTableSubselect(n), parent, correlation, lateralLeft);
      if (isPublicationTablesCall(n)) return bindFromItem(ctx, publicationTablesSubselect(n), parent, correlation, lateralLeft);
      return bindRangeFunction(ctx, n, parent, correlation, lateralLeft);
    case 'RangeTableSample': return bindTableSample(ctx, n, parent, (rel) => bindFromItem(ctx, rel, parent, correlation, lateralLeft));
    default:
      throw new FloeError(SqlState.featureNotSupported, `unsupported FROM item: ${tag}`, { position: positionOf(item) });
  }
}

export function fromQuery(
  query: BoundQuery, alias: string | undefined, colnames: readonly string[], parent: Scope | undefined,
  correlation: { correlated: boolean }, n: Raw,
): BoundFrom {
  if (colnames.length > query.columns.length) {
    throw new FloeError(SqlState.invalidColumnReference ?? '42P10', `table "${alias}" has ${query.columns.length} columns available but ${colnames.length} columns specified`, { position: positionOf(n) });
  }
  const columns: ScopeColumn[] = query.columns.map((c, i) => ({
    name: colnames[i] ?? c.name, index: i, type: c.type, tableOid: c.tableOid, columnNumber: c.columnNumber,
    ...(alias === undefined ? {} : { relation: alias }),
  }));
  let plan = query.plan;
  if (colnames.length > 0) {
    plan = LogicalProject.create({ input: plan, exprs: columns.map((c) => Exprs.column(c.index, c.type, c.name)), columns: outputCols(columns) });
  }
  return { plan, scope: { columns, ...(parent ? { parent } : {}), correlation } };
}

function timeTravelFor(ctx: BindContext, rv: Raw): TimeTravelClause | undefined {
  return ctx.stmt.lake.find((c): c is TimeTravelClause => c.kind === 'timeTravel' && c.tableLocation === rv.location);
}

function bindRangeVar(ctx: BindContext, rv: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): BoundFrom {
  const schema = rv.schemaname as string | undefined;
  const name = rv.relname as string;
  const alias = rv.alias?.aliasname as string | undefined;
  const colnames = strList(rv.alias?.colnames);
  const travel = timeTravelFor(ctx, rv);
  if (schema === undefined && rv.catalogname === undefined) {
    const cte = ctx.lookupCte(name);
    if (cte) {
      if (travel) throw new FloeError(SqlState.featureNotSupported, 'time travel applies to tables, not WITH queries', { position: travel.location + 1 });
      const m = cte.materialized;
      const query = m === undefined ? cte.query : {
        plan: LogicalCteScan.create({ cte: m, columns: cte.query.plan.columns }), columns: cte.query.columns,
      };
      return fromQuery(query, alias ?? name, colnames, parent, correlation, rv);
    }
  }
  const rel = resolveRelation(ctx, schema, name, positionOf(rv));
  noteRead(ctx, rel);
  if (rel.kind === 'lake' && ctx.env.warehouse.getMaterializedView?.(rel.table.id)?.populated === false && ctx.env.maintainsView !== rel.table.id) {
    throw new FloeError(SqlState.objectNotInPrerequisiteState, `materialized view "${rel.table.name}" has not been populated`, { hint: 'Use the REFRESH MATERIALIZED VIEW command.' });
  }
  if (rel.kind !== 'virtual') ctx.relationsRead.add(relationOid(rel));
  if (rel.kind !== 'virtual' && isTempNamespaceName(rel.kind === 'lake' ? rel.table.namespace : rel.view.namespace)) ctx.readsTemporaryRelation = true;
  if (rel.kind === 'view') {
    if (travel) throw new FloeError(SqlState.featureNotSupported, 'time travel applies to tables, not views', { position: travel.location + 1 });
    return fromQuery(bindViewQuery(ctx, rel.view, positionOf(rv)), alias ?? name, colnames, parent, correlation, rv);
  }
  return scanRelation(ctx, rel, { relation: alias ?? name, colnames, travel, parent, correlation, location: rv });
}

/** Relations only superusers may read, as PostgreSQL grants them to no one. */
const SUPERUSER_ONLY: ReadonlyMap<string, 'table' | 'view'> = new Map([
  ['pg_catalog.pg_authid', 'table'], ['pg_catalog.pg_shadow', 'view'], ['pg_catalog.pg_hba_file_rules', 'view'],
]);

/** SELECT on what FROM names: a table or view; a table's system tables (t$snapshots, …) need SELECT on the table. */
export function noteRead(ctx: BindContext, rel: ResolvedRelation): void {
  const view = ctx.enclosingView;
  if (rel.kind === 'lake') {
    ctx.access.relation({ id: rel.table.id, kind: 'table', namespace: rel.table.namespace, name: rel.table.name }, AclRight.select, view);
  } else if (rel.kind === 'view') {
    ctx.access.relation({ id: rel.view.id, kind: 'view', namespace: rel.view.namespace, name: rel.view.name }, AclRight.select, view);
  } else {
    const only = SUPERUSER_ONLY.get(`${rel.table.schema}.${rel.table.name}`);
    if (only !== undefined) ctx.access.superuserOnly({ kind: only, name: rel.table.name });
    const dollar = rel.table.name.indexOf('$');
    const base = dollar > 0 ? ctx.env.warehouse.getTable(rel.table.schema, rel.table.name.slice(0, dollar)) : undefined;
    if (base !== undefined) ctx.access.relation({ id: base.id, kind: 'table', namespace: base.namespace, name: base.name }, AclRight.select, view);
  }
}

export interface ScanOptions {
  readonly relation: string;
  readonly colnames: readonly string[];
  readonly travel: TimeTravelClause | undefined;
  readonly parent: Scope | undefined;
  readonly correlation: { correlated: boolean };
  readonly location: Raw;
  /** Extra table columns to read after the table's own (e.g. the row id for UPDATE/DELETE of append tables). */
  readonly extraColumns?: readonly { readonly name: string; readonly type: SqlType }[];
  /** The command whose row-security policies filter the scan (default SELECT's; none for TRUNCATE). */
  readonly rowSecurity?: RowSecurityCommand | 'none';
  /** A virtual relation's arguments, evaluated when the scan starts (table_changes' parameters). */
  readonly args?: readonly Expr[];
}

/** A scan of a lake table or a virtual relation, with its scope. */
export function scanRelation(ctx: BindContext, rel: ResolvedRelation, o: ScanOptions): BoundFrom {
  if (rel.kind === 'view') {
    throw new FloeError(SqlState.wrongObjectType, `cannot copy from view "${rel.view.name}"`, { hint: 'Try the COPY (SELECT ...) TO variant.' });
  }
  const schema = rel.kind === 'lake' ? rel.table.namespace : rel.table.schema;
  const oid = rel.kind === 'lake' ? rel.table.id : rel.table.oid;
  const tableCols = rel.kind === 'lake' ? rel.table.columns : rel.table.columns;
  const primaryKey = rel.kind === 'lake' && rel.table.primaryKey.length > 0 ? { tablePrimaryKey: rel.table.primaryKey } : {};
  const columns: ScopeColumn[] = tableCols.map((c, i) => ({
    name: o.colnames[i] ?? c.name, relation: o.relation, schema, index: i, type: c.type, tableOid: oid, columnNumber: i + 1, ...primaryKey,
    ...('system' in c && c.system === true ? { hidden: true, system: true, columnNumber: 0 } : {}),
    ...('hidden' in c && c.hidden === true ? { hidden: true, system: true } : {}),
  }));
  for (const extra of o.extraColumns ?? []) {
    columns.push({ name: extra.name, relation: o.relation, schema, index: columns.length, type: extra.type, tableOid: 0, columnNumber: 0, hidden: true });
  }
  const scope: Scope = { columns, ...(o.parent ? { parent: o.parent } : {}), correlation: o.correlation };
  if (rel.kind === 'virtual') {
    if (o.travel) throw new FloeError(SqlState.featureNotSupported, `time travel is not supported on ${schema}.${rel.table.name}`, { position: o.travel.location + 1 });
    const plan = LogicalVirtualScan.create({
      schema, name: rel.table.name, projection: rel.table.columns.map((_c, i) => i), columns: outputCols(columns), ...(o.args === undefined ? {} : { args: o.args }),
    });
    const rows = rowBearingBase(ctx, schema, rel.table.name);
    return { plan: rows === undefined ? plan : withRowSecurity(ctx, rows, plan, 'select'), scope };
  }
  let at: ScanSnapshotSelector | undefined = rel.branch === undefined ? undefined : { kind: 'ref', name: rel.branch };
  if (o.travel) {
    if (rel.branch !== undefined) throw new FloeError(SqlState.syntaxError, 'a branch reference cannot also travel in time', { position: o.travel.location + 1 });
    at = snapshotSelector(ctx, o.travel);
  }
  const scan = LogicalScan.create({
    table: { ...scanTableOf(rel.table), ...rowEstimateOf(ctx, rel.table) }, ...(at ? { at } : {}),
    projection: [...rel.table.columns.map((c) => c.name), ...(o.extraColumns ?? []).map((c) => c.name)],
    filters: [], columns: outputCols(columns),
  });
  return { plan: withRowSecurity(ctx, rel.table, scan, o.rowSecurity ?? 'select'), scope };
}

/**
 * The table whose rows a system table shows (`t$audit_log`, table_changes' relation), so
 * its row-security policies filter them too: they lead with the table's columns.
 */
function rowBearingBase(ctx: BindContext, schema: string, name: string): CatalogTable | undefined {
  // t$audit_log, t$branch_b$audit_log, and table_changes' t$table_changes:…
  const m = /^([^$]+)(?:\$branch_[^$]+)?\$(?:audit_log|table_changes:.*)$/.exec(name);
  return m === null ? undefined : ctx.env.warehouse.getTable(schema, m[1]!);
}

/**
 * A scan filtered by the table's row-security policies (USING), bound over the table's own
 * column names whatever the alias; a policy's columns need no SELECT privilege of the user.
 * Time travel and branches are filtered alike: the policy applies to every read path.
 */
export function withRowSecurity(ctx: BindContext, table: CatalogTable, scan: LogicalPlan, command: RowSecurityCommand | 'none'): LogicalPlan {
  if (command === 'none') return scan;
  const using = ctx.env.rowSecurity?.(table.id, command, ctx.enclosingView)?.using;
  if (using === undefined) return scan;
  const scope: Scope = {
    columns: table.columns.map((c, i) => ({ name: c.name, relation: table.name, schema: table.namespace, index: i, type: c.type, tableOid: 0, columnNumber: 0 })),
  };
  const predicate = bindCondition(ctx, parseCheckText(using), { scope, clause: 'WHERE' });
  return LogicalFilter.create({ input: scan, predicate, columns: scan.columns, barrier: true });
}

function rowEstimateOf(ctx: BindContext, t: CatalogTable): { rowEstimate?: number; columnRanges?: Readonly<Record<string, readonly [number, number]>> } {
  const n = ctx.env.estimateRows?.(t);
  const ranges = ctx.env.columnRanges?.(t);
  return { ...(n === undefined ? {} : { rowEstimate: n }), ...(ranges === undefined ? {} : { columnRanges: ranges }) };
}

export function scanTableOf(t: CatalogTable): LogicalScan['table'] {
  return {
    id: t.id, namespace: t.namespace, name: t.name,
    columns: t.columns.map((c) => ({ name: c.name, type: c.type })),
    primaryKey: t.primaryKey,
    partitionColumns: (t.partitionBy ?? []).map((p) => p.sourceColumn),
    ...mergeEngineField(t),
  };
}

function mergeEngineField(t: CatalogTable): { mergeEngine?: string } {
  const engine = t.properties?.['merge-engine'];
  return engine === undefined || engine === 'deduplicate' || t.primaryKey.length === 0 ? {} : { mergeEngine: engine };
}

/**
 * The AS OF value as a lake snapshot selector. A version is a constant (snapshot id,
 * tag or branch name) or a parameter, whose text is read when the scan starts. A time is
 * folded here when it is a literal (a timestamp without a zone is read as UTC); any other
 * timestamp expression — `now() - interval '1 day'`, `$1`, a literal in a named zone — is
 * kept and evaluated when the scan starts.
 */
function snapshotSelector(ctx: BindContext, travel: TimeTravelClause): ScanSnapshotSelector {
  const es = { scope: { columns: [] }, clause: 'AS OF' };
  const e = bindExpr(ctx, travel.expr, es);
  const position = positionOf(travel.expr);
  const notConstant = (): FloeError => new FloeError(SqlState.featureNotSupported,
    'the AS OF value must be a constant', { position });
  const isConstant = isLiteralValue(e);
  if (travel.mode === 'systemTime' && !isConstant) return timestampAtRun(ctx, e, position);
  if (travel.mode === 'systemVersion' && isParameterValue(e)) {
    return { kind: 'versionExpr', expr: coerceTo(ctx, e, { kind: 'text' }, 'explicit', position) };
  }
  if (!isConstant) throw notConstant();
  if (travel.mode === 'systemVersion') {
    const lit = e.kind === 'literal' ? e : e.arg;
    if (e.kind === 'literal' && (e.type.kind === 'int4' || e.type.kind === 'int8')) return { kind: 'version', value: String(e.value) };
    if (lit.kind === 'literal' && typeof lit.value === 'string') return { kind: 'version', value: lit.value };
    throw new FloeError(SqlState.datatypeMismatch, 'SYSTEM_VERSION AS OF needs a snapshot id, tag or branch name', { position });
  }
  if (e.kind === 'literal' && (e.type.kind === 'int4' || e.type.kind === 'int8')) {
    throw new FloeError(SqlState.datatypeMismatch, 'SYSTEM_TIME AS OF needs a timestamp', { position });
  }
  const lit = e.kind === 'literal' ? e : e.arg;
  if (lit.kind !== 'literal') throw notConstant();
  if (typeof lit.value === 'bigint' && (e.type.kind === 'timestamptz' || e.type.kind === 'timestamp')) return { kind: 'timestamp', micros: lit.value };
  // A date is its midnight UTC (days since 1970-01-01 in the canonical form).
  if (typeof lit.value === 'number' && e.type.kind === 'date' && Number.isFinite(lit.value)) return { kind: 'timestamp', micros: BigInt(lit.value) * 86_400_000_000n };
  if (typeof lit.value === 'string') {
    // A zone counts only after a time of day, so a bare date ('2024-01-31') is read as UTC midnight too.
    const text = lit.value.trim();
    const zoned = /\d:\d{2}(:\d{2}(\.\d+)?)?\s*([zZ]|[+-]\d{1,2}(:?\d{2})?|[A-Za-z][A-Za-z_/+-]*)$/.test(text);
    const withZone = zoned ? text : /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text} 00:00:00+00` : `${text}+00`;
    const tz = coerceTo(ctx, Exprs.literal(withZone, { kind: 'unknown' }), { kind: 'timestamptz' }, 'explicit', position);
    if (tz.kind === 'literal' && typeof tz.value === 'bigint') return { kind: 'timestamp', micros: tz.value };
    // A named zone ('… Europe/Paris') is read with the zone rules at run time.
    if (zoned) return { kind: 'timestampExpr', expr: tz };
  }
  throw new FloeError(SqlState.invalidDatetimeFormat, 'SYSTEM_TIME AS OF needs a timestamp like \'2024-01-31 12:00:00+00\'', { position });
}

/** A non-constant AS OF time: any expression that casts to timestamptz and reads no column. */
function timestampAtRun(ctx: BindContext, e: Expr, position: number | undefined): ScanSnapshotSelector {
  if (e.type.kind !== 'timestamptz' && e.type.kind !== 'timestamp' && e.type.kind !== 'date' && e.type.kind !== 'unknown') {
    throw new FloeError(SqlState.datatypeMismatch, 'SYSTEM_TIME AS OF needs a timestamp', { position });
  }
  return { kind: 'timestampExpr', expr: coerceTo(ctx, e, { kind: 'timestamptz' }, 'explicit', position) };
}

// ---------------------------------------------------------------- joins

function bindJoin(ctx: BindContext, j: Raw, parent: Scope | undefined, correlation: { correlated: boolean }): BoundFrom {
  const left = bindFromItem(ctx, j.larg, parent, correlation);
  const lateral = bindLateralRight(ctx, j.rarg, left, parent, correlation);
  if (lateral?.correlated) return lateralJoin(ctx, j, left, lateral.right, parent, correlation);
  const right = lateral?.right ?? bindFromItem(ctx, j.rarg, parent, correlation);
  const joinType = ({ JOIN_INNER: 'inner', JOIN_LEFT: 'left', JOIN_RIGHT: 'right', JOIN_FULL: 'full' } as const)[j.jointype as 'JOIN_INNER'];
  if (!joinType) throw new FloeError(SqlState.featureNotSupported, `unsupported join type ${j.jointype}`, { position: positionOf(j) });
  checkDuplicateAliases(left.scope, right.scope, j.rarg);
  const scope = joinedScope(left.scope, right.scope, parent, correlation);
  let condition: Expr | undefined;
  let columns = [...scope.columns];
  let usingNames: string[] = strList(j.usingClause);
  if (j.isNatural) {
    const rightNames = new Set(right.scope.columns.filter((c) => !c.hidden).map((c) => c.name));
    usingNames = left.scope.columns.filter((c) => !c.hidden && rightNames.has(c.name)).map((c) => c.name);
  }
  if (usingNames.length > 0) {
    const parts: Expr[] = [];
    for (const name of usingNames) {
      const l = left.scope.columns.filter((c) => !c.hidden && c.name === name);
      const r = right.scope.columns.filter((c) => !c.hidden && c.name === name);
      if (l.length !== 1 || r.length !== 1) {
        const side = l.length !== 1 ? 'left' : 'right';
        const count = side === 'left' ? l.length : r.length;
        throw new FloeError(count === 0 ? SqlState.undefinedColumn : SqlState.ambiguousColumn,
          count === 0 ? `column "${name}" specified in USING clause does not exist in ${side} table` : `common column name "${name}" appears more than once in ${side} table`,
          { position: positionOf(j) });
      }
      const li = l[0]!.index;
      const ri = r[0]!.index + left.scope.columns.length;
      parts.push(bindOperator(ctx, '=', Exprs.column(li, l[0]!.type, name), Exprs.column(ri, r[0]!.type, name), j));
      // The merged column is reachable unqualified through the left side; the right one only by qualifier.
      columns = columns.map((c) => (c.index === ri ? { ...c, hidden: true } : c));
    }
    condition = parts.length === 1 ? parts[0]! : { kind: 'and', args: parts, type: { kind: 'bool' } };
  }
  const joined: Scope = { columns, ...(parent ? { parent } : {}), correlation };
  if (j.quals) condition = bindCondition(ctx, j.quals, { scope: joined, clause: 'JOIN/ON' });
  const plan = LogicalJoin.create({
    joinType, left: left.plan, right: right.plan, ...(condition ? { condition } : {}),
    columns: [...left.plan.columns, ...right.plan.columns],
  });
  const alias = j.alias?.aliasname as string | undefined;
  if (alias !== undefined) {
    columns = columns.map((c) => ({ ...c, relation: alias }));
  }
  return { plan, scope: { columns, ...(parent ? { parent } : {}), correlation } };
}
