import type { TimeTravelClause } from '../parser/lake-clause.js';
import type { ParsedStatement } from '../parsed-statement.js';
import { unwrap, type Raw } from '../binder/ast.js';
import { cloneNode, fillTemplate, quoteIdent, quoteLiteral, selectOf, templateExpr } from './parse-template.js';
import type { PositionParameters } from './position-parameters.js';
import { referencedColumns } from './referenced-columns.js';
import type { AggregateKind, BaseRelation, ViewArm, ViewOutput, ViewShape } from './view-shape.js';

/*
 * The statements a refresh runs: each is one MERGE into the view's table, so a refresh
 * writes only the view rows that change, in one commit.
 *
 * Full: the whole query (with the view's key and aggregate state) merged against the rows
 * there. Incremental: the query evaluated over the base tables' changes since the view's
 * positions. With base relations R1…Rn, the change of the joined rows telescopes into
 * Σi Q(R1@new … Ri−1@new, ΔRi, Ri+1@old … Rn@old), where ΔRi is Ri's rows of the keys
 * changed since its position: at the new snapshot counted +1, at the old one −1. Each term
 * is the view's own SELECT with its FROM tables swapped, run once for both sides (ΔRi's rows
 * carry their sign as a column through the joins and the GROUP BY); an aggregate view adds
 * the terms' partial aggregates to the rows it keeps per group. Where Ri's changelog is complete, ΔRi is
 * its change rows instead (after-images +1, before-images −1): the term then costs what the
 * changes cost, not a scan of Ri.
 */

/** The view's table: its name, and its columns in order (the user's, then the hidden ones). */
export interface RefreshTarget {
  readonly namespace: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: string; readonly hidden: boolean }[];
}

/**
 * The snapshot of each base table (by id) the view's rows reflect (`from`), and the one a
 * refresh moves to (`to`). The statement names them as parameters (`parameters`), never as
 * values.
 */
export interface RefreshPositions {
  readonly from: ReadonlyMap<number, string>;
  readonly to: ReadonlyMap<number, string>;
  readonly parameters: PositionParameters;
  /**
   * Base tables whose every change from `from` to `to` carries its before-image (all written
   * with changelog-producer 'lookup'): their ΔR is read from the changelog alone.
   */
  readonly completeChangelogs?: ReadonlySet<number>;
  /**
   * Change sets (changeSetId) of complete changelogs found to net to nothing
   * (netChangeChecks): their relations take no term, as if unchanged.
   */
  readonly emptyChanges?: ReadonlySet<string>;
}

/** The column of a ΔR read whole that holds each row's side: +1 at the new snapshot, −1 at the old. */
const SIDE = '__floe_side';
/** The column of a term's rows that holds their sign (the side of the ΔR row they come from). */
const SIGN = '__floe_sign';

export const VIEW_KEY_COLUMN = 'floe$key';
export const VIEW_COUNT_COLUMN = 'floe$count';

/** A hidden column of an aggregate view: a partial result one output needs besides its value. */
interface StateColumn {
  readonly name: string;
  /** The aggregate that computes it over a group's rows. */
  readonly template: string;
  readonly output: number;
}

function stateColumns(outputs: readonly ViewOutput[]): StateColumn[] {
  const out: StateColumn[] = [];
  outputs.forEach((o, j) => {
    if (o.kind !== 'aggregate') return;
    const needs: Partial<Record<AggregateKind, [string, string][]>> = {
      sum: [['nn', 'count(__p_a)']],
      avg: [['sum', 'sum(__p_a)'], ['nn', 'count(__p_a)']],
      bool_and: [['nn', 'count(__p_a)'], ['false', 'sum(CASE WHEN NOT (__p_a) THEN 1 ELSE 0 END)']],
      bool_or: [['nn', 'count(__p_a)'], ['true', 'sum(CASE WHEN (__p_a) THEN 1 ELSE 0 END)']],
    };
    for (const [what, template] of needs[o.fn] ?? []) out.push({ name: `floe$${what}_${j + 1}`, template, output: j });
  });
  return out;
}

/** The hidden columns a view of this shape keeps after its own, in order (their types come from binding fullSource). */
export function hiddenColumnNames(shape: ViewShape): string[] {
  if (shape.kind === 'aggregate') return [VIEW_KEY_COLUMN, VIEW_COUNT_COLUMN, ...stateColumns(shape.outputs).map((s) => s.name)];
  return [VIEW_KEY_COLUMN];
}

/** Time travel clauses for the tables a refresh pins, at locations no text position can have. */
class SnapshotPins {
  readonly clauses: TimeTravelClause[] = [];
  #next = 1_000_000_000;

  /** `rv` (a RangeVar body, changed in place) read at the snapshot parameter `$n` holds, named with its schema. */
  pin(rv: Raw, relation: BaseRelation, n: number): void {
    const location = this.#next++;
    rv.schemaname = relation.namespace;
    rv.relname = relation.name;
    rv.location = location;
    this.clauses.push({ kind: 'timeTravel', location, tableLocation: location, mode: 'systemVersion', expr: { ParamRef: { number: n, location: -1 } } as never });
  }
}

/** The FROM clause's RangeVar wrappers (`{ RangeVar: … }`), in viewShape's depth-first order. */
function rangeVarWrappers(fromClause: readonly Raw[]): Raw[] {
  const out: Raw[] = [];
  const visit = (item: Raw): void => {
    const [tag, n] = unwrap(item);
    if (tag === 'RangeVar') out.push(item);
    else if (tag === 'JoinExpr') { visit(n.larg); visit(n.rarg); }
  };
  for (const item of fromClause) visit(item);
  return out;
}

function resTarget(val: Raw): Raw {
  return { ResTarget: { val, location: -1 } };
}

const expr = templateExpr;

/** `json_build_array(…)::text`: the view's key, one text per distinct tuple (NULLs included). */
function keyExpr(parts: readonly Raw[]): Raw {
  if (parts.length === 0) return expr("'[]'::text");
  const nodes: Record<string, Raw> = {};
  parts.forEach((p, i) => { nodes[`k${i}`] = p; });
  return expr(`json_build_array(${parts.map((_p, i) => `__p_k${i}`).join(', ')})::text`, nodes);
}

function columnRef(...names: string[]): Raw {
  return { ColumnRef: { fields: names.map((sval) => ({ String: { sval } })), location: -1 } };
}

/** A linear arm's key: its position in the UNION ALL, then every base relation's primary key. */
function linearKey(arm: ViewArm, armIndex: number, arms: number): Raw {
  const parts: Raw[] = arms > 1 ? [expr(String(armIndex))] : [];
  for (const r of arm.relations) for (const k of r.primaryKey) parts.push(columnRef(r.rangeName, k));
  return keyExpr(parts);
}

/** The arm's SELECT with ORDER BY gone and, for DISTINCT, GROUP BY its outputs instead. */
function armSelect(arm: ViewArm, groups: readonly Raw[] | undefined): Raw {
  const s = cloneNode(arm.select);
  delete s.sortClause;
  if (groups !== undefined && s.distinctClause !== undefined) {
    delete s.distinctClause;
    s.groupClause = groups.map(cloneNode);
  }
  return s;
}

/** `(select) AS alias(columns)`. */
function subselect(select: Raw, alias: string, columns: readonly string[]): Raw {
  return {
    RangeSubselect: {
      subquery: { SelectStmt: select },
      alias: { aliasname: alias, ...(columns.length > 0 ? { colnames: columns.map((sval) => ({ String: { sval } })) } : {}) },
    },
  };
}

/**
 * The whole view: its rows with the key and state, as columns of the view's table in order.
 * `pins` reads each base table at its `to` position parameter; `at` undefined leaves them
 * unpinned (CREATE binds it for the types).
 */
export function fullSource(shape: ViewShape, definition: Raw, target: RefreshTarget, at: PositionParameters | undefined, pins = new SnapshotPins()): Raw {
  const names = target.columns.map((c) => c.name);
  const visible = target.columns.filter((c) => !c.hidden).map((c) => c.name);
  if (shape.kind === 'full') {
    // No key comes from the query: a row's content and its ordinal among equal rows make one.
    const q = subselect(cloneNode(definition), '__floe_q', visible);
    const cols = visible.map((n) => quoteIdent(n)).join(', ');
    return selectOf(fillTemplate(`SELECT *, json_build_array(${cols}, row_number() OVER (PARTITION BY ${cols}))::text AS ${quoteIdent(VIEW_KEY_COLUMN)} FROM __r_q`, { q }));
  }
  const pin = (s: Raw, relations: readonly BaseRelation[]): void => {
    if (at === undefined) return;
    rangeVarWrappers(s.fromClause).forEach((w, i) => pins.pin(w.RangeVar, relations[i]!, at.number('to', relations[i]!.tableId)));
  };
  if (shape.kind === 'linear') {
    const arms = shape.arms.map((arm, i) => {
      const s = armSelect(arm, undefined);
      s.targetList = [...s.targetList, resTarget(linearKey(arm, i, shape.arms.length))];
      pin(s, arm.relations);
      return s;
    });
    const union = arms.reduce((acc, s) => ({ op: 'SETOP_UNION', all: true, larg: acc, rarg: s }));
    return selectOf(fillTemplate('SELECT * FROM __r_q', { q: subselect(union, '__floe_q', names) }));
  }
  const s = armSelect(shape.arm, shape.groups);
  s.targetList = [
    ...s.targetList, resTarget(keyExpr(shape.groups.map(cloneNode))), resTarget(expr('count(*)')),
    ...stateColumns(shape.outputs).map((c) => resTarget(expr(c.template, { a: (shape.outputs[c.output] as { arg: Raw }).arg }))),
  ];
  pin(s, shape.arm.relations);
  return selectOf(fillTemplate('SELECT * FROM __r_q', { q: subselect(s, '__floe_q', names) }));
}

function qualified(target: RefreshTarget): string {
  return `${quoteIdent(target.namespace)}.${quoteIdent(target.name)}`;
}

function setList(target: RefreshTarget, from: (c: RefreshTarget['columns'][number], i: number) => string): { sets: string; cols: string; values: string } {
  const cols = target.columns.map((c) => quoteIdent(c.name));
  const values = target.columns.map((c, i) => `CAST(${from(c, i)} AS ${c.type})`);
  return { sets: cols.map((c, i) => `${c} = ${values[i]}`).join(', '), cols: cols.join(', '), values: values.join(', ') };
}

function statement(ast: Raw, definition: ParsedStatement, pins: SnapshotPins): ParsedStatement {
  return { ...definition, ast, lake: [...definition.lake, ...pins.clauses], isTransactionEnd: false };
}

/** A MERGE that makes the view's rows the query's at the `to` positions: only rows that differ are written. */
export function fullRefreshStatement(shape: ViewShape, definition: ParsedStatement, target: RefreshTarget, parameters: PositionParameters): ParsedStatement {
  const pins = new SnapshotPins();
  const source = fullSource(shape, unwrap(definition.ast)[1], target, parameters, pins);
  const { sets, cols, values } = setList(target, (c) => `__floe_s.${quoteIdent(c.name)}`);
  const differs = target.columns.map((c) => `__floe_t.${quoteIdent(c.name)} IS DISTINCT FROM __floe_s.${quoteIdent(c.name)}`).join(' OR ');
  const key = quoteIdent(VIEW_KEY_COLUMN);
  const ast = fillTemplate(`MERGE INTO ${qualified(target)} AS __floe_t USING __r_s AS __floe_s ON __floe_t.${key} = __floe_s.${key}
    WHEN MATCHED AND (${differs}) THEN UPDATE SET ${sets}
    WHEN NOT MATCHED THEN INSERT (${cols}) VALUES (${values})
    WHEN NOT MATCHED BY SOURCE THEN DELETE`, { s: subselect(source, '__floe_s', []) });
  return statement(ast, definition, pins);
}

/** A MERGE that empties the view (REFRESH … WITH NO DATA). */
export function emptyingStatement(definition: ParsedStatement, target: RefreshTarget): ParsedStatement {
  const key = quoteIdent(VIEW_KEY_COLUMN);
  const ast = fillTemplate(`MERGE INTO ${qualified(target)} AS __floe_t USING (SELECT NULL::text AS k WHERE false) AS __floe_s ON __floe_t.${key} = __floe_s.k
    WHEN NOT MATCHED BY SOURCE THEN DELETE`);
  return statement(ast, definition, new SnapshotPins());
}

/** The base relations (of any arm) whose snapshot moved since the view's positions. */
function changed(relation: BaseRelation, p: RefreshPositions): boolean {
  return p.from.get(relation.tableId) !== p.to.get(relation.tableId);
}

const changeColumnLists = new WeakMap<BaseRelation, { readonly names: readonly string[]; readonly list: string }>();

/**
 * The columns ΔR of `r` is cut to (referencedColumns: their names, and quoted as a select
 * list), found once per relation: a refresh asks for them at every step, and each answer
 * walks the arm's tree.
 */
function changeColumns(r: BaseRelation, arm: ViewArm): { readonly names: readonly string[]; readonly list: string } {
  let cols = changeColumnLists.get(r);
  if (cols === undefined) {
    const names = referencedColumns(arm, r);
    changeColumnLists.set(r, cols = { names, list: names.map(quoteIdent).join(', ') });
  }
  return cols;
}

/** Which netted change set ΔR of `r` is, as `arm` reads it: the table and the columns it is cut to. */
function changeSetId(r: BaseRelation, arm: ViewArm): string {
  return `${r.tableId}:${changeColumns(r, arm).list}`;
}

/** A relation a refresh has a term for: it changed, and its changes were not found to net to nothing. */
function moved(r: BaseRelation, arm: ViewArm, p: RefreshPositions): boolean {
  return changed(r, p) && p.emptyChanges?.has(changeSetId(r, arm)) !== true;
}

/** A complete changelog's rows cut to `cols` and netted per row: `__floe_side` is +1, −1 or 0 (a change the columns do not show). */
function nettedChanges(cols: string, changes: string): string {
  return `SELECT ${cols}, sum(CASE WHEN _change_type IN ('INSERT', 'UPDATE_AFTER') THEN 1 ELSE -1 END) AS ${SIDE} FROM ${changes} GROUP BY ${cols}`;
}

/**
 * A change set to ask about before planning: table `tableId`'s changes after snapshot `from`
 * up to `to`, cut to `columns`. It nets to nothing when each distinct row of those columns
 * (GROUP BY's equality) has as many after-images (+I, +U) as before-images (−U, −D): the
 * netted ΔR its term would read (nettedChanges) is then empty.
 */
export interface NetChangeCheck {
  readonly id: string;
  readonly tableId: number;
  readonly from: bigint;
  readonly to: bigint;
  readonly columns: readonly string[];
}

/**
 * For each changed relation with a complete changelog, the change set to check for netting
 * to anything. Most changes to a wide table touch columns a view never names (TPC-C's
 * balances and stock levels); a relation whose changes all cancel needs no term, and leaving
 * its term out saves binding, planning and running a join of every other relation, which
 * costs more than reading its changes twice.
 */
export function netChangeChecks(shape: ViewShape, p: RefreshPositions, wanted: (id: string) => boolean): NetChangeCheck[] {
  if (shape.kind === 'full') return [];
  const out = new Map<string, NetChangeCheck>();
  const asked = new Set<string>();
  for (const arm of shape.kind === 'linear' ? shape.arms : [shape.arm]) {
    for (const r of arm.relations) {
      const id = changeSetId(r, arm);
      if (!changed(r, p) || p.completeChangelogs?.has(r.tableId) !== true || asked.has(id)) continue;
      asked.add(id);
      if (!wanted(id)) continue;
      out.set(id, { id, tableId: r.tableId, from: BigInt(p.from.get(r.tableId)!), to: BigInt(p.to.get(r.tableId)!), columns: changeColumns(r, arm).names });
    }
  }
  return [...out.values()];
}

/**
 * Where a term finds ΔR, from `table_changes` read once per table and refresh into a CTE. A
 * table with a complete changelog: its change rows since `from` cut to the columns the arm
 * reads (referencedColumns), netted per row: +1 for each after-image (+I, +U), −1 for each
 * before-image (−U, −D). With the key among the columns a row nets to −1 (the key's row at
 * `from`), +1 (its row at `to`) or 0, and the 0s go: the states in between, and every change
 * the view cannot see, before any join. Otherwise: the table's rows of the changed keys, at
 * the new snapshot and at the old, scanned whole.
 */
class ChangeSources {
  /** Each CTE's name and text by what it holds (a table id, or a table id and columns). */
  readonly #ctes = new Map<string, { readonly name: string; readonly text: string }>();
  readonly #p: RefreshPositions;
  readonly #pins: SnapshotPins;

  constructor(p: RefreshPositions, pins: SnapshotPins) {
    this.#p = p;
    this.#pins = pins;
  }

  /** The CTEs the terms read, for the statement's WITH (before the delta's). */
  get ctes(): string[] { return [...this.#ctes.values()].map((c) => c.text); }

  /** The name of the CTE `id` stands for, adding it (named `name`, its text `text(name)`) the first time. */
  #cte(id: string, name: string, text: (name: string) => string): string {
    let c = this.#ctes.get(id);
    if (c === undefined) {
      c = { name, text: text(name) };
      this.#ctes.set(id, c);
    }
    return c.name;
  }

  /** ΔR of `r` on both sides, as `arm` reads it, each row with its side in `__floe_side`: +1 new, −1 old. */
  signedRows(r: BaseRelation, arm: ViewArm): Raw {
    const cte = this.#changelogCte(r, arm);
    if (cte !== undefined) return selectOf(fillTemplate(`SELECT * FROM ${cte}`));
    const sides = { n: subselect(this.rows(r, arm, 'new'), '__floe_n', []), o: subselect(this.rows(r, arm, 'old'), '__floe_o', []) };
    return selectOf(fillTemplate(`SELECT *, 1 AS ${SIDE} FROM __r_n UNION ALL SELECT *, -1 AS ${SIDE} FROM __r_o`, sides));
  }

  /**
   * With a complete changelog, the CTE of `r`'s change rows cut to the columns `arm` reads
   * and netted (`__floe_side` +1 or −1 per row left); undefined without one.
   */
  #changelogCte(r: BaseRelation, arm: ViewArm): string | undefined {
    if (this.#p.completeChangelogs?.has(r.tableId) !== true) return undefined;
    const cols = changeColumns(r, arm).list;
    // Arms of a UNION ALL may read one table through different columns: a CTE per column list.
    return this.#cte(changeSetId(r, arm), `__floe_changes_${this.#ctes.size}`, (name) => `${name} AS MATERIALIZED (SELECT * FROM (
        ${nettedChanges(cols, this.changes(r))}
      ) AS __floe_net WHERE ${SIDE} <> 0)`);
  }

  /** ΔR of `r` on one side, as `arm` reads it. */
  rows(r: BaseRelation, arm: ViewArm, side: 'new' | 'old'): Raw {
    const changelog = this.#changelogCte(r, arm);
    if (changelog !== undefined) {
      const cols = changeColumns(r, arm).list;
      return selectOf(fillTemplate(`SELECT ${cols} FROM ${changelog} WHERE ${SIDE} = ${side === 'new' ? 1 : -1}`));
    }
    const keys = r.primaryKey.map(quoteIdent).join(', ');
    const cte = this.#cte(String(r.tableId), `__floe_keys_${r.tableId}`, (name) => `${name} AS MATERIALIZED (SELECT DISTINCT ${keys} FROM ${this.changes(r)})`);
    const rv = { RangeVar: { relname: r.name, inh: true, relpersistence: 'p', location: -1 } };
    this.#pins.pin(rv.RangeVar, r, this.#p.parameters.number(side === 'new' ? 'to' : 'from', r.tableId));
    return selectOf(fillTemplate(`SELECT * FROM __r_t WHERE (${keys}) IN (SELECT ${keys} FROM ${cte})`, { t: rv }));
  }

  /** `table_changes(r, $from, $to)`: the positions as parameters, so the text is the same from one refresh to the next. */
  changes(r: BaseRelation): string {
    const { parameters } = this.#p;
    return `table_changes(${quoteLiteral(`${quoteIdent(r.namespace)}.${quoteIdent(r.name)}`)}, $${parameters.number('from', r.tableId)}, $${parameters.number('to', r.tableId)})`;
  }
}

/**
 * One telescoping term: the arm's SELECT (already given its outputs) with relation `i` its
 * ΔR on `side` (ChangeSources), the ones before it at the new snapshots, the ones after it
 * at the old.
 *
 * A relation a LEFT JOIN pads is not linear: a change to it moves a left row between
 * matched and padded. Its term is the whole query with it at the new snapshot (`side`
 * 'new') or the old, over only the rows whose left side its ON condition matches to a
 * changed row, old or new. Every other left row matches the same rows at both snapshots,
 * so its rows cancel between the two sides and may be left out.
 */
function term(select: Raw, arm: ViewArm, i: number, side: 'new' | 'old' | 'both', p: RefreshPositions, pins: SnapshotPins, sources: ChangeSources): Raw {
  const s = cloneNode(select);
  const changedRelation = arm.relations[i]!;
  rangeVarWrappers(s.fromClause).forEach((w, j) => {
    const r = arm.relations[j]!;
    const at = (position: 'from' | 'to') => pins.pin(w.RangeVar, r, p.parameters.number(position, r.tableId));
    if (j < i) { at('to'); return; }
    if (j > i) { at('from'); return; }
    if (r.outerJoinOn !== undefined) { at(side === 'new' ? 'to' : 'from'); return; }
    delete w.RangeVar;
    Object.assign(w, subselect(side === 'both' ? sources.signedRows(r, arm) : sources.rows(r, arm, side), r.rangeName, []));
  });
  if (changedRelation.outerJoinOn !== undefined) {
    // Inside EXISTS the changed rows take the relation's name, so the ON condition reads as written.
    const touched = templateExpr('EXISTS (SELECT 1 FROM __r_d WHERE __p_on)', {
      d: subselect(sources.signedRows(changedRelation, arm), changedRelation.rangeName, []), on: changedRelation.outerJoinOn,
    });
    s.whereClause = s.whereClause === undefined ? touched : { BoolExpr: { boolop: 'AND_EXPR', args: [s.whereClause, touched], location: -1 } };
  }
  return s;
}

/** Every term of an arm, as FROM items, for the relations that changed. */
interface Terms {
  /** Rows at +1 and at −1: a term's two sides evaluated apart. */
  readonly plus: Raw[];
  readonly minus: Raw[];
  /**
   * Both sides in one evaluation, each row's side in one more column (SIGN): ΔR carries its
   * rows' sides through the joins (and, in an aggregate, into the GROUP BY), so the other
   * relations are read and joined once per term, not twice.
   */
  readonly signed: Raw[];
}

function terms(arm: ViewArm, select: Raw, columns: readonly string[], grouped: boolean, p: RefreshPositions, pins: SnapshotPins, sources: ChangeSources): Terms {
  const out: Terms = { plus: [], minus: [], signed: [] };
  // A `*` in the select list would also list ΔR's side column.
  const star = JSON.stringify(select.targetList).includes('"A_Star"');
  arm.relations.forEach((r, i) => {
    if (!moved(r, arm, p)) return;
    if (r.outerJoinOn !== undefined || star) {
      out.plus.push(subselect(term(select, arm, i, 'new', p, pins, sources), '__floe_term', columns));
      out.minus.push(subselect(term(select, arm, i, 'old', p, pins, sources), '__floe_term', columns));
      return;
    }
    const s = term(select, arm, i, 'both', p, pins, sources);
    const side = columnRef(r.rangeName, SIDE);
    s.targetList = [...s.targetList, resTarget(side)];
    if (grouped) s.groupClause = [...(s.groupClause ?? []), cloneNode(side)];
    out.signed.push(subselect(s, '__floe_term', [...columns, SIGN]));
  });
  return out;
}

/**
 * What the incremental MERGE from `p.from` to `p.to` is made of, as text: the relations that
 * take a term, and how each reads its changes. Two refreshes of the same view with the same
 * terms run the same statement (the positions are its parameters). Undefined when no base
 * table the view reads has changed, or every change nets to nothing the view reads.
 */
export function incrementalTerms(shape: ViewShape, p: RefreshPositions): string | undefined {
  if (shape.kind === 'full') return undefined;
  const arms = shape.kind === 'linear' ? shape.arms : [shape.arm];
  const terms = arms.flatMap((a, i) => a.relations.flatMap((r, j) => (moved(r, a, p) ? [`${i}.${j}${p.completeChangelogs?.has(r.tableId) === true ? 'c' : ''}`] : [])));
  return terms.length === 0 ? undefined : terms.join(' ');
}

/** The MERGE that brings the view from `p.from` to `p.to`, when it has terms (incrementalTerms). */
export function incrementalRefreshStatement(shape: ViewShape, definition: ParsedStatement, target: RefreshTarget, p: RefreshPositions): ParsedStatement {
  if (shape.kind === 'full') throw new Error('a view of this shape has no incremental refresh');
  return shape.kind === 'linear' ? linearRefresh(shape, definition, target, p) : aggregateRefresh(shape, definition, target, p);
}

const outputName = (j: number): string => `__floe_o${j + 1}`;

function linearRefresh(shape: Extract<ViewShape, { kind: 'linear' }>, definition: ParsedStatement, target: RefreshTarget, p: RefreshPositions): ParsedStatement {
  const pins = new SnapshotPins();
  const sources = new ChangeSources(p, pins);
  const visible = target.columns.filter((c) => !c.hidden);
  const columns = [...visible.map((_c, j) => outputName(j)), '__floe_k'];
  const nodes: Record<string, Raw> = {};
  const parts: string[] = [];
  shape.arms.forEach((arm, a) => {
    const s = armSelect(arm, undefined);
    s.targetList = [...s.targetList, resTarget(linearKey(arm, a, shape.arms.length))];
    const { plus, minus, signed } = terms(arm, s, columns, false, p, pins, sources);
    plus.forEach((t, i) => { nodes[`p${a}_${i}`] = t; parts.push(`SELECT *, 1 AS ${SIGN} FROM __r_p${a}_${i}`); });
    minus.forEach((t, i) => { nodes[`m${a}_${i}`] = t; parts.push(`SELECT *, -1 AS ${SIGN} FROM __r_m${a}_${i}`); });
    signed.forEach((t, i) => { nodes[`s${a}_${i}`] = t; parts.push(`SELECT * FROM __r_s${a}_${i}`); });
  });
  const outs = visible.map((_c, j) => outputName(j)).join(', ');
  const { sets, cols, values } = setList(target, (c) => (c.name === VIEW_KEY_COLUMN ? '__floe_s.__floe_k' : `__floe_s.${outputName(visible.indexOf(c))}`));
  const ast = fillTemplate(`WITH ${[...sources.ctes, `__floe_delta AS MATERIALIZED (${parts.join(' UNION ALL ')})`].join(', ')}
    MERGE INTO ${qualified(target)} AS __floe_t USING (
      SELECT DISTINCT ON (__floe_k) * FROM (
        SELECT __floe_k, ${outs}, sum(__floe_sign) AS __floe_n FROM __floe_delta GROUP BY __floe_k, ${outs}
      ) AS __floe_x WHERE __floe_n <> 0 ORDER BY __floe_k, __floe_n DESC
    ) AS __floe_s ON __floe_t.${quoteIdent(VIEW_KEY_COLUMN)} = __floe_s.__floe_k
    WHEN MATCHED AND __floe_s.__floe_n < 0 THEN DELETE
    WHEN MATCHED THEN UPDATE SET ${sets}
    WHEN NOT MATCHED AND __floe_s.__floe_n > 0 THEN INSERT (${cols}) VALUES (${values})`, nodes);
  return statement(ast, definition, pins);
}

/** The aggregate a term computes for output `o` (its partial; for avg and bool_* the value itself, which the merge recomputes from state). */
function partialOf(o: ViewOutput): Raw {
  if (o.kind === 'group') return cloneNode(o.expr);
  if (o.fn === 'count*') return expr('count(*)');
  return expr(`${o.fn}(__p_a)`, { a: o.arg });
}

const SUMMED: ReadonlySet<AggregateKind> = new Set(['count*', 'count', 'sum']);

function aggregateRefresh(shape: Extract<ViewShape, { kind: 'aggregate' }>, definition: ParsedStatement, target: RefreshTarget, p: RefreshPositions): ParsedStatement {
  const pins = new SnapshotPins();
  const sources = new ChangeSources(p, pins);
  const visible = target.columns.filter((c) => !c.hidden);
  const state = stateColumns(shape.outputs);
  const columns = [...visible.map((_c, j) => outputName(j)), '__floe_k', '__floe_c', ...state.map((s) => s.name)];
  const s = armSelect(shape.arm, shape.groups);
  s.targetList = [
    ...shape.outputs.map((o) => resTarget(partialOf(o))), resTarget(keyExpr(shape.groups.map(cloneNode))), resTarget(expr('count(*)')),
    ...state.map((c) => resTarget(expr(c.template, { a: (shape.outputs[c.output] as { arg: Raw }).arg }))),
  ];
  const { plus, minus, signed } = terms(shape.arm, s, columns, true, p, pins, sources);
  const nodes: Record<string, Raw> = {};
  // A row at −1 takes its counts and sums away: they are negated (min and max are not; see `added`).
  const summed = [
    ...shape.outputs.flatMap((o, j) => (o.kind === 'aggregate' && SUMMED.has(o.fn) ? [outputName(j)] : [])), '__floe_c', ...state.map((c) => c.name),
  ];
  const negatedWhere = (negate: (x: string) => string) => [
    ...shape.outputs.map((_o, j) => (summed.includes(outputName(j)) ? `${negate(outputName(j))} AS ${outputName(j)}` : outputName(j))),
    '__floe_k', `${negate('__floe_c')} AS __floe_c`, ...state.map((c) => `${negate(c.name)} AS ${c.name}`),
  ].join(', ');
  const parts = [
    ...plus.map((t, i) => { nodes[`p${i}`] = t; return `SELECT *, 1 AS ${SIGN} FROM __r_p${i}`; }),
    ...minus.map((t, i) => { nodes[`m${i}`] = t; return `SELECT ${negatedWhere((x) => `-${x}`)}, -1 AS ${SIGN} FROM __r_m${i}`; }),
    ...signed.map((t, i) => { nodes[`s${i}`] = t; return `SELECT ${negatedWhere((x) => `CASE WHEN ${SIGN} < 0 THEN -${x} ELSE ${x} END`)}, ${SIGN} FROM __r_s${i}`; }),
  ];
  const mv = qualified(target);
  const key = quoteIdent(VIEW_KEY_COLUMN);
  const extremes = shape.outputs.flatMap((o, j) => (o.kind === 'aggregate' && (o.fn === 'min' || o.fn === 'max') ? [{ o, j }] : []));
  // A group whose current min or max a change took away is computed again from the base tables.
  // So is one a change took a value from that it did not have (no row yet, or only NULLs): the
  // value came with an earlier term and went with a later one, and min and max cannot subtract it.
  const retracted = extremes.length === 0 ? undefined : `__floe_retracted AS (
      SELECT __floe_d.__floe_k FROM (
        SELECT __floe_k, ${extremes.map(({ o, j }) => `${(o as { fn: string }).fn}(${outputName(j)}) AS ${outputName(j)}`).join(', ')}
        FROM __floe_delta WHERE __floe_sign < 0 GROUP BY __floe_k
      ) AS __floe_d LEFT JOIN ${mv} AS __floe_v ON __floe_v.${key} = __floe_d.__floe_k
      WHERE __floe_v.${key} IS NULL OR ${extremes.map(({ o, j }) => `__floe_d.${outputName(j)} ${(o as { fn: string }).fn === 'min' ? '<=' : '>='} coalesce(__floe_v.${quoteIdent(visible[j]!.name)}, __floe_d.${outputName(j)})`).join(' OR ')})`;
  // Per group, what its changes add to the state the view keeps: counts and sums summed, min and max
  // over the rows that came (avg and bool_* outputs are made from the state columns).
  const added = shape.outputs.map((o, j) => {
    const x = outputName(j);
    if (o.kind === 'group') return `any_value(${x})`;
    switch (o.fn) {
      case 'count*': case 'count': case 'sum': return `sum(${x})`;
      case 'min': case 'max': return `${o.fn}(CASE WHEN __floe_sign > 0 THEN ${x} END)`;
      default: return `CAST(NULL AS ${visible[j]!.type})`;
    }
  });
  const addedList = ['__floe_k', ...added.map((a, j) => `${a} AS ${outputName(j)}`), 'sum(__floe_c) AS __floe_c', ...state.map((c) => `sum(${c.name}) AS ${c.name}`), 'false AS __floe_exact'].join(', ');
  // A retracted group the query no longer has comes out with count 0, so the MERGE deletes it.
  const recompute = retracted === undefined ? '' : `UNION ALL
      SELECT __floe_r.__floe_k, ${visible.map((c) => `__floe_f.${quoteIdent(c.name)}`).join(', ')}, coalesce(__floe_f.${quoteIdent(VIEW_COUNT_COLUMN)}, 0), ${state.map((c) => `__floe_f.${quoteIdent(c.name)}, `).join('')}true
      FROM __floe_retracted AS __floe_r LEFT JOIN __r_full AS __floe_f ON __floe_f.${key} = __floe_r.__floe_k`;
  if (retracted !== undefined) nodes['full'] = subselect(fullSource(shape, unwrap(definition.ast)[1], target, p.parameters, pins), '__floe_f', []);
  const exact = setList(target, (c) => {
    if (c.name === VIEW_KEY_COLUMN) return '__floe_s.__floe_k';
    if (c.name === VIEW_COUNT_COLUMN) return '__floe_s.__floe_c';
    return c.hidden ? `__floe_s.${c.name}` : `__floe_s.${outputName(visible.indexOf(c))}`;
  });
  const kept = (name: string) => `__floe_t.${quoteIdent(name)}`;
  const updated = grownState(shape, target, visible, kept);
  const inserted = grownState(shape, target, visible, undefined);
  const sets = updated.map(({ column, value }) => `${quoteIdent(column.name)} = CAST(${value} AS ${column.type})`).join(', ');
  const insertCols = inserted.map(({ column }) => quoteIdent(column.name)).join(', ');
  const insertValues = inserted.map(({ column, value }) => `CAST(${value} AS ${column.type})`).join(', ');
  // A query without GROUP BY has its one row even over no rows (count 0, sum NULL).
  const grouped = shape.groups.length > 0;
  const ast = fillTemplate(`WITH ${[...sources.ctes, `__floe_delta AS MATERIALIZED (${parts.join(' UNION ALL ')})`].join(', ')}${retracted === undefined ? '' : `, ${retracted}`}
    MERGE INTO ${mv} AS __floe_t USING (
      SELECT ${addedList} FROM __floe_delta
      ${retracted === undefined ? '' : 'WHERE __floe_k NOT IN (SELECT __floe_k FROM __floe_retracted)'} GROUP BY __floe_k
      ${recompute}
    ) AS __floe_s ON __floe_t.${key} = __floe_s.__floe_k
    ${grouped ? 'WHEN MATCHED AND __floe_s.__floe_exact AND __floe_s.__floe_c = 0 THEN DELETE' : ''}
    WHEN MATCHED AND __floe_s.__floe_exact THEN UPDATE SET ${exact.sets}
    ${grouped ? `WHEN MATCHED AND ${kept(VIEW_COUNT_COLUMN)} + __floe_s.__floe_c = 0 THEN DELETE` : ''}
    WHEN MATCHED THEN UPDATE SET ${sets}
    WHEN NOT MATCHED AND __floe_s.__floe_exact AND __floe_s.__floe_c > 0 THEN INSERT (${exact.cols}) VALUES (${exact.values})
    WHEN NOT MATCHED AND __floe_s.__floe_c > 0 THEN INSERT (${insertCols}) VALUES (${insertValues})`, nodes);
  return statement(ast, definition, pins);
}

/**
 * A group's columns after its changes (`__floe_s`, summed per group) are added to the state
 * it has (`kept(column)`, the view's row), or to none for a group new to the view (`kept`
 * undefined: the columns it inserts, the key and group outputs among them).
 */
function grownState(
  shape: Extract<ViewShape, { kind: 'aggregate' }>, target: RefreshTarget, visible: readonly RefreshTarget['columns'][number][], kept: ((column: string) => string) | undefined,
): { column: RefreshTarget['columns'][number]; value: string }[] {
  const s = (name: string) => `__floe_s.${name}`;
  // NULL stands for nothing to add (a sum over only NULLs) on either side.
  const add = (column: string, delta: string) => (kept === undefined ? delta : `CASE WHEN ${kept(column)} IS NULL THEN ${delta} WHEN ${delta} IS NULL THEN ${kept(column)} ELSE ${kept(column)} + ${delta} END`);
  const nn = (j: number) => add(`floe$nn_${j + 1}`, s(`floe$nn_${j + 1}`));
  const out: { column: RefreshTarget['columns'][number]; value: string }[] = [];
  for (const column of target.columns) {
    const value = ((): string | undefined => {
      if (column.name === VIEW_KEY_COLUMN) return kept === undefined ? s('__floe_k') : undefined;
      if (column.name === VIEW_COUNT_COLUMN) return add(VIEW_COUNT_COLUMN, s('__floe_c'));
      if (column.hidden) return add(column.name, s(column.name));
      const j = visible.indexOf(column);
      const o = shape.outputs[j]!;
      const x = s(outputName(j));
      if (o.kind === 'group') return kept === undefined ? x : undefined;
      switch (o.fn) {
        case 'count*': case 'count': return add(column.name, x);
        case 'sum': return `CASE WHEN ${nn(j)} = 0 THEN NULL ELSE ${add(column.name, x)} END`;
        case 'avg': return `CASE WHEN ${nn(j)} = 0 THEN NULL ELSE CAST(${add(`floe$sum_${j + 1}`, s(`floe$sum_${j + 1}`))} AS ${column.type}) / ${nn(j)} END`;
        case 'min': return kept === undefined ? x : `least(${kept(column.name)}, ${x})`;
        case 'max': return kept === undefined ? x : `greatest(${kept(column.name)}, ${x})`;
        case 'bool_and': return `CASE WHEN ${nn(j)} = 0 THEN NULL ELSE ${add(`floe$false_${j + 1}`, s(`floe$false_${j + 1}`))} = 0 END`;
        case 'bool_or': return `CASE WHEN ${nn(j)} = 0 THEN NULL ELSE ${add(`floe$true_${j + 1}`, s(`floe$true_${j + 1}`))} > 0 END`;
      }
    })();
    if (value !== undefined) out.push({ column, value });
  }
  return out;
}
