import { unwrap, str, strList, type Raw } from '../binder/ast.js';

/*
 * What a materialized view's query is, as incremental maintenance sees it. Each shape has
 * its own way to turn base-table changes into view changes (refresh-statements.ts); a
 * query of no supported shape is refreshed in full, for the reason given.
 */

/** A keyed lake table the query reads, at one place in its FROM clause. */
export interface BaseRelation {
  readonly tableId: number;
  readonly namespace: string;
  readonly name: string;
  readonly primaryKey: readonly string[];
  /** Its columns a query can name, in order (a refresh reading its changelog selects these). */
  readonly columns: readonly string[];
  /** The name its columns are qualified by in the query (alias, else table name). */
  readonly rangeName: string;
  /**
   * The ON condition of the LEFT JOIN whose right side this relation is; undefined when no
   * outer join pads it. Such a relation's rows are not linear in the query (a change moves a
   * left row between matched and padded), so its refresh term re-evaluates the left rows
   * this condition matches to its changes, at both snapshots.
   */
  readonly outerJoinOn?: Raw;
}

/** An aggregate call the view outputs, and the partial results a refresh keeps for it. */
export type AggregateKind = 'count*' | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'bool_and' | 'bool_or';

export type ViewOutput =
  | { readonly kind: 'group'; readonly expr: Raw }
  | { readonly kind: 'aggregate'; readonly fn: AggregateKind; readonly arg: Raw | undefined };

/** One SELECT … FROM … WHERE … of the query (a UNION ALL has several). */
export interface ViewArm {
  /** The SELECT's parse node (unwrapped); its FROM items are substituted per refresh term. */
  readonly select: Raw;
  /** Base relations in the FROM clause, in depth-first order (baseRangeVars). */
  readonly relations: readonly BaseRelation[];
}

export type ViewShape =
  /** SELECT [DISTINCT] group keys and aggregates … GROUP BY: one view row per group. */
  | { readonly kind: 'aggregate'; readonly arm: ViewArm; readonly outputs: readonly ViewOutput[]; readonly groups: readonly Raw[] }
  /** Projections and filters over inner and left joins, and UNION ALL of them: one view row per combination of base rows. */
  | { readonly kind: 'linear'; readonly arms: readonly ViewArm[] }
  | { readonly kind: 'full'; readonly reason: string };

/** How a FROM clause's table resolves: a keyed lake table, or why it cannot be maintained. */
export type RelationLookup = (rv: Raw) => { readonly table: Omit<BaseRelation, 'rangeName'> } | { readonly why: string };

const AGGREGATES: ReadonlyMap<string, AggregateKind> = new Map([
  ['count', 'count'], ['sum', 'sum'], ['avg', 'avg'], ['min', 'min'], ['max', 'max'], ['bool_and', 'bool_and'], ['bool_or', 'bool_or'], ['every', 'bool_and'],
]);

/** Functions whose value depends on when they run: a view maintained from changes would keep stale values. */
const TIME_DEPENDENT = new Set(['now', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp', 'timeofday', 'random', 'gen_random_uuid', 'nextval', 'currval', 'setval', 'txid_current']);

class NotIncremental extends Error {}

function refuse(reason: string): never {
  throw new NotIncremental(reason);
}

/** The shape of a view's SELECT (`select` unwrapped). `volatile`: the bound query calls a volatile function. */
export function viewShape(select: Raw, lookup: RelationLookup, volatile: boolean): ViewShape {
  try {
    if (volatile) refuse('the query calls a volatile function');
    checkTree(select);
    if (select.op === 'SETOP_UNION' && select.all === true) {
      const arms = unionArms(select).map((a) => linearArm(a, lookup));
      return { kind: 'linear', arms };
    }
    if (select.op !== undefined && select.op !== 'SETOP_NONE') refuse('UNION, INTERSECT and EXCEPT other than UNION ALL of plain queries');
    checkPlainSelect(select);
    const aggregated = (select.groupClause?.length ?? 0) > 0 || select.distinctClause !== undefined || (select.targetList as Raw[]).some((t) => containsAggregate(t.ResTarget?.val));
    if (!aggregated) return { kind: 'linear', arms: [linearArm(select, lookup)] };
    return aggregateShape(select, lookup);
  } catch (e) {
    if (e instanceof NotIncremental) return { kind: 'full', reason: e.message };
    throw e;
  }
}

function unionArms(s: Raw): Raw[] {
  if (s.op === 'SETOP_UNION' && s.all === true) {
    if (s.sortClause !== undefined || s.limitCount !== undefined || s.limitOffset !== undefined) refuse('ORDER BY or LIMIT on a UNION ALL');
    return [...unionArms(unwrap(s.larg)[1] ?? s.larg), ...unionArms(unwrap(s.rarg)[1] ?? s.rarg)];
  }
  if (s.op !== undefined && s.op !== 'SETOP_NONE') refuse('UNION, INTERSECT and EXCEPT other than UNION ALL of plain queries');
  return [s];
}

function linearArm(s: Raw, lookup: RelationLookup): ViewArm {
  checkPlainSelect(s);
  if ((s.groupClause?.length ?? 0) > 0 || s.distinctClause !== undefined || (s.targetList as Raw[]).some((t) => containsAggregate(t.ResTarget?.val))) {
    refuse('a UNION ALL arm with GROUP BY, DISTINCT or aggregates');
  }
  return { select: s, relations: baseRelations(s, lookup) };
}

function checkPlainSelect(s: Raw): void {
  if (s.withClause !== undefined) refuse('WITH queries');
  if (s.valuesLists !== undefined) refuse('VALUES');
  if (s.limitCount !== undefined || s.limitOffset !== undefined) refuse('LIMIT or OFFSET');
  if (s.havingClause !== undefined) refuse('HAVING');
  if (s.windowClause !== undefined) refuse('window functions');
  if (s.lockingClause !== undefined) refuse('FOR UPDATE');
  if (s.fromClause === undefined || s.fromClause.length === 0) refuse('a query without FROM');
  if (s.distinctClause !== undefined && !(s.distinctClause as Raw[]).every((d) => d === null || Object.keys(d ?? {}).length === 0)) refuse('DISTINCT ON');
}

/** Subqueries, window calls and time-dependent functions anywhere in the query. */
function checkTree(node: Raw): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) { for (const x of node) checkTree(x); return; }
  const [tag, body] = unwrap(node);
  if (tag === 'SubLink' || tag === 'RangeSubselect') refuse('subqueries');
  if (tag === 'RangeFunction') refuse('functions in FROM');
  if (tag === 'SQLValueFunction') refuse('the current date, time or user');
  if (tag === 'FuncCall') {
    if (body.over !== undefined) refuse('window functions');
    const name = str((body.funcname as Raw[])[(body.funcname as Raw[]).length - 1]);
    if (TIME_DEPENDENT.has(name)) refuse(`${name}()`);
  }
  for (const v of Object.values(node)) checkTree(v);
}

function containsAggregate(node: Raw): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(containsAggregate);
  const [tag, body] = unwrap(node);
  if (tag === 'FuncCall' && (body.agg_star === true || AGGREGATES.has(str((body.funcname as Raw[])[(body.funcname as Raw[]).length - 1])))) return true;
  return Object.values(node).some(containsAggregate);
}

/** A table of a FROM clause, and the ON condition of the LEFT JOIN that pads it, if one does. */
interface FromTable {
  readonly rv: Raw;
  readonly outerJoinOn: Raw | undefined;
}

/**
 * The FROM clause's tables, depth first. Inner joins, and LEFT JOINs whose right side is one
 * table joined ON a condition; other joins are refused.
 */
function fromTables(fromClause: readonly Raw[]): FromTable[] {
  const out: FromTable[] = [];
  const visit = (item: Raw, outerJoinOn: Raw | undefined): void => {
    const [tag, n] = unwrap(item);
    if (tag === 'RangeVar') out.push({ rv: n, outerJoinOn });
    else if (tag === 'JoinExpr') {
      if (n.isNatural === true) refuse('NATURAL joins');
      if (n.alias !== undefined) refuse('an aliased join');
      if (n.jointype === 'JOIN_LEFT') {
        if (unwrap(n.rarg)[0] !== 'RangeVar') refuse('a LEFT JOIN whose right side is a join');
        if (n.usingClause !== undefined || n.quals === undefined) refuse('a LEFT JOIN with USING');
        // A refresh reads the condition with the right side renamed to its changes (refresh-statements.ts).
        if (namesSchemaQualifiedColumn(n.quals)) refuse('a LEFT JOIN condition naming a column with its schema');
        visit(n.larg, undefined);
        visit(n.rarg, n.quals);
      } else {
        if (n.jointype !== 'JOIN_INNER') refuse('RIGHT and FULL joins');
        visit(n.larg, undefined);
        visit(n.rarg, undefined);
      }
    } else refuse(`${tag} in FROM`);
  };
  for (const item of fromClause) visit(item, undefined);
  return out;
}

function namesSchemaQualifiedColumn(node: Raw): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(namesSchemaQualifiedColumn);
  const [tag, body] = unwrap(node);
  if (tag === 'ColumnRef' && (body.fields as Raw[]).length >= 3) return true;
  return Object.values(node).some(namesSchemaQualifiedColumn);
}

/** The FROM clause's tables, depth first; refuses joins fromTables does not take. */
export function baseRangeVars(fromClause: readonly Raw[]): Raw[] {
  return fromTables(fromClause).map((t) => t.rv);
}

function baseRelations(s: Raw, lookup: RelationLookup): BaseRelation[] {
  return fromTables(s.fromClause).map(({ rv, outerJoinOn }) => {
    const found = lookup(rv);
    if ('why' in found) refuse(found.why);
    if ((rv.alias?.colnames?.length ?? 0) > 0) refuse('column aliases on a table in FROM');
    return { ...found.table, rangeName: (rv.alias?.aliasname as string | undefined) ?? (rv.relname as string), ...(outerJoinOn === undefined ? {} : { outerJoinOn }) };
  });
}

function aggregateShape(s: Raw, lookup: RelationLookup): ViewShape {
  const arm = { select: s, relations: baseRelations(s, lookup) };
  const targets = (s.targetList as Raw[]).map((t) => t.ResTarget);
  const distinct = s.distinctClause !== undefined;
  if (distinct && (s.groupClause?.length ?? 0) > 0) refuse('DISTINCT with GROUP BY');
  const groups: Raw[] = distinct ? targets.map((t) => t.val) : (s.groupClause as Raw[] | undefined ?? []).map((g) => groupExpr(g, targets));
  for (const g of groups) if (containsStar(g)) refuse('SELECT DISTINCT *');
  const outputs = targets.map((t): ViewOutput => {
    if (containsStar(t.val)) refuse('* in a grouped query');
    const agg = aggregateCall(t.val);
    if (agg !== undefined) return agg;
    if (containsAggregate(t.val)) refuse('an expression over an aggregate');
    if (!groups.some((g) => sameExpr(g, t.val))) refuse('an output that is not a GROUP BY expression or an aggregate');
    return { kind: 'group', expr: t.val };
  });
  return { kind: 'aggregate', arm, outputs, groups };
}

function aggregateCall(node: Raw): ViewOutput | undefined {
  const [tag, f] = unwrap(node);
  if (tag !== 'FuncCall') return undefined;
  const names = strList(f.funcname);
  const name = names[names.length - 1]!;
  if (names.length > 1 && names[0] !== 'pg_catalog') return undefined;
  const kind = AGGREGATES.get(name);
  if (kind === undefined) return undefined;
  if (f.agg_distinct === true || f.agg_filter !== undefined || f.agg_order !== undefined || f.agg_within_group === true || f.func_variadic === true) {
    refuse(`${name}() with DISTINCT, FILTER or ORDER BY`);
  }
  if (f.agg_star === true) return kind === 'count' ? { kind: 'aggregate', fn: 'count*', arg: undefined } : refuse(`${name}(*)`);
  const args = (f.args as Raw[] | undefined) ?? [];
  if (args.length !== 1) refuse(`${name}() of ${args.length} arguments`);
  if (containsAggregate(args[0])) refuse('nested aggregates');
  return { kind: 'aggregate', fn: kind, arg: args[0] };
}

/** A GROUP BY item as an expression: an output position stands for that output's expression. */
function groupExpr(g: Raw, targets: readonly Raw[]): Raw {
  const [tag, n] = unwrap(g);
  if (tag === 'GroupingSet') refuse('GROUPING SETS, ROLLUP and CUBE');
  if (tag === 'A_Const' && n.ival !== undefined) {
    const t = targets[Number(n.ival.ival ?? 0) - 1];
    if (t === undefined) refuse('a GROUP BY position out of range');
    return t.val;
  }
  if (tag === 'ColumnRef' && n.fields.length === 1) {
    // A bare name may be an output's name (PostgreSQL prefers the input column): only the plain case is kept.
    const name = str(n.fields[0]);
    const named = targets.find((t) => t.name === name);
    if (named !== undefined && !sameExpr(named.val, g)) refuse(`GROUP BY "${name}", an output name`);
  }
  return g;
}

function containsStar(node: Raw): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(containsStar);
  if (unwrap(node)[0] === 'A_Star') return true;
  return Object.values(node).some(containsStar);
}

/** Two expressions written alike (locations aside). */
export function sameExpr(a: Raw, b: Raw): boolean {
  return exprKey(a) === exprKey(b);
}

const frozenKeys = new WeakMap<object, string>();

/**
 * A parse tree's text for comparing it with others, locations aside. A frozen tree's (a
 * kept definition's: definition-shapes.ts freezes a tree from its leaves up) is kept, as
 * it cannot change.
 */
export function exprKey(node: Raw): string {
  const kept = node !== null && typeof node === 'object' && Object.isFrozen(node);
  const known = kept ? frozenKeys.get(node) : undefined;
  if (known !== undefined) return known;
  const key = JSON.stringify(node, dropLocation) ?? 'undefined';
  if (kept) frozenKeys.set(node, key);
  return key;
}

function dropLocation(key: string, value: unknown): unknown {
  return key === 'location' ? undefined : value;
}
