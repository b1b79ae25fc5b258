/**
 * Shared by the materialized-view tests: three small keyed base tables, one view of every
 * shape REFRESH maintains incrementally (and three it refreshes in full), random histories of
 * writes to the tables as SQL, and the comparison of a view with its defining query.
 *
 * Every view's query is written over `Ref`s so the same text can also be run with each
 * table read at a snapshot (`FOR SYSTEM_VERSION AS OF n AS f`): the crash test compares a
 * view with its query at the positions the catalog records.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type pg from 'pg';

export type BaseTable = 'f' | 'd' | 'e';

/** How a view's query names a base table: `f`, or `f FOR SYSTEM_VERSION AS OF 12 AS f`. */
export type Ref = (table: BaseTable, alias?: string) => string;

export const plainRef: Ref = (table, alias) => (alias === undefined ? table : `${table} AS ${alias}`);

/** Each table read at the snapshot `positions` gives it (by table name). */
export function snapshotRef(positions: ReadonlyMap<BaseTable, string>): Ref {
  return (table, alias) => `${table} FOR SYSTEM_VERSION AS OF ${positions.get(table)!} AS ${alias ?? table}`;
}

/** Non-key columns of each base table (all int); `k int` is the primary key of each. */
export const COLUMNS: Readonly<Record<BaseTable, readonly string[]>> = {
  // fact: a group column, a value, a reference to d.k
  f: ['g', 'v', 'fk'],
  // dimension: a group column, a value, a reference to e.k
  d: ['g', 'w', 'fk'],
  e: ['x'],
};
export const TABLES: readonly BaseTable[] = ['f', 'd', 'e'];

/** How each table's changelog is produced: 'lookup' tables' refreshes read ΔR from their change rows. */
export type Changelogs = Readonly<Record<BaseTable, 'input' | 'lookup'>>;

export const INPUT_CHANGELOGS: Changelogs = { f: 'input', d: 'input', e: 'input' };

export const anyChangelogs: fc.Arbitrary<Changelogs> = fc.record({ f: producer(), d: producer(), e: producer() });

function producer(): fc.Arbitrary<'input' | 'lookup'> {
  return fc.constantFrom('input', 'lookup');
}

export function createTablesSql(changelogs: Changelogs = INPUT_CHANGELOGS): string[] {
  return TABLES.map((t) => `CREATE TABLE ${t} (k int PRIMARY KEY, ${COLUMNS[t].map((c) => `${c} int`).join(', ')}) WITH ('changelog-producer' = '${changelogs[t]}')`);
}


export interface ViewDef {
  readonly name: string;
  /** What REFRESH is expected to do once the view is populated. */
  readonly refresh: 'incremental' | 'full';
  readonly query: (r: Ref) => string;
}

export const VIEWS: readonly ViewDef[] = [
  { name: 'v_proj', refresh: 'incremental', query: (r) => `SELECT k, g, v * 2 AS v2 FROM ${r('f')} WHERE v > 0 OR g IS NULL` },
  { name: 'v_join', refresh: 'incremental', query: (r) => `SELECT f.k, f.v, d.k AS dk, d.w FROM ${r('f')} JOIN ${r('d')} ON f.fk = d.k` },
  {
    name: 'v_join3', refresh: 'incremental',
    query: (r) => `SELECT f.k, d.k AS dk, e.k AS ek, f.v + e.x AS s FROM ${r('f')}, ${r('d')}, ${r('e')} WHERE f.fk = d.k AND d.fk = e.k`,
  },
  { name: 'v_self', refresh: 'incremental', query: (r) => `SELECT a.k, b.k AS bk, a.v - b.v AS dv FROM ${r('f', 'a')} JOIN ${r('f', 'b')} ON a.fk = b.k` },
  {
    name: 'v_union', refresh: 'incremental',
    query: (r) => `SELECT k, v FROM ${r('f')} WHERE v > 2 UNION ALL SELECT k, w FROM ${r('d')} WHERE w < 3 UNION ALL SELECT k, v FROM ${r('f')} WHERE g = 1`,
  },
  // With min and max, a group a change took an extreme from is computed again from the base
  // tables, which would hide a wrong sum or count there: the views after v_agg have none.
  {
    name: 'v_agg', refresh: 'incremental',
    query: (r) => `SELECT g, count(*) AS n, count(v) AS nv, sum(v) AS s, avg(v) AS a, min(v) AS mn, max(v) AS mx, bool_and(v > 0) AS ba, bool_or(v > 3) AS bo FROM ${r('f')} GROUP BY g`,
  },
  {
    name: 'v_agg_sums', refresh: 'incremental',
    query: (r) => `SELECT g, count(*) AS n, count(v) AS nv, sum(v) AS s, avg(v) AS a, bool_and(v > 0) AS ba, bool_or(v > 3) AS bo FROM ${r('f')} GROUP BY g`,
  },
  {
    name: 'v_agg_pos', refresh: 'incremental',
    query: (r) => `SELECT g, fk % 2 AS par, sum(v) AS s, count(*) AS n, bool_or(v IS NULL) AS anynull FROM ${r('f')} WHERE v IS DISTINCT FROM 0 GROUP BY 1, 2`,
  },
  {
    name: 'v_scalar', refresh: 'incremental',
    query: (r) => `SELECT count(*) AS n, count(x) AS nx, sum(x) AS s, avg(x) AS a, bool_and(x > 0) AS ba, bool_or(x > 2) AS bo FROM ${r('e')}`,
  },
  { name: 'v_scalar_ext', refresh: 'incremental', query: (r) => `SELECT min(x) AS mn, max(x) AS mx, count(*) AS n FROM ${r('e')}` },
  { name: 'v_distinct', refresh: 'incremental', query: (r) => `SELECT DISTINCT g, fk FROM ${r('f')}` },
  {
    name: 'v_join_agg', refresh: 'incremental',
    query: (r) => `SELECT d.g, count(*) AS n, count(f.v) AS nv, sum(f.v) AS s, avg(d.w) AS aw, bool_or(f.v > d.w) AS bo FROM ${r('f')} JOIN ${r('d')} ON f.fk = d.k GROUP BY d.g`,
  },
  {
    name: 'v_join_ext', refresh: 'incremental',
    query: (r) => `SELECT d.g, min(f.v) AS mn, max(d.w) AS mxw, count(*) AS n FROM ${r('f')} JOIN ${r('d')} ON f.fk = d.k GROUP BY d.g`,
  },
  // LEFT JOINs: a change on the padded side moves left rows between matched and padded.
  { name: 'v_left', refresh: 'incremental', query: (r) => `SELECT f.g, d.w FROM ${r('f')} LEFT JOIN ${r('d')} ON f.fk = d.k` },
  {
    name: 'v_left_chain', refresh: 'incremental',
    query: (r) => `SELECT f.k, d.k AS dk, e.x FROM ${r('f')} LEFT JOIN ${r('d')} ON f.fk = d.k LEFT JOIN ${r('e')} ON d.fk = e.k`,
  },
  {
    name: 'v_left_on', refresh: 'incremental',
    query: (r) => `SELECT f.k, d.w, e.x FROM ${r('f')} JOIN ${r('d')} ON f.fk = d.k LEFT JOIN ${r('e')} ON d.fk = e.k AND e.x > 0 AND e.x <> d.w`,
  },
  {
    name: 'v_left_where', refresh: 'incremental',
    query: (r) => `SELECT f.k, f.v, d.w FROM ${r('f')} LEFT JOIN ${r('d')} ON f.fk = d.k AND f.v < d.w WHERE d.w IS NULL OR f.g = 1`,
  },
  { name: 'v_left_self', refresh: 'incremental', query: (r) => `SELECT a.k, b.k AS bk, b.v FROM ${r('f', 'a')} LEFT JOIN ${r('f', 'b')} ON a.fk = b.k` },
  {
    name: 'v_left_agg', refresh: 'incremental',
    query: (r) => `SELECT d.g, count(*) AS n, count(d.w) AS nw, sum(f.v) AS s, avg(d.w) AS aw FROM ${r('f')} LEFT JOIN ${r('d')} ON f.fk = d.k GROUP BY d.g`,
  },
  { name: 'v_left_ext', refresh: 'incremental', query: (r) => `SELECT f.g, min(d.w) AS mn, max(d.w) AS mx, count(*) AS n FROM ${r('f')} LEFT JOIN ${r('d')} ON f.fk = d.k GROUP BY f.g` },
  { name: 'v_full_join', refresh: 'full', query: (r) => `SELECT f.k, d.k AS dk FROM ${r('f')} FULL JOIN ${r('d')} ON f.fk = d.k` },
  { name: 'v_having', refresh: 'full', query: (r) => `SELECT g, count(*) AS n FROM ${r('f')} GROUP BY g HAVING count(*) > 1` },
];

export function createViewSql(v: ViewDef): string {
  return `CREATE MATERIALIZED VIEW ${v.name} AS ${v.query(plainRef)}`;
}

// ---------------------------------------------------------------- random histories

const small = fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 6 }));
const VALUES: Readonly<Record<string, fc.Arbitrary<number | null>>> = {
  g: fc.constantFrom(null, 1, 2, 3),
  fk: fc.constantFrom(null, 1, 2, 3, 4, 5),
  v: small,
  w: small,
  x: small,
};
const key = fc.integer({ min: 1, max: 8 });
const table = fc.constantFrom<BaseTable>('f', 'f', 'd', 'e');

function lit(v: number | null): string {
  return v === null ? 'NULL' : String(v);
}

/** A row of `t` without its key, as SQL literals. */
function rowOf(t: BaseTable): fc.Arbitrary<string[]> {
  return fc.tuple(...COLUMNS[t].map((c) => VALUES[c]!)).map((vs) => vs.map(lit));
}

/** The table's value column (v, w or x). */
function valueColumn(t: BaseTable): string {
  return COLUMNS[t].find((c) => c === 'v' || c === 'w' || c === 'x')!;
}

/** A WHERE clause over `t`: one key, a key range, a group, NULLs, a value range, or every row. */
function predicate(t: BaseTable): fc.Arbitrary<string> {
  const value = valueColumn(t);
  const forms: fc.Arbitrary<string>[] = [
    key.map((k) => `k = ${k}`), key.map((k) => `k <= ${k}`), fc.integer({ min: -2, max: 6 }).map((n) => `${value} > ${n}`),
    fc.constant(`${value} IS NULL`), fc.constant('true'),
  ];
  if (t !== 'e') forms.push(fc.constantFrom(null, 1, 2, 3).map((g) => (g === null ? 'g IS NULL' : `g = ${g}`)));
  return fc.oneof(...forms);
}

/** One write to a base table, as SQL (it may fail with 23505: a key that exists). */
export function writeOf(t: BaseTable): fc.Arbitrary<string> {
  const cols = COLUMNS[t];
  const value = valueColumn(t);
  return fc.oneof(
    // upsert
    { weight: 4, arbitrary: fc.tuple(key, rowOf(t)).map(([k, row]) => `INSERT INTO ${t} VALUES (${k}, ${row.join(', ')}) ON CONFLICT (k) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`) },
    // plain insert of one or more keys
    {
      weight: 3,
      arbitrary: fc.uniqueArray(fc.tuple(key, rowOf(t)), { minLength: 1, maxLength: 3, selector: ([k]) => k })
        .map((rows) => `INSERT INTO ${t} VALUES ${rows.map(([k, row]) => `(${k}, ${row.join(', ')})`).join(', ')}`),
    },
    // update of a non-key column
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...cols), predicate(t)).chain(([c, p]) => VALUES[c]!.map((v) => `UPDATE ${t} SET ${c} = ${lit(v)} WHERE ${p}`)) },
    { weight: 1, arbitrary: predicate(t).map((p) => `UPDATE ${t} SET ${value} = ${value} + 1 WHERE ${p}`) },
    // key changes: one row, or several at once (which may collide)
    { weight: 2, arbitrary: fc.tuple(key, fc.integer({ min: 1, max: 10 })).map(([from, to]) => `UPDATE ${t} SET k = ${to} WHERE k = ${from}`) },
    { weight: 1, arbitrary: predicate(t).map((p) => `UPDATE ${t} SET k = 11 - k WHERE ${p}`) },
    // deletes, including of every row
    { weight: 3, arbitrary: predicate(t).map((p) => `DELETE FROM ${t} WHERE ${p}`) },
  );
}

export const anyWrite: fc.Arbitrary<string> = table.chain(writeOf);
/** A table's changelog producer changed mid-history: refreshes across the change read ΔR by key again. */
export const anyChangelogSwitch: fc.Arbitrary<string> = fc.tuple(table, producer()).map(([t, p]) => `ALTER TABLE ${t} SET ('changelog-producer' = '${p}')`);

/** Initial rows of each table: distinct keys. */
export const initialRows: fc.Arbitrary<string[]> = fc.tuple(...TABLES.map((t) =>
  fc.uniqueArray(fc.tuple(key, rowOf(t)), { maxLength: 6, selector: ([k]) => k })
    .map((rows) => (rows.length === 0 ? [] : [`INSERT INTO ${t} VALUES ${rows.map(([k, row]) => `(${k}, ${row.join(', ')})`).join(', ')}`])),
)).map((lists) => lists.flat());

// ---------------------------------------------------------------- comparing

export type Rows = (string | null)[][];

export async function rowsOf(c: pg.Client, sql: string): Promise<Rows> {
  const r = await c.query({ text: sql, rowMode: 'array' });
  return r.rows as Rows;
}

/** Rows as a sorted multiset (each row as JSON), for comparison regardless of order. */
export function multiset(rows: Rows): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

/** The view's rows equal its query's, run now against the base tables. */
export async function assertViewMatches(c: pg.Client, v: ViewDef, context: () => string): Promise<void> {
  const got = multiset(await rowsOf(c, `SELECT * FROM ${v.name}`));
  const want = multiset(await rowsOf(c, v.query(plainRef)));
  if (got.join('\n') !== want.join('\n')) {
    assert.deepEqual(got, want, `${v.name} differs from its query\n${context()}`);
  }
}

/** The SQLSTATE a statement fails with, or undefined when it succeeds. */
export async function errorCode(c: pg.Client, sql: string): Promise<string | undefined> {
  try {
    await c.query(sql);
    return undefined;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === undefined) throw e;
    return code;
  }
}

// ---------------------------------------------------------------- the catalog's record

export interface ViewRecord {
  readonly positions: Readonly<Record<string, string>>;
  readonly populated: boolean;
  readonly generation: number;
  readonly lastMode: string | undefined;
}

/**
 * The catalog's record of each materialized view (by table id), read from the warehouse's
 * SQLite catalog (a second reader, which SQLite's WAL allows while the gateway runs).
 * Undefined when the gateway runs on another catalog (FLOE_TEST_CATALOG_URL).
 */
export function viewRecords(dataDir: string): Map<number, ViewRecord> | undefined {
  const path = join(dataDir, 'catalog.db');
  if (!existsSync(path) || (process.env.FLOE_TEST_CATALOG_URL ?? '') !== '') return undefined;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT table_id, positions, populated, generation, last_refresh FROM materialized_views').all() as
      { table_id: number; positions: string; populated: number; generation: number; last_refresh: string | null }[];
    return new Map(rows.map((r) => [Number(r.table_id), {
      positions: JSON.parse(r.positions) as Record<string, string>, populated: Number(r.populated) !== 0, generation: Number(r.generation),
      lastMode: r.last_refresh === null ? undefined : (JSON.parse(r.last_refresh) as { mode: string }).mode,
    }]));
  } finally {
    db.close();
  }
}

/** pg_class oids (= Floe table ids) of the relations in `schema`, by name. */
export async function relationIds(c: pg.Client, schema: string): Promise<Map<string, number>> {
  const rows = await rowsOf(c, `SELECT c.relname, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${schema}'`);
  return new Map(rows.map(([name, oid]) => [name!, Number(oid)]));
}

/** Each base table's snapshot in a view's positions, by table name (`ids`: relationIds). */
export function positionsByName(record: ViewRecord, ids: ReadonlyMap<string, number>): Map<BaseTable, string> {
  const out = new Map<BaseTable, string>();
  for (const t of TABLES) {
    const at = record.positions[String(ids.get(t))];
    if (at !== undefined) out.set(t, at);
  }
  return out;
}
