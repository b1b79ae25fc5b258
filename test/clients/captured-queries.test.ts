import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { sharedDir } from '../harness/shared-dir.js';
import { startFloeTarget, startOracleTarget } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';

const SHARED = resolve(sharedDir(), 'client-queries');
const OWN = new URL('.', import.meta.url).pathname;

interface CapturedStatement {
  readonly file: string;
  readonly index: number;
  readonly sql: string;
  readonly params: readonly string[] | undefined;
  /** pgjdbc always uses the extended protocol; psql uses simple queries. */
  readonly extended: boolean;
}

/** The capture files: statements end with a line holding only ";;", parameters follow as a comment. */
function loadStatements(dir: string, file: string): CapturedStatement[] {
  const text = readFileSync(`${dir}/${file}`, 'utf8');
  const out: CapturedStatement[] = [];
  for (const chunk of text.split(/^;;$/m)) {
    const lines = chunk.split('\n');
    const paramLine = lines.find((l) => l.startsWith('-- parameters:'));
    const sql = lines.filter((l) => !l.startsWith('--')).join('\n').trim().replace(/;$/, '');
    if (sql === '') continue;
    const params = paramLine === undefined ? undefined : [...paramLine.matchAll(/\$\d+ = '((?:[^']|'')*)'/g)].map((m) => m[1]!.replaceAll("''", "'"));
    out.push({ file, index: out.length + 1, sql, params, extended: file.startsWith('pgjdbc') });
  }
  return out;
}

const SETUP = [
  'CREATE TABLE orders (o_id bigint PRIMARY KEY, o_cust integer NOT NULL, o_amount numeric(12,2), o_ts timestamptz DEFAULT now(), o_note text)',
  'CREATE SCHEMA sales',
  'CREATE TABLE sales.items (id integer PRIMARY KEY, name varchar(40))',
  // For odbc-sqlalchemy-queries.sql (captured by this project the same way).
  "CREATE TABLE gadgets (id integer PRIMARY KEY, label text)",
  "INSERT INTO gadgets VALUES (1, 'one')",
  'CREATE TABLE widgets (id bigint PRIMARY KEY, name varchar(30) NOT NULL, price numeric(8,2), made timestamp)',
  'CREATE SCHEMA inv',
  'CREATE TABLE inv.stock (sku text, bin integer, qty integer, PRIMARY KEY (sku, bin))',
];

type Shape = { columns: [string, number][] } | { error: string };

async function shapeOf(c: pg.Client, s: CapturedStatement): Promise<Shape> {
  try {
    const res = await c.query({ text: s.sql, values: s.params ? [...s.params] : undefined, queryMode: s.extended ? 'extended' : undefined } as pg.QueryConfig);
    // A multi-statement string answers with one result per statement: judge the last (the one returning rows).
    const r = (Array.isArray(res) ? res[res.length - 1] : res) as pg.QueryResult;
    return { columns: (r.fields ?? []).map((f) => [f.name, f.dataTypeID] as [string, number]) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code ?? ''} ${(e as Error).message}` };
  }
}

const statements = [
  ...loadStatements(SHARED, 'psql-meta-commands.sql'),
  ...loadStatements(SHARED, 'pgjdbc-42.5.sql'),
  ...loadStatements(OWN, 'odbc-sqlalchemy-queries.sql'),
];

describe('every captured client statement (psql, pgjdbc, psqlODBC, SQLAlchemy): same column names and type OIDs as PostgreSQL 15', () => {
  let oracle: ClientTarget;
  let floe: ClientTarget | undefined;
  let oc: pg.Client;
  let fc: pg.Client | undefined;
  let floeFailure: unknown;

  before(async () => {
    oracle = await startOracleTarget();
    oc = new pg.Client({ connectionString: oracle.url });
    await oc.connect();
    for (const s of SETUP) await oc.query(s);
    try {
      floe = await startFloeTarget();
      fc = new pg.Client({ connectionString: floe.url });
      await fc.connect();
      for (const s of SETUP) await fc.query(s);
    } catch (e) {
      floeFailure = e;
    }
  });
  after(async () => {
    await oc?.end();
    await fc?.end().catch(() => undefined);
    await oracle?.stop();
    await floe?.stop();
  });

  // Whether the capture is inside BEGIN … COMMIT at this point, so one statement Floe fails
  // does not abort the transaction the following ones run in (each is judged on its own).
  let inBlock = false;
  for (const s of statements) {
    test(`${s.file} #${s.index}: ${s.sql.replace(/\s+/g, ' ').slice(0, 70)}`, async () => {
      if (/^BEGIN$/i.test(s.sql)) inBlock = true;
      if (/^COMMIT$/i.test(s.sql)) inBlock = false;
      const want = await shapeOf(oc, s);
      assert.ok('columns' in want, `PostgreSQL rejected a captured statement: ${'error' in want ? want.error : ''}`);
      if (fc === undefined) throw floeFailure;
      const got = await shapeOf(fc, s);
      if ('error' in got && inBlock) {
        await fc.query('ROLLBACK');
        await fc.query('BEGIN');
      }
      assert.deepEqual(got, want);
    });
  }
});
