import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { valueOrderOf } from '../stats/value-order.js';

/**
 * Paimon's merge engines: how the rows written for one key combine (docs/design-notes.md,
 * "Merge engines"). Chosen per table by the `merge-engine` property; the engine's options
 * are more properties, named as Paimon names them. Column names here are SQL names;
 * `resolveMergeEngine` turns them into the physical names the merge reads.
 */
export type MergeEngine =
  | { readonly kind: 'deduplicate' }
  | { readonly kind: 'first-row' }
  | { readonly kind: 'partial-update'; readonly groups: readonly SequenceGroup[]; readonly removeRecordOnDelete: boolean }
  | {
      readonly kind: 'aggregation';
      /** Every non-key column's function (last_non_null_value where none is given, as Paimon's default). */
      readonly functions: Readonly<Record<string, AggregateFunction>>;
      /** listagg columns' delimiters (default ','). */
      readonly delimiters: Readonly<Record<string, string>>;
      readonly removeRecordOnDelete: boolean;
    };

export type MergeEngineKind = MergeEngine['kind'];

/** `fields.<seq>[,<seq>…].sequence-group = a,b`: columns a, b change only with a row whose sequence is at least the stored one. */
export interface SequenceGroup {
  readonly sequenceColumns: readonly string[];
  readonly columns: readonly string[];
}

export const AGGREGATE_FUNCTIONS = [
  'sum', 'min', 'max', 'count', 'last_value', 'last_non_null_value', 'first_value', 'first_non_null_value', 'listagg', 'bool_and', 'bool_or',
] as const;
export type AggregateFunction = typeof AGGREGATE_FUNCTIONS[number];

/** Functions a -U (an UPDATE's before-image) can be taken back from: sum and count subtract, last_* clear. */
export const RETRACTABLE_FUNCTIONS: ReadonlySet<AggregateFunction> = new Set(['sum', 'count', 'last_value', 'last_non_null_value']);

export const MERGE_ENGINE_KINDS: readonly MergeEngineKind[] = ['deduplicate', 'first-row', 'partial-update', 'aggregation'];

/** The engine's fixed property keys (the `fields.<col>.…` keys are matched by isMergeEngineProperty). */
export const MERGE_ENGINE_PROPERTIES: Readonly<Record<string, string>> = {
  'merge-engine': 'how rows with the same key combine: deduplicate (the last change wins), first-row, partial-update or aggregation',
  'partial-update.remove-record-on-delete': 'partial-update tables: true lets DELETE remove the row (otherwise DELETE is refused)',
  'aggregation.remove-record-on-delete': 'aggregation tables: true lets DELETE remove the row (otherwise DELETE is refused)',
};

const FIELD_KEY = /^fields\.(.+)\.(sequence-group|aggregate-function|list-agg-delimiter)$/;

/** Whether a property key belongs to the merge engine (changing one after rows exist is refused). */
export function isMergeEngineProperty(key: string): boolean {
  return Object.hasOwn(MERGE_ENGINE_PROPERTIES, key) || FIELD_KEY.test(key);
}

interface TableShape {
  readonly name?: string;
  readonly columns: readonly { readonly name: string; readonly type: SqlType }[];
  readonly primaryKey?: readonly string[];
  readonly properties?: Readonly<Record<string, string>>;
}

const DEDUPLICATE: MergeEngine = { kind: 'deduplicate' };

/** The table's engine, its options checked against its columns (22023, 42703 for a missing column). */
export function mergeEngineOf(table: TableShape): MergeEngine {
  const props = table.properties ?? {};
  const kind = props['merge-engine'] ?? 'deduplicate';
  if (!(MERGE_ENGINE_KINDS as readonly string[]).includes(kind)) {
    throw bad(`invalid value for merge-engine: "${kind}"`, `merge-engine: ${MERGE_ENGINE_PROPERTIES['merge-engine']}.`);
  }
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const key = new Set(table.primaryKey ?? []);
  if (kind !== 'deduplicate' && key.size === 0) {
    throw bad(`merge-engine "${kind}" needs a primary key`, 'Rows combine by key: declare a PRIMARY KEY.');
  }
  const column = (name: string, what: string) => {
    const c = byName.get(name);
    if (c === undefined) throw new FloeError(SqlState.undefinedColumn, `column "${name}" named in ${what} does not exist`);
    if (key.has(name)) throw bad(`column "${name}" named in ${what} is a primary key column`, 'Key columns are the same in every row of a key.');
    return c;
  };
  const flag = (k: string): boolean => {
    const v = props[k];
    if (v === undefined) return false;
    const t = v.trim().toLowerCase();
    if (t !== 'true' && t !== 'false') throw bad(`invalid value for ${k}: "${v}"`, `${k}: true or false.`);
    return t === 'true';
  };
  const groups: SequenceGroup[] = [];
  const functions: Record<string, AggregateFunction> = {};
  const delimiters: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) {
    if (k.startsWith('partial-update.') && Object.hasOwn(MERGE_ENGINE_PROPERTIES, k) && kind !== 'partial-update') throw onlyFor(k, 'partial-update', kind);
    if (k.startsWith('aggregation.') && Object.hasOwn(MERGE_ENGINE_PROPERTIES, k) && kind !== 'aggregation') throw onlyFor(k, 'aggregation', kind);
    const m = FIELD_KEY.exec(k);
    if (m === null) continue;
    const [, target, option] = m as unknown as [string, string, string];
    if (option === 'sequence-group') {
      if (kind !== 'partial-update') throw onlyFor(k, 'partial-update', kind);
      const seqs = splitNames(target);
      for (const s of seqs) {
        if (valueOrderOf(column(s, k).type) === undefined) throw bad(`sequence column "${s}" has a type without an order`, 'Use a number, date, time, timestamp or text column.');
      }
      const cols = splitNames(v);
      if (cols.length === 0) throw bad(`invalid value for ${k}: "${v}"`, 'Name the columns the sequence orders, separated by commas.');
      for (const c of cols) column(c, k);
      groups.push({ sequenceColumns: seqs, columns: cols });
    } else if (option === 'aggregate-function') {
      if (kind !== 'aggregation') throw onlyFor(k, 'aggregation', kind);
      const fn = v.trim().toLowerCase() as AggregateFunction;
      if (!AGGREGATE_FUNCTIONS.includes(fn)) throw bad(`invalid value for ${k}: "${v}"`, `Aggregate functions: ${AGGREGATE_FUNCTIONS.join(', ')}.`);
      checkAggregateType(fn, column(target, k), k);
      functions[target] = fn;
    } else {
      if (kind !== 'aggregation') throw onlyFor(k, 'aggregation', kind);
      column(target, k);
      delimiters[target] = v;
    }
  }
  switch (kind) {
    case 'deduplicate': return DEDUPLICATE;
    case 'first-row': return { kind: 'first-row' };
    case 'partial-update': {
      checkGroupsDisjoint(groups);
      return { kind: 'partial-update', groups, removeRecordOnDelete: flag('partial-update.remove-record-on-delete') };
    }
    default: {
      for (const d of Object.keys(delimiters)) {
        if (functions[d] !== 'listagg') throw bad(`fields.${d}.list-agg-delimiter needs fields.${d}.aggregate-function = listagg`, undefined);
      }
      for (const c of table.columns) if (!key.has(c.name) && functions[c.name] === undefined) functions[c.name] = 'last_non_null_value';
      return { kind: 'aggregation', functions, delimiters, removeRecordOnDelete: flag('aggregation.remove-record-on-delete') };
    }
  }
}

/** Whether rows of a key combine by anything but "the last change wins". */
export function mergesRows(engine: MergeEngine): boolean {
  return engine.kind !== 'deduplicate';
}

function checkGroupsDisjoint(groups: readonly SequenceGroup[]): void {
  const owner = new Map<string, string>();
  for (const g of groups) {
    for (const c of [...g.sequenceColumns, ...g.columns]) {
      const prev = owner.get(c);
      const name = g.sequenceColumns.join(',');
      if (prev !== undefined && prev !== name) throw bad(`column "${c}" is in two sequence groups`, 'A column belongs to at most one sequence group.');
      owner.set(c, name);
    }
  }
}

const NUMBERS = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric']);
const TEXTS = new Set(['text', 'varchar']);

function checkAggregateType(fn: AggregateFunction, c: { readonly name: string; readonly type: SqlType }, key: string): void {
  const k = c.type.kind;
  const ok = fn === 'sum' ? NUMBERS.has(k)
    : fn === 'count' ? k === 'int4' || k === 'int8'
      : fn === 'min' || fn === 'max' ? valueOrderOf(c.type) !== undefined
        : fn === 'listagg' ? TEXTS.has(k)
          : fn === 'bool_and' || fn === 'bool_or' ? k === 'bool'
            : true;
  if (!ok) throw new FloeError(SqlState.datatypeMismatch, `aggregate function ${fn} does not apply to column "${c.name}" of type ${k}`, { detail: `property ${key}` });
}

function splitNames(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

function bad(message: string, hint: string | undefined): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message, hint === undefined ? undefined : { hint });
}

function onlyFor(key: string, engine: string, kind: string): FloeError {
  return bad(`table property "${key}" applies to merge-engine ${engine}, not ${kind}`, `Set 'merge-engine' = '${engine}' with it.`);
}

/**
 * The engine as the merge reads it: physical column names (c<fieldId>) and each column's
 * type. Plain data, so it travels with scan and rewrite tasks to worker threads.
 */
export type MergeEngineSpec = MergeEngine & { readonly types: Readonly<Record<string, SqlType>> };

/** Resolves SQL names to physical ones; undefined for deduplicate, which the vectorized merge runs. */
export function resolveMergeEngine(
  table: Omit<TableShape, 'columns'> & { readonly columns: readonly { readonly name: string; readonly type: SqlType; readonly fieldId: number }[] },
): MergeEngineSpec | undefined {
  const engine = mergeEngineOf(table);
  if (engine.kind === 'deduplicate') return undefined;
  const phys = new Map(table.columns.map((c) => [c.name, `c${c.fieldId}`]));
  const p = (n: string): string => phys.get(n)!;
  const types = Object.fromEntries(table.columns.map((c) => [p(c.name), c.type]));
  switch (engine.kind) {
    case 'first-row': return { ...engine, types };
    case 'partial-update':
      return { ...engine, types, groups: engine.groups.map((g) => ({ sequenceColumns: g.sequenceColumns.map(p), columns: g.columns.map(p) })) };
    case 'aggregation':
      return {
        ...engine, types,
        functions: Object.fromEntries(Object.entries(engine.functions).map(([k, v]) => [p(k), v])),
        delimiters: Object.fromEntries(Object.entries(engine.delimiters).map(([k, v]) => [p(k), v])),
      };
  }
}

/**
 * Refuses a write the table's engine cannot take (0A000), before anything is staged.
 * - `update` (-U/+U pairs): first-row keeps its first row, so an UPDATE would silently do
 *   nothing; aggregation takes the before-image back, which only some functions can.
 * - `delete` (a key-only -D): removes the row only where the engine's
 *   `…remove-record-on-delete` says so (first-row always: a later row is then the first).
 * - `moveKey` (UPDATE of a key column): a -D and a checked +I, not supported beside merging.
 */
export function checkMergeEngineWrite(table: TableShape, write: 'update' | 'delete' | 'moveKey'): void {
  const engine = mergeEngineOf(table);
  if (engine.kind === 'deduplicate') return;
  const name = table.name === undefined ? 'the table' : `table "${table.name}"`;
  const refuse = (what: string, hint: string): never => {
    throw new FloeError(SqlState.featureNotSupported, `${what} is not supported on ${name} (merge-engine ${engine.kind})`, { hint });
  };
  if (write === 'moveKey') refuse('changing a primary key value', 'DELETE the row and INSERT it under its new key.');
  if (engine.kind === 'first-row' && write === 'update') {
    refuse('UPDATE', 'The first row written for a key stays: DELETE it, then INSERT the new row.');
  }
  if (engine.kind === 'partial-update' && write === 'delete' && !engine.removeRecordOnDelete) {
    refuse('DELETE', "Set 'partial-update.remove-record-on-delete' = 'true' to let DELETE remove rows.");
  }
  if (engine.kind === 'aggregation') {
    if (write === 'delete' && !engine.removeRecordOnDelete) {
      refuse('DELETE', "Set 'aggregation.remove-record-on-delete' = 'true' to let DELETE remove rows.");
    }
    if (write === 'update') {
      const fixed = Object.entries(engine.functions).filter(([, fn]) => !RETRACTABLE_FUNCTIONS.has(fn));
      if (fixed.length > 0) {
        refuse('UPDATE', `An UPDATE takes the old row back, which ${fixed.map(([c, fn]) => `${fn} (column "${c}")`).join(', ')} cannot; sum, count, last_value and last_non_null_value can.`);
      }
    }
  }
}

/** The columns the engine's `fields.…` properties name (a drop or rename of one is refused). */
export function mergeEngineColumns(properties: Readonly<Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(properties)) {
    const m = FIELD_KEY.exec(k);
    if (m === null) continue;
    for (const c of splitNames(m[1]!)) out.set(c, k);
    if (m[2] === 'sequence-group') for (const c of splitNames(v)) out.set(c, k);
  }
  return out;
}
