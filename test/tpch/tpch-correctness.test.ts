import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openWarehouse } from '../../src/lake/index.js';
import { createTpchTables, optimizeTpchTables, writeTpchBatches } from '../../src/tools/tpch/floe-loader.js';
import { TpchGenerator } from '../../src/tools/tpch/tpch-generator.js';
import type { TpchBatch } from '../../src/tools/tpch/tpch-generator.js';
import { tpchQueries } from '../../src/tools/tpch/tpch-queries.js';
import { tpchUpserts } from '../../src/tools/tpch/tpch-upserts.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { compareResults } from './compare-results.js';
import { runTextQuery } from '../../src/tools/tpch/wire-query.js';
import type { TextResult } from '../../src/tools/tpch/wire-query.js';
import { copyBatchesToPostgres, createPostgresTables, upsertBatchesToPostgres } from './postgres-loader.js';

/**
 * All 22 TPC-H queries at SF 0.01 through the wire, row by row against PostgreSQL 15 on
 * the same data: first on optimized tables (base files only), then again after 20% of
 * orders and lineitem rows were upserted and not optimized, so merge-on-read answers.
 *
 * Queries that fail today because of an engine bug are marked todo with the reason (the
 * run still executes and reports them); remove an entry once the engine answers it.
 */
const SF = 0.01;
const UPSERT_FRACTION = 0.2;
/** A query's budget; an engine at SF 0.01 answers each in a few seconds on a busy 2-core machine. */
const QUERY_TIMEOUT_MS = 30_000;
/** Queries known to be far too slow get a short budget, so the run stays within a few minutes. */
const SLOW_QUERY_TIMEOUT_MS = 8_000;

interface KnownFailure {
  readonly reason: string;
  readonly slow?: boolean;
}

/** Query number → why it fails today, per phase. Remove an entry once the engine answers it. */
const KNOWN_FAILURES: { readonly optimized: Readonly<Record<number, KnownFailure>>; readonly upserted: Readonly<Record<number, KnownFailure>> } = {
  // Q17 and Q20 were here (correlated subqueries re-run per row, > 30 s) until the planner decorrelated them.
  optimized: {},
  upserted: {},
};

/**
 * Queries beyond TPC-H's own, on its data, for the planner's rewrites around GROUP BY:
 * columns that a grouped primary key determines (Floe hashes only the rest) across joins,
 * on the null-extended side of an outer join, and for two instances of one table, which
 * must stay apart; and aggregates of a join's right side computed before the join.
 */
const GROUPING_REWRITE_QUERIES: readonly { readonly name: string; readonly sql: string }[] = [
  {
    name: 'customers with their big orders counted, none for most',
    sql: `select c_custkey, c_name, c_acctbal, n_name, count(o_orderkey) as big
      from customer join nation on c_nationkey = n_nationkey left join orders on o_custkey = c_custkey and o_totalprice > 300000
      group by c_custkey, c_name, c_acctbal, n_name order by big desc, c_custkey limit 40`,
  },
  {
    name: 'orders with the customer of a few, NULL for the rest',
    sql: `select o_orderkey, c_custkey, c_name, c_phone, count(*) as lines, sum(l_quantity) as qty
      from lineitem join orders on l_orderkey = o_orderkey left join customer on c_custkey = o_custkey and c_acctbal > 9900
      group by o_orderkey, c_custkey, c_name, c_phone order by o_orderkey limit 60`,
  },
  {
    name: 'two instances of one table keep their own keys',
    sql: `with c as (select * from customer where c_custkey <= 40)
      select a.c_custkey, b.c_name, count(*) from c a join c b on a.c_nationkey = b.c_nationkey
      group by a.c_custkey, b.c_name order by 1, 2`,
  },
  {
    name: 'aggregates of each customer\'s big orders, none for most (count 0, the rest NULL)',
    sql: `select c_custkey, count(o_orderkey) as n, sum(o_totalprice) as total, min(o_orderdate) as first, max(o_clerk) as clerk
      from customer left join orders on c_custkey = o_custkey and o_totalprice > 250000
      group by c_custkey order by c_custkey limit 80`,
  },
  {
    name: 'columns a grouped primary key determines, read without being grouped (also in HAVING and ORDER BY)',
    sql: `select o_orderkey, o_orderdate, c.c_name, count(*) as lines, sum(l_quantity) as qty
      from orders join customer c on c_custkey = o_custkey join lineitem on l_orderkey = o_orderkey
      group by o_orderkey, c.c_custkey having o_totalprice > 300000 order by o_orderdate, o_orderkey limit 50`,
  },
  {
    name: 'aggregates of each supplier\'s parts over an inner join',
    sql: `select s_suppkey, s_name, avg(ps_supplycost) as cost, count(distinct ps_partkey) as parts
      from supplier join partsupp on ps_suppkey = s_suppkey group by s_suppkey, s_name order by s_suppkey limit 30`,
  },
];

describe(`TPC-H SF ${SF}: Floe through the wire against PostgreSQL 15`, { timeout: 600_000 }, () => {
  const queries = tpchQueries(SF, { q11Fraction: 0.0001 });
  const generator = new TpchGenerator(SF);
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-tpch-'));
  let postgres: PostgresServer | undefined;
  let pgClient: pg.Client | undefined;
  let floe: FloeServer | undefined;

  before(async () => {
    const batches: TpchBatch[] = [...generator.batches(5_000)];
    const loadFloe = async () => {
      const warehouse = await openWarehouse({ path: dataDir });
      try {
        await createTpchTables(warehouse);
        await writeTpchBatches(warehouse, batches, 'insert');
        await optimizeTpchTables(warehouse);
      } finally {
        await warehouse.close();
      }
    };
    const loadPostgres = async () => {
      postgres = await startPostgres();
      pgClient = new pg.Client({ connectionString: postgres.url });
      await pgClient.connect();
      await createPostgresTables(pgClient);
      await copyBatchesToPostgres(pgClient, batches);
    };
    await Promise.all([loadFloe(), loadPostgres()]);
    floe = await startFloe({ dataDir });
  });

  after(async () => {
    await floe?.stop();
    await pgClient?.end();
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const checkAll = (phase: keyof typeof KNOWN_FAILURES) => {
    for (const q of queries) {
      const known = KNOWN_FAILURES[phase][q.number];
      test(`Q${q.number}`, known === undefined ? {} : { todo: known.reason }, async () => {
        const expected = await runTextQuery(postgres!.url, q.sql, 60_000);
        assert.ok(expected.rows.length > 0, `PostgreSQL returned no rows for Q${q.number}: the data does not exercise it`);
        let actual: TextResult;
        try {
          actual = await runTextQuery(floe!.url, q.sql, known?.slow === true ? SLOW_QUERY_TIMEOUT_MS : QUERY_TIMEOUT_MS);
        } catch (e) {
          const err = e as Error & { code?: string };
          assert.fail(`Floe failed Q${q.number}: ${err.code === undefined ? '' : `${err.code} `}${err.message}`);
        }
        const diff = compareResults(expected, actual, q.ordered);
        if (diff !== undefined) assert.fail(`Q${q.number} differs from PostgreSQL: ${diff}`);
      });
    }
    for (const q of GROUPING_REWRITE_QUERIES) {
      test(`GROUP BY rewrites: ${q.name}`, async () => {
        const expected = await runTextQuery(postgres!.url, q.sql, 60_000);
        assert.ok(expected.rows.length > 0, `PostgreSQL returned no rows for "${q.name}"`);
        const diff = compareResults(expected, await runTextQuery(floe!.url, q.sql, QUERY_TIMEOUT_MS), true);
        if (diff !== undefined) assert.fail(`"${q.name}" differs from PostgreSQL: ${diff}`);
      });
    }
  };

  describe('optimized tables', () => checkAll('optimized'));

  describe(`after upserting ${UPSERT_FRACTION * 100}% of orders and lineitem rows (not optimized)`, () => {
    before(async () => {
      const changes = [...tpchUpserts(generator, UPSERT_FRACTION, 5_000)];
      await floe!.stop();
      const warehouse = await openWarehouse({ path: dataDir });
      try {
        await writeTpchBatches(warehouse, changes, 'upsert');
      } finally {
        await warehouse.close();
      }
      await upsertBatchesToPostgres(pgClient!, changes);
      floe = await startFloe({ dataDir });
      const changed = await runTextQuery(floe.url, "select count(*) from orders where o_comment like 'special % requests'", QUERY_TIMEOUT_MS);
      assert.ok(Number(changed.rows[0]![0]) > 0, 'the upserted orders are visible through the wire');
    });
    checkAll('upserted');
  });
});
