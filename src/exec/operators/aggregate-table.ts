import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ScaledVector } from '../arrow/scaled-vector.js';
import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { ArrowColumn, arrowFormOf, columnSource, selectColumn } from '../arrow/columnar-batch.js';
import type { ColumnarBatch, ColumnSource } from '../arrow/columnar-batch.js';
import { compileExpr } from '../expr/compile-expr.js';
import type { CompiledExpr } from '../expr/compile-expr.js';
import { functionById } from '../functions/function-registry.js';
import type { AggregateImpl, ColumnarAggregate, ColumnarPartial } from '../functions/function-registry.js';
import type { HashAggregatePlan, SortKey } from '../plan/physical-plan.js';
import type { PartialAggregate } from '../pool/scan-pool.js';
import type { RunState } from '../run-state.js';
import { numericKey, rowKey, trimTrailingBlanks, valueKey } from '../types/value-ops.js';
import { compileSortKeys } from './sort-keys.js';
import { IntHashTable } from './int-hash-table.js';
import { IntGroupIndex } from './aggregate-int-groups.js';
import { TextKeyIds } from './text-key-ids.js';
import { KeyDictionary } from './key-dictionary.js';
import { DependentKeyColumn } from './dependent-key-column.js';
import { int32Column } from './int32-column.js';

interface CompiledAggregate {
  readonly impl: AggregateImpl;
  readonly strict: boolean;
  readonly args: readonly CompiledExpr[];
  readonly argTypes: readonly SqlType[];
  readonly filter: CompiledExpr | undefined;
  readonly distinct: boolean;
  readonly ordered: ReturnType<typeof compileSortKeys> | undefined;
  readonly orderExprs: readonly CompiledExpr[];
  readonly orderExprCount: number;
  /** DISTINCT or ORDER BY: argument rows are kept per group (ordered) or deduplicated (distinct) instead of stepped in batches. */
  readonly buffered: boolean;
  /** States live in the aggregate's typed columns (ColumnarAggregate) rather than one object per group. */
  readonly columnar: boolean;
  /** DISTINCT over one int2/int4 argument (Q16's count(DISTINCT ps_suppkey)): its values are their own keys. */
  readonly distinctInts: boolean;
}

/** The parts of a hash aggregate plan that decide its groups and states (what a worker needs for a partial aggregate). */
export type AggregateSpec = Pick<HashAggregatePlan, 'groupBy' | 'groupingSets' | 'aggregates' | 'dependentKeys'>;

/** A key the hashed keys determine: kept per group as read at the group's first row. */
interface DependentKey {
  /** Its place in spec.groupBy. */
  readonly index: number;
  readonly expr: CompiledExpr;
  /** The batch column it reads when it is a column as it is (-1 otherwise): its rows are kept as they come, Arrow data undecoded. */
  readonly column: number;
}

/** A hash aggregate's expressions and functions, compiled once per operator (or per worker and query). */
export interface CompiledAggregation {
  readonly spec: AggregateSpec;
  /** Indexes into spec.groupBy of the keys that are hashed; keyExprs, keyTypes and the per-key arrays below follow them. */
  readonly hashedKeys: readonly number[];
  readonly dependentKeys: readonly DependentKey[];
  readonly keyExprs: readonly CompiledExpr[];
  readonly keyTypes: readonly SqlType[];
  readonly sets: readonly (readonly number[])[];
  readonly aggs: readonly CompiledAggregate[];
  /** Single key whose canonical values compare equal exactly when SQL groups them (Map's SameValueZero). */
  readonly directKey: boolean;
  /** Per key, the batch column it reads when it is a text, varchar or bpchar column as it is (-1 otherwise): grouped by its bytes. */
  readonly keyTextColumns: readonly number[];
  /** Per key, the batch column it reads when it is an int4 column as it is (-1 otherwise): read from its Int32Array when NULL-free. */
  readonly keyIntColumns: readonly number[];
}

const BYTE_KEY_KINDS = new Set(['text', 'varchar', 'bpchar']);

/** Prefix codes and ids below this index the composite's last level directly (a 256 KiB table). */
const SMALL_IDS = 256;

/** Bytes charged per new group, beyond its key text. */
const GROUP_OVERHEAD = 160;
/** A DISTINCT int2/int4 argument's (group, value) pair packs into one exact double for groups below this (2^21 · 2^32 + 2^31 < 2^53). */
const PAIR_GROUPS = 2097152;
const TWO_32 = 4294967296;
const NULL_PART = '\u0000N';

/**
 * Key types whose canonical JS values (number, bigint, string, boolean) are
 * equal under SameValueZero exactly when SQL's grouping equality holds (floats:
 * 0 = -0 and NaN = NaN, as PostgreSQL groups them). Numeric text, bpchar's
 * trailing blanks, intervals, bytea and arrays need valueKey's normalization.
 */
const DIRECT_KEY_KINDS = new Set([
  'int2', 'int4', 'int8', 'float4', 'float8', 'date', 'time', 'timestamp', 'timestamptz', 'timetz',
  'text', 'varchar', 'name', 'char', 'bool', 'uuid', 'oid',
]);

/**
 * Compiles a hash aggregate's keys and aggregates. `columnar: false` keeps
 * every state an object of the aggregate's own (the reference the typed
 * columns are tested against).
 */
export function compileAggregation(spec: AggregateSpec, { columnar = true }: { columnar?: boolean } = {}): CompiledAggregation {
  const aggs: CompiledAggregate[] = spec.aggregates.map((a) => {
    const f = functionById(a.fn);
    if (!f || f.kind !== 'aggregate' || !f.aggregate) throw new FloeError(SqlState.undefinedFunction, `aggregate ${a.fn} does not exist`);
    const argTypes = a.args.map((x) => x.type);
    // PostgreSQL computes DISTINCT by sorting the arguments, so an aggregate that lists its
    // input (array_agg(DISTINCT x)) gives it in their order: here too.
    const orderBy: readonly SortKey[] | undefined = a.orderBy && a.orderBy.length > 0 ? a.orderBy
      : a.distinct && LISTS_ITS_INPUT.has(a.fn.slice(0, a.fn.indexOf('('))) ? a.args.map((expr) => ({ expr, descending: false, nullsFirst: false }))
        : undefined;
    const ordered = orderBy
      ? compileSortKeys(orderBy.map((k, i) => ({ ...k, expr: { kind: 'column', index: a.args.length + i, type: k.expr.type } })))
      : undefined;
    const impl = f.aggregate(argTypes);
    const buffered = a.distinct || ordered !== undefined;
    return {
      impl,
      strict: f.strict,
      args: a.args.map(compileExpr),
      argTypes,
      filter: a.filter ? compileExpr(a.filter) : undefined,
      distinct: a.distinct,
      ordered,
      orderExprs: (orderBy ?? []).map((k) => compileExpr(k.expr)),
      orderExprCount: orderBy?.length ?? 0,
      buffered,
      columnar: columnar && !buffered && impl.columnar !== undefined,
      distinctInts: a.distinct && ordered === undefined && argTypes.length === 1 && (argTypes[0]!.kind === 'int2' || argTypes[0]!.kind === 'int4'),
    };
  });
  const dependent = new Set(spec.dependentKeys ?? []);
  if (dependent.size > 0 && spec.groupingSets !== undefined) throw new FloeError(SqlState.internalError, 'dependent group keys with grouping sets');
  const hashedKeys = spec.groupBy.flatMap((_e, i) => (dependent.has(i) ? [] : [i]));
  const hashed = hashedKeys.map((i) => spec.groupBy[i]!);
  const keyTypes = hashed.map((e) => e.type);
  return {
    spec,
    hashedKeys,
    dependentKeys: [...dependent].sort((a, b) => a - b).map((index) => {
      const e = spec.groupBy[index]!;
      return { index, expr: compileExpr(e), column: e.kind === 'column' ? e.index : -1 };
    }),
    keyExprs: hashed.map(compileExpr),
    keyTypes,
    sets: spec.groupingSets ?? [hashed.map((_, i) => i)],
    aggs,
    directKey: spec.groupingSets === undefined && keyTypes.length === 1 && DIRECT_KEY_KINDS.has(keyTypes[0]!.kind),
    keyTextColumns: hashed.map((e) => (e.kind === 'column' && BYTE_KEY_KINDS.has(e.type.kind) ? e.index : -1)),
    keyIntColumns: hashed.map((e) => (e.kind === 'column' && e.type.kind === 'int4' ? e.index : -1)),
  };
}

/** One key column's part of a composite hash key. */
function keyPart(v: unknown, t: SqlType, direct: boolean): string {
  if (v === null || v === undefined) return NULL_PART;
  if (direct) return typeof v === 'string' ? v : String(v);
  return normalKey(v, t);
}

/** One inner level of the composite-key combination: (prefix code, column id) → code, numbers typed, the rare text keys in a Map. */
interface CompositeLevel {
  readonly nums: IntHashTable;
  readonly texts: Map<string, number>;
  size: number;
  /** The (id → code) pair each prefix code met last, checked before the table. */
  readonly last: LastPerPrefix;
}

/**
 * Per prefix code, the last id that followed it and what that pair gave. When a
 * key is determined by the keys before it (Q10 groups by c_custkey and six more
 * customer columns), every lookup after a prefix's first is one array read
 * instead of a probe of a table far larger than the cache.
 */
class LastPerPrefix {
  ids = new Int32Array(0);
  results = new Int32Array(0);

  /** The result remembered for (prefix, id), or -1. */
  get(prefix: number, id: number): number {
    return prefix < this.ids.length && this.ids[prefix] === id ? this.results[prefix]! : -1;
  }

  set(prefix: number, id: number, result: number): void {
    if (prefix >= 1 << 30) return;
    if (prefix >= this.ids.length) {
      const size = Math.max(prefix + 1, this.ids.length * 2, 64);
      const ids = new Int32Array(size).fill(-1);
      ids.set(this.ids);
      const results = new Int32Array(size);
      results.set(this.results);
      this.ids = ids;
      this.results = results;
    }
    this.ids[prefix] = id;
    this.results[prefix] = result;
  }
}

/**
 * valueKey's grouping key, with char-loop fast paths for the common
 * non-direct keys: bpchar (trailing blanks do not count) and canonical
 * numeric text (trailing fractional zeros and "-0" do not count).
 */
function normalKey(v: unknown, t: SqlType): string {
  if (t.kind === 'bpchar') return trimTrailingBlanks(v as string);
  if (t.kind === 'numeric') return numericKey(v as string);
  return valueKey(v, t);
}

/** Aggregates whose result lists their input in order: under DISTINCT they take it sorted, as PostgreSQL's do. */
const LISTS_ITS_INPUT = new Set(['array_agg', 'string_agg', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg']);

/** The key column sink passes for a key it has byte-level ids for: assignGroups reads such keys' values by id. */
const NO_VALUES: readonly unknown[] = [];

/**
 * A hash aggregate's groups and states: groups are numbered densely, each
 * aggregate keeps its states in an array indexed by group number, so an
 * aggregate with a batch step updates a whole batch in one call. Used by the
 * operator on the main thread and by scan workers for partial aggregates.
 */
export class AggregateTable {
  readonly #c: CompiledAggregation;
  readonly #index = new Map<unknown, number>();
  /** Composite keys packed into one number (see #assignComposite); the rare "code,id" texts stay in #index. */
  #packedIndex: IntHashTable | undefined;
  /** Single direct keys that are int32 values live here instead of in #index; the two never hold the same key. */
  readonly #ints: IntGroupIndex;
  /** Per hashed key, the key value of each group. */
  readonly #keys: unknown[][];
  /** Per dependent key, its value in each group. */
  readonly #dependent: DependentKeyColumn[];
  /** Grouping sets only: the set each group belongs to. */
  readonly #setIndex: number[] | undefined;
  /** Per grouping set, whether each key column is in it. */
  readonly #inSet: boolean[][];
  /** The aggregates keeping an object state per group. */
  readonly #objectAggs: number[];
  #size = 0;
  /** Per aggregate, the state of each group (aggregates without typed columns). */
  readonly #states: unknown[][];
  /** Per aggregate, its typed columns of states (columnar aggregates). */
  readonly #columns: (ColumnarAggregate | undefined)[];
  /** Per DISTINCT aggregate and group, the argument keys seen (rowKey; for distinctInts the values, in groups past PAIR_GROUPS only). */
  readonly #seen: (Set<unknown> | undefined)[][];
  /** Per distinctInts aggregate, the (group, value) pairs seen, packed (see #sinkBuffered). */
  readonly #distinctPairs: (IntHashTable | undefined)[] = [];
  readonly #pending: (unknown[][] | undefined)[][];
  readonly #directParts: boolean[];
  /** Composite keys: per key column, value → dense id; per inner level, (prefix, id) → prefix id. */
  #dicts: KeyDictionary[] | undefined;
  #levels: CompositeLevel[] | undefined;
  /** The last level's cache: (prefix code, id) → group. */
  readonly #lastGroups = new LastPerPrefix();
  /** The last level's groups for prefix codes and ids both below SMALL_IDS, by code * SMALL_IDS + id (-1: not seen). */
  #smallGroups: Int32Array | undefined;
  /**
   * Text keys read as bytes: per key, its byte-level ids, and each id's
   * translation (-1 until its first row is placed) to what the row path
   * would give: its dictionary id (several keys) or its group (one key).
   * Rows arriving as values (merged partials) take the row path, so both meet.
   */
  readonly #textIds: (TextKeyIds | undefined)[];
  readonly #translated: Int32Array[];
  /**
   * Per text key, the byte-level ids of every row of the data its last batches selected
   * rows from (`base`), and how many rows batches have asked of the data they last
   * selected from (`asking`) while it is not yet hashed whole.
   */
  readonly #baseIds: { base: Data | undefined; ids: Int32Array | undefined; asking: Data | undefined; asked: number }[];

  /** `expectedRows`: about how many input rows will come (a scan task's), to size key indexes. */
  constructor(c: CompiledAggregation, { expectedRows = 0 }: { expectedRows?: number } = {}) {
    this.#c = c;
    this.#ints = new IntGroupIndex(expectedRows);
    this.#keys = c.keyExprs.map(() => []);
    this.#dependent = c.dependentKeys.map(() => new DependentKeyColumn());
    this.#states = c.aggs.map(() => []);
    this.#columns = c.aggs.map((ag) => (ag.columnar ? ag.impl.columnar!() : undefined));
    this.#seen = c.aggs.map(() => []);
    this.#pending = c.aggs.map(() => []);
    this.#directParts = c.keyTypes.map((t) => DIRECT_KEY_KINDS.has(t.kind));
    this.#setIndex = c.spec.groupingSets === undefined ? undefined : [];
    this.#inSet = c.sets.map((set) => c.keyExprs.map((_, k) => set.includes(k)));
    this.#objectAggs = c.aggs.flatMap((ag, a) => (ag.columnar ? [] : [a]));
    this.#textIds = c.keyTextColumns.map((col, k) => (col >= 0 && c.spec.groupingSets === undefined ? new TextKeyIds({ trimBlanks: c.keyTypes[k]!.kind === 'bpchar' }) : undefined));
    this.#translated = c.keyTextColumns.map(() => new Int32Array(0));
    this.#baseIds = c.keyTextColumns.map(() => ({ base: undefined, ids: undefined, asking: undefined, asked: 0 }));
  }

  /** Key k's byte-level ids for batch b, when it is a text key whose column is still Arrow UTF-8 data. */
  #textKeyIds(b: ColumnarBatch, k: number): Int32Array | undefined {
    const ids = this.#textIds[k];
    if (ids === undefined) return undefined;
    const form = arrowFormOf(b, this.#c.keyTextColumns[k]!);
    if (form === undefined) return undefined;
    const pending = form.pending();
    const data = pending?.base ?? form.data;
    if (data.typeId !== Type.Utf8) return undefined;
    if (pending === undefined) return ids.idsOf(data, undefined);
    // Rows of a join's build side (n_name from nation, Q16's 30k parts probed by 119k
    // rows): once the rows asked of one data add up to its length, each of its rows is
    // hashed once, for this batch and the next ones over it, and the rows read their ids.
    const cache = this.#baseIds[k]!;
    if (cache.base !== data) {
      if (cache.asking !== data) { cache.asking = data; cache.asked = 0; }
      cache.asked += pending.rows.length;
      if (cache.asked < data.length) return ids.idsOf(data, pending.rows);
      cache.base = data;
      cache.ids = ids.idsOf(data, undefined);
    }
    const baseIds = cache.ids!;
    const rows = pending.rows;
    const out = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = baseIds[rows[i]!]!;
    return out;
  }

  /** Key k's translation array, grown (new entries -1) to cover every byte-level id. */
  #translation(k: number): Int32Array {
    const size = this.#textIds[k]!.size;
    let tr = this.#translated[k]!;
    if (tr.length < size) {
      const grown = new Int32Array(Math.max(size, tr.length * 2, 16)).fill(-1);
      grown.set(tr);
      this.#translated[k] = tr = grown;
    }
    return tr;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * `index`: where the key goes — #index, #ints (an int32 key) or #packedIndex (a composite's packed number).
   * `textIds`: per key, the rows' byte-level ids when the key has them; its key column is
   * then not read (sink leaves it empty): the row's value is its id's.
   */
  #newGroup(
    key: unknown, keyCols: readonly (readonly unknown[])[], row: number, s: number, index: 'map' | 'ints' | 'packed' = 'map',
    textIds?: readonly (Int32Array | undefined)[],
  ): number {
    const c = this.#c;
    const g = this.#size++;
    if (index === 'ints') this.#ints.add(key as number, g);
    else if (index === 'packed') this.#packedIndex!.push(key as number, g);
    else this.#index.set(key, g);
    this.#setIndex?.push(s);
    const inSet = this.#inSet[s]!;
    const keys = this.#keys;
    for (let k = 0; k < keys.length; k++) {
      const ids = textIds?.[k];
      keys[k]!.push(row < 0 || !inSet[k] ? null : ids !== undefined ? this.#textIds[k]!.values[ids[row]!] : keyCols[k]![row]);
    }
    const objectAggs = this.#objectAggs;
    for (let i = 0; i < objectAggs.length; i++) {
      const a = objectAggs[i]!;
      const ag = c.aggs[a]!;
      this.#states[a]!.push(ag.impl.init());
      // Only DISTINCT/ORDER BY aggregates keep per-group buffers (indexed by group like the states).
      if (ag.buffered) {
        // distinctInts tables make a group's Set only if it needs one (see #sinkBuffered).
        this.#seen[a]!.push(ag.distinct && !ag.ordered && !ag.distinctInts ? new Set<unknown>() : undefined);
        this.#pending[a]!.push(ag.ordered ? [] : undefined);
      }
    }
    return g;
  }

  #groupBytes(key: unknown): number {
    return GROUP_OVERHEAD + (typeof key === 'string' ? key.length * 2 : 16);
  }

  /**
   * The group number of each row for grouping set `s`, creating groups as needed; also returns the bytes the new groups cost.
   * `textIds`: per key, its byte-level ids for these rows when it has them (#textKeyIds).
   */
  assignGroups(
    keyCols: readonly (readonly unknown[])[], n: number, s: number, textIds?: readonly (Int32Array | undefined)[],
  ): { groups: Int32Array; added: number } {
    const c = this.#c;
    const index = this.#index;
    const groups = new Int32Array(n);
    let added = 0;
    const nk = c.keyExprs.length;
    if (c.spec.groupingSets === undefined && nk === 0) {
      let g = index.get('');
      if (g === undefined) { g = this.#newGroup('', keyCols, -1, 0); added += GROUP_OVERHEAD; }
      groups.fill(g);
      return { groups, added };
    }
    if (c.directKey || (c.spec.groupingSets === undefined && nk === 1)) {
      const col = keyCols[0]!;
      const t = c.keyTypes[0]!;
      const direct = c.directKey;
      const local = textIds?.[0];
      if (local !== undefined) {
        // One lookup per distinct value of the batch's key, not per row.
        const tr = this.#translation(0);
        const values = this.#textIds[0]!.values;
        for (let i = 0; i < n; i++) {
          const id = local[i]!;
          let g = tr[id]!;
          if (g < 0) {
            const v = values[id];
            const key = direct ? v : v === null ? NULL_PART : normalKey(v, t);
            const found = index.get(key);
            if (found === undefined) { g = this.#newGroup(key, keyCols, i, s, 'map', textIds); added += this.#groupBytes(key); } else g = found;
            tr[id] = g;
          }
          groups[i] = g;
        }
        return { groups, added };
      }
      let lastKey: unknown = undefined;
      let lastGroup = -1;
      const ints = this.#ints;
      if (direct && this.#objectAggs.length === 0) {
        // All states typed: an int32 key's new group is its index entry and its key, nothing more.
        const keys = this.#keys[0]!;
        let newInts = 0;
        for (let i = 0; i < n; i++) {
          const v = col[i];
          let g: number;
          if (v === lastKey && lastGroup >= 0) g = lastGroup;
          else if (typeof v === 'number' && (v | 0) === v) {
            g = ints.get(v);
            if (g < 0) { g = this.#size++; ints.add(v, g); keys.push(v); newInts++; }
          } else {
            const found = index.get(v);
            if (found === undefined) { g = this.#newGroup(v, keyCols, i, s); added += this.#groupBytes(v); } else g = found;
          }
          groups[i] = g;
          lastKey = v;
          lastGroup = g;
        }
        return { groups, added: added + newInts * this.#groupBytes(0) };
      }
      for (let i = 0; i < n; i++) {
        const v = col[i];
        const key = direct ? v : v === null ? NULL_PART : normalKey(v, t);
        // Sorted or clustered inputs repeat keys; skip the hash lookup for a run.
        if (key === lastKey && lastGroup >= 0) { groups[i] = lastGroup; continue; }
        let g: number;
        if (direct && typeof key === 'number' && (key | 0) === key) {
          g = ints.get(key);
          if (g < 0) { g = this.#newGroup(key, keyCols, i, s, 'ints'); added += this.#groupBytes(key); }
        } else {
          const found = index.get(key);
          if (found === undefined) { g = this.#newGroup(key, keyCols, i, s); added += this.#groupBytes(key); } else g = found;
        }
        groups[i] = g;
        lastKey = key;
        lastGroup = g;
      }
      return { groups, added };
    }
    if (c.spec.groupingSets === undefined) return this.#assignComposite(keyCols, n, groups, textIds);
    const set = c.sets[s]!;
    const inSet = c.keyExprs.map((_, k) => set.includes(k));
    const prefix = c.sets.length > 1 ? s + '|' : '';
    const direct = this.#directParts;
    for (let i = 0; i < n; i++) {
      let key = prefix;
      for (let k = 0; k < nk; k++) {
        const kk = inSet[k] ? keyPart(keyCols[k]![i], c.keyTypes[k]!, direct[k]!) : NULL_PART;
        key += kk.length + ':' + kk;
      }
      let g = index.get(key);
      if (g === undefined) { g = this.#newGroup(key, keyCols, i, s); added += this.#groupBytes(key); }
      groups[i] = g;
    }
    return { groups, added };
  }

  /**
   * Several keys, no grouping sets: each key column maps its values to dense
   * ids (one Map per column; text keys through their byte-level ids), and the
   * ids combine level by level through typed tables keyed by `prefix * 2^21 + id`
   * — numbers, not composite strings. An id past 2^21 (or a prefix past 2^31)
   * keys its level by "prefix,id" in a Map instead. Before a table, each level
   * tries the pair its prefix met last (LastPerPrefix), and the last level a
   * direct table when both are below SMALL_IDS.
   */
  #assignComposite(
    keyCols: readonly (readonly unknown[])[], n: number, groups: Int32Array, textIds: readonly (Int32Array | undefined)[] | undefined,
  ): { groups: Int32Array; added: number } {
    const c = this.#c;
    const nk = keyCols.length;
    const dicts = (this.#dicts ??= keyCols.map(() => new KeyDictionary()));
    const levels = (this.#levels ??= Array.from({ length: nk - 1 }, () => ({ nums: new IntHashTable(1024), texts: new Map<string, number>(), size: 0, last: new LastPerPrefix() })));
    let added = 0;
    // Pass 1, column by column: values to dense ids (a run of equal values looks up once).
    const ids: Int32Array[] = [];
    for (let k = 0; k < nk; k++) {
      const col = keyCols[k]!;
      const dict = dicts[k]!;
      const t = c.keyTypes[k]!;
      const direct = this.#directParts[k]!;
      const out = new Int32Array(n);
      const local = textIds?.[k];
      if (local !== undefined) {
        // A text key read as bytes: its ids translate to dictionary ids once per distinct value.
        const tr = this.#translation(k);
        const values = this.#textIds[k]!.values;
        for (let i = 0; i < n; i++) {
          const l = local[i]!;
          let id = tr[l]!;
          if (id < 0) {
            const v = values[l];
            const key = v === null || v === undefined ? null : direct ? v : normalKey(v, t);
            const before = dict.size;
            id = dict.idOf(key);
            if (dict.size > before) added += 48 + (typeof key === 'string' ? key.length * 2 : 0);
            tr[l] = id;
          }
          out[i] = id;
        }
        ids.push(out);
        continue;
      }
      const before = dict.size;
      if (col instanceof Int32Array) {
        // An int4 key read from its buffer (NULL-free): no value is boxed or normalized.
        for (let i = 0; i < n; i++) out[i] = dict.idOfInt(col[i]!);
        added += 48 * (dict.size - before);
        ids.push(out);
        continue;
      }
      let lastValue: unknown;
      let lastId = -1;
      for (let i = 0; i < n; i++) {
        const v = col[i];
        if (lastId >= 0 && v === lastValue) { out[i] = lastId; continue; }
        const key = v === null || v === undefined ? null : direct ? v : normalKey(v, t);
        const size = dict.size;
        const id = dict.idOf(key);
        if (dict.size > size) added += 48 + (typeof key === 'string' ? key.length * 2 : 0);
        out[i] = id;
        lastValue = v;
        lastId = id;
      }
      ids.push(out);
    }
    // Pass 2, row by row: combine the ids level by level into a group.
    const index = this.#index;
    const packedIndex = (this.#packedIndex ??= new IntHashTable(1024));
    const lastGroups = this.#lastGroups;
    const smallGroups = (this.#smallGroups ??= new Int32Array(SMALL_IDS * SMALL_IDS).fill(-1));
    for (let i = 0; i < n; i++) {
      let code = ids[0]![i]!;
      for (let k = 1; k < nk - 1; k++) {
        // Inner levels: typed tables on the packed number (a Map on doubles costs ~400 ns a lookup).
        const id = ids[k]![i]!;
        const level = levels[k - 1]!;
        const known = level.last.get(code, id);
        if (known >= 0) { code = known; continue; }
        let next: number | undefined;
        if (id < 2097152 && code < 2147483648) {
          const packed = code * 2097152 + id;
          next = level.nums.get(packed);
          if (next === undefined) { next = level.size++; level.nums.push(packed, next); added += 48; }
        } else {
          const packed = `${code},${id}`;
          next = level.texts.get(packed);
          if (next === undefined) { next = level.size++; level.texts.set(packed, next); added += 48; }
        }
        level.last.set(code, id, next);
        code = next;
      }
      const id = ids[nk - 1]![i]!;
      // Few distinct prefixes and values (Q1: 3 return flags × 2 line statuses): one array read.
      const small = (code | id) < SMALL_IDS;
      if (small) { const g = smallGroups[code * SMALL_IDS + id]!; if (g >= 0) { groups[i] = g; continue; } }
      const known = lastGroups.get(code, id);
      if (known >= 0) { groups[i] = known; if (small) smallGroups[code * SMALL_IDS + id] = known; continue; }
      let g: number | undefined;
      if (id < 2097152 && code < 2147483648) {
        // A typed table, not the Map: a Map keyed by doubles boxes each new key.
        const packed = code * 2097152 + id;
        g = packedIndex.get(packed);
        if (g === undefined) { g = this.#newGroup(packed, keyCols, i, 0, 'packed', textIds); added += GROUP_OVERHEAD; }
      } else {
        const packed = `${code},${id}`;
        g = index.get(packed);
        if (g === undefined) { g = this.#newGroup(packed, keyCols, i, 0, 'map', textIds); added += GROUP_OVERHEAD; }
      }
      lastGroups.set(code, id, g);
      if (small) smallGroups[code * SMALL_IDS + id] = g;
      groups[i] = g;
    }
    return { groups, added };
  }

  /** Steps the states with one input batch; returns the bytes newly held (charged to `run.memory`). */
  async sink(b: ColumnarBatch, run: RunState): Promise<number> {
    const c = this.#c;
    const n = b.numRows;
    const keyCols: (readonly unknown[])[] = [];
    const textIds: (Int32Array | undefined)[] = [];
    for (let k = 0; k < c.keyExprs.length; k++) {
      const ids = this.#textKeyIds(b, k);
      textIds.push(ids);
      if (ids === undefined) {
        // An int4 key still in Arrow form is read from its buffer: its numbers are the key values.
        const ints = c.keyIntColumns[k]! >= 0 ? int32Column(b, c.keyIntColumns[k]!) : undefined;
        keyCols.push(ints !== undefined ? (ints as unknown as unknown[]) : await c.keyExprs[k]!.evaluate(b, run));
        continue;
      }
      // Read through the ids where a value is needed (a new id or group): no row is decoded.
      keyCols.push(NO_VALUES);
    }
    const columns = this.#columns;
    const argCols: unknown[][][] = [];
    const sels: (Int32Array | undefined)[] = [];
    const counts: number[] = [];
    const orderCols: unknown[][][] = [];
    const scaledArgs: (ScaledVector | undefined)[] = [];
    for (let a = 0; a < c.aggs.length; a++) {
      const ag = c.aggs[a]!;
      // A numeric argument with an exact scaled form skips numeric text altogether.
      const scaled = (ag.columnar ? this.#columns[a]!.batchStepScaled : ag.impl.batchStepScaled) && !ag.buffered && ag.args.length === 1
        ? ag.args[0]!.evaluateScaled?.(b) : undefined;
      scaledArgs.push(scaled);
      const cols: unknown[][] = [];
      if (!scaled) for (const e of ag.args) cols.push(await e.evaluate(b, run));
      argCols.push(cols);
      const f = ag.filter ? await ag.filter.evaluate(b, run) : undefined;
      const { sel, count } = scaled ? validSelection(n, f, scaled.valid) : selection(n, f, ag.strict ? cols : []);
      sels.push(sel);
      counts.push(count);
      const oc: unknown[][] = [];
      for (const e of ag.orderExprs) oc.push(await e.evaluate(b, run));
      orderCols.push(oc);
    }
    let added = 0;
    for (let s = 0; s < c.sets.length; s++) {
      const before = this.#size;
      const { groups, added: groupBytes } = this.assignGroups(keyCols, n, s, textIds);
      added += groupBytes;
      if (this.#size > before && c.dependentKeys.length > 0) {
        const rows = firstRows(groups, before, this.#size - before);
        for (let j = 0; j < c.dependentKeys.length; j++) {
          const d = c.dependentKeys[j]!;
          added += this.#dependent[j]!.append(selectColumn(d.column >= 0 ? columnSource(b, d.column) : await d.expr.evaluate(b, run), rows));
        }
      }
      for (let a = 0; a < c.aggs.length; a++) {
        const ag = c.aggs[a]!;
        const cols = argCols[a]!;
        const sel = sels[a];
        const count = counts[a]!;
        if (count === 0) continue;
        const states = this.#states[a]!;
        if (ag.buffered) {
          added += this.#sinkBuffered(a, groups, cols, orderCols[a]!, sel, count);
          continue;
        }
        const scaled = scaledArgs[a];
        const typed = columns[a];
        if (typed) {
          typed.resize(this.size);
          if (scaled) typed.batchStepScaled!(groups, scaled, sel, count);
          else typed.batchStep(groups, cols, sel, count);
          continue;
        }
        if (scaled) {
          ag.impl.batchStepScaled!(states, groups, scaled, sel, count);
          continue;
        }
        if (ag.impl.batchStep) {
          ag.impl.batchStep(states, groups, cols, sel, count);
          continue;
        }
        const args = new Array<unknown>(cols.length);
        for (let k = 0; k < count; k++) {
          const i = sel ? sel[k]! : k;
          for (let j = 0; j < cols.length; j++) args[j] = cols[j]![i];
          const g = groups[i]!;
          states[g] = ag.impl.step(states[g], args);
        }
      }
    }
    run.memory.reserve(added, 'hash aggregate');
    return added;
  }

  /** The key columns in GROUP BY order, hashed and dependent keys where the query wrote them; `decoded`: every one as values. */
  #keyColumns(decoded: boolean): ColumnSource[] {
    const c = this.#c;
    if (c.dependentKeys.length === 0) return this.#keys;
    const out = new Array<ColumnSource>(c.spec.groupBy.length);
    c.hashedKeys.forEach((k, j) => { out[k] = this.#keys[j]!; });
    c.dependentKeys.forEach((d, j) => { out[d.index] = decoded ? this.#dependent[j]!.values() : this.#dependent[j]!.column(); });
    return out;
  }

  #sinkBuffered(a: number, groups: Int32Array, cols: readonly (readonly unknown[])[], orderCols: readonly (readonly unknown[])[], sel: Int32Array | undefined, count: number): number {
    const ag = this.#c.aggs[a]!;
    const states = this.#states[a]!;
    let added = 0;
    if (ag.distinctInts) {
      // (group, value) pairs seen go into one typed table as group * 2^32 + value (exact, unique):
      // no Set per group (Q16: 18k groups of about 7 values each) and no key string; a
      // group past PAIR_GROUPS keeps a Set. The rows first seen step the states as one batch.
      const col = cols[0]!;
      const pairs = (this.#distinctPairs[a] ??= new IntHashTable(1024));
      const seenOf = this.#seen[a]!;
      const fresh = new Int32Array(count);
      let m = 0;
      for (let k = 0; k < count; k++) {
        const i = sel ? sel[k]! : k;
        const g = groups[i]!;
        const v = col[i];
        if (typeof v === 'number' && g < PAIR_GROUPS) {
          if (pairs.push(g * TWO_32 + v, 0) >= 0) continue;
        } else {
          const seen = (seenOf[g] ??= new Set<unknown>());
          if (seen.has(v)) continue;
          seen.add(v);
        }
        fresh[m++] = i;
      }
      if (m === 0) return 0;
      if (ag.impl.batchStep) ag.impl.batchStep(states, groups, cols, fresh, m);
      else for (let k = 0; k < m; k++) { const i = fresh[k]!; const g = groups[i]!; states[g] = ag.impl.step(states[g], [col[i]]); }
      return 32 * m;
    }
    for (let k = 0; k < count; k++) {
      const i = sel ? sel[k]! : k;
      const g = groups[i]!;
      const args = cols.map((col) => col[i]);
      const pend = this.#pending[a]![g];
      if (pend) {
        pend.push([...args, ...orderCols.map((col) => col[i])]);
        added += 16 * (args.length + 1);
        continue;
      }
      const seen = this.#seen[a]![g];
      if (seen) {
        const key = rowKey(args, ag.argTypes);
        if (seen.has(key)) continue;
        seen.add(key);
        added += key.length * 2 + 32;
      }
      states[g] = ag.impl.step(states[g], args);
    }
    return added;
  }

  /**
   * This table's groups as structured-cloneable data (aggregates without
   * DISTINCT/ORDER BY only): key columns of numbers go as Float64Arrays, and
   * columnar aggregates as their typed columns, so cloning them is a copy of
   * buffers rather than of a value or an object per group.
   */
  partial(): PartialAggregate {
    if (this.#c.aggs.some((ag) => ag.buffered)) throw new FloeError(SqlState.internalError, 'partial DISTINCT/ORDER BY aggregates cannot be exported');
    const n = this.size;
    return {
      numGroups: n,
      keys: (this.#keyColumns(true) as unknown[][]).map(numbersAsTyped),
      states: this.#c.aggs.map((_, a) => {
        const typed = this.#columns[a];
        if (!typed) return this.#states[a]!;
        // Groups no row of this aggregate reached may lie past its columns so far.
        typed.resize(n);
        return typed.export(n);
      }),
    };
  }

  /** Merges another table's partial (same spec, no grouping sets) with the aggregates' combine; returns the bytes newly held. */
  merge(p: PartialAggregate): number {
    if (p.numGroups === 0) return 0;
    const c = this.#c;
    const keys = c.hashedKeys.map((k) => p.keys[k]!) as readonly (readonly unknown[])[];
    if (c.directKey && keys[0] instanceof Float64Array) this.#expectInts(keys[0]);
    const before = this.#size;
    const { groups, added: groupBytes } = this.assignGroups(keys, p.numGroups, 0);
    let added = groupBytes;
    if (this.#size > before && c.dependentKeys.length > 0) {
      const rows = firstRows(groups, before, this.#size - before);
      c.dependentKeys.forEach((d, j) => { added += this.#dependent[j]!.append(selectColumn(p.keys[d.index] as readonly unknown[], rows)); });
    }
    for (let a = 0; a < this.#c.aggs.length; a++) {
      const typed = this.#columns[a];
      if (typed) {
        typed.resize(this.size);
        typed.merge(p.states[a] as ColumnarPartial, groups);
        continue;
      }
      const impl = this.#c.aggs[a]!.impl;
      const states = this.#states[a]!;
      const from = p.states[a] as readonly unknown[];
      for (let i = 0; i < p.numGroups; i++) {
        const g = groups[i]!;
        states[g] = impl.combine(states[g], from[i]);
      }
    }
    return added;
  }

  /** Tells the int key index the range of a partial's keys before they arrive (when they are all int32). */
  #expectInts(keys: Float64Array): void {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if ((k | 0) !== k) return;
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
    if (keys.length > 0) this.#ints.expect(lo, hi, keys.length);
  }

  /** Done with the table (after partial() or finish()): its key index hands its memory on for reuse. */
  release(): void {
    this.#ints.release();
    for (const d of this.#dicts ?? []) d.release();
  }

  /** Adds the grand-total groups (sets without keys) so they yield a row even on empty input. */
  ensureEmptySets(): void {
    const c = this.#c;
    const none = c.keyExprs.map(() => [null]);
    for (let s = 0; s < c.sets.length; s++) if (c.sets[s]!.length === 0) this.assignGroups(none, 1, s);
  }

  /**
   * The output columns (keys, aggregates, grouping id) of every group, in group
   * order; a typed aggregate's column may come as Arrow data (ColumnarAggregate.finishArrow).
   */
  finish(withGroupingId: boolean): { columns: ColumnSource[]; numRows: number } {
    const c = this.#c;
    const n = this.size;
    const out: ColumnSource[] = [...this.#keyColumns(false)];
    for (let a = 0; a < c.aggs.length; a++) {
      const ag = c.aggs[a]!;
      const typed = this.#columns[a];
      if (typed) {
        typed.resize(n);
        const data = typed.finishArrow?.(n);
        out.push(data ? new ArrowColumn(data, c.spec.aggregates[a]!.type) : typed.finish(n));
        continue;
      }
      const states = this.#states[a]!;
      const col = new Array<unknown>(n);
      for (let g = 0; g < n; g++) {
        const pend = this.#pending[a]![g];
        const state = pend ? this.#replay(ag, states[g], pend) : states[g];
        const v = ag.impl.final(state);
        col[g] = v === undefined ? null : v;
      }
      out.push(col);
    }
    if (withGroupingId) {
      const nk = c.keyExprs.length;
      out.push(this.#setIndex!.map((s) => {
        const set = c.sets[s]!;
        let id = 0;
        for (let k = 0; k < nk; k++) if (!set.includes(k)) id |= 1 << (nk - 1 - k);
        return id;
      }));
    }
    return { columns: out, numRows: n };
  }

  /** Steps an ORDER BY aggregate's buffered rows in order (deduplicated for DISTINCT). */
  #replay(ag: CompiledAggregate, state: unknown, pend: unknown[][]): unknown {
    const n = ag.args.length;
    const cols: unknown[][] = Array.from({ length: n + ag.orderExprCount }, (_, c) => pend.map((r) => r[c]));
    const idx = pend.map((_, i) => i);
    idx.sort(ag.ordered!.comparator(cols.slice(n)));
    const seen = ag.distinct ? new Set<string>() : undefined;
    for (const i of idx) {
      const args = pend[i]!.slice(0, n);
      if (seen) {
        const k = rowKey(args, ag.argTypes);
        if (seen.has(k)) continue;
        seen.add(k);
      }
      state = ag.impl.step(state, args);
    }
    return state;
  }
}

/**
 * The first row of each group numbered from `before` to `before + count - 1`.
 * Groups are numbered as rows first reach them, so each one's first row is
 * where its number first appears.
 */
function firstRows(groups: Int32Array, before: number, count: number): Int32Array {
  const rows = new Int32Array(count);
  let next = before;
  for (let i = 0; i < groups.length && next < before + count; i++) if (groups[i] === next) rows[next++ - before] = i;
  if (next !== before + count) throw new FloeError(SqlState.internalError, 'hash aggregate groups were not numbered in row order');
  return rows;
}

/** A key column as a Float64Array when every key in it is a number (cloned as one buffer), else as it is. */
function numbersAsTyped(keys: readonly unknown[]): readonly unknown[] | Float64Array {
  for (let i = 0; i < keys.length; i++) if (typeof keys[i] !== 'number') return keys;
  return Float64Array.from(keys as number[]);
}

/** Rows an aggregate steps: those passing its FILTER and, for strict aggregates, without a NULL argument (undefined = all n rows). */
/** selection() for one argument given by its validity (ScaledVector.valid: 0 = NULL). */
function validSelection(n: number, filter: readonly unknown[] | undefined, valid: Uint8Array | undefined): { sel: Int32Array | undefined; count: number } {
  if (filter === undefined && valid === undefined) return { sel: undefined, count: n };
  const sel = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (filter !== undefined && filter[i] !== true) continue;
    if (valid !== undefined && valid[i] === 0) continue;
    sel[count++] = i;
  }
  return count === n ? { sel: undefined, count } : { sel, count };
}

function selection(n: number, filter: readonly unknown[] | undefined, strictArgs: readonly (readonly unknown[])[]): { sel: Int32Array | undefined; count: number } {
  let firstDrop = -1;
  for (let i = 0; i < n && firstDrop < 0; i++) {
    if (filter && filter[i] !== true) { firstDrop = i; break; }
    for (let c = 0; c < strictArgs.length; c++) if (strictArgs[c]![i] === null) { firstDrop = i; break; }
  }
  if (firstDrop < 0) return { sel: undefined, count: n };
  const sel = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < firstDrop; i++) sel[count++] = i;
  for (let i = firstDrop; i < n; i++) {
    if (filter && filter[i] !== true) continue;
    let keep = true;
    for (let c = 0; c < strictArgs.length; c++) if (strictArgs[c]![i] === null) { keep = false; break; }
    if (keep) sel[count++] = i;
  }
  return { sel, count };
}

