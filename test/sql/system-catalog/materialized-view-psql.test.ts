import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { oracleAndFloeForSuite } from '../../harness/oracle-and-floe.js';
import { startPostgres, withClient } from '../../harness/postgres-server.js';
import type { PostgresServer } from '../../harness/postgres-server.js';
import { prepareOracle } from '../../harness/prepare-oracle.js';
import { runCommand } from '../../harness/run-command.js';
import { runPsql } from '../../harness/run-psql.js';
import type { ConnectTarget } from '../../harness/run-psql.js';
import { queryOutcome } from '../../harness/statement-outcomes.js';

/**
 * Materialized views as psql 15, pg_dump 15 and the catalogs show them, compared with
 * PostgreSQL 15 over the same statements. The one difference by design: Floe prints a view's
 * query as written, PostgreSQL its deparse (docs/design-notes.md, pg_get_viewdef).
 */
const SETUP = [
  'CREATE TABLE t (id int PRIMARY KEY, g text, v numeric)',
  "INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2), (3, 'a', 4)",
  'CREATE MATERIALIZED VIEW mv AS SELECT g, sum(v) AS total, count(*) AS n FROM t GROUP BY g',
  'CREATE MATERIALIZED VIEW mv_empty AS SELECT id, v FROM t WITH NO DATA',
  // A view's own key is Floe's and never shown; indexes a user makes on it are.
  'CREATE UNIQUE INDEX mv_g_key ON mv (g)',
  'CREATE INDEX mv_empty_v_idx ON mv_empty (v)',
  // Named to sort before what they read: pg_dump must order them by their dependencies.
  'CREATE VIEW a_view AS SELECT g, total FROM mv',
  'CREATE MATERIALIZED VIEW a_top AS SELECT g, total FROM a_view',
];

const PG_DUMP = '/usr/lib/postgresql/15/bin/pg_dump';

async function psql(target: ConnectTarget, command: string, args: readonly string[] = []): Promise<string> {
  return (await runPsql(target, [...args, '-c', command], { mergeStderr: true })).stdout;
}

/** psql's unaligned output with one column's values blanked (a heap's size and Parquet files' differ by nature). */
function maskColumn(out: string, column: string): string {
  const lines = out.split('\n');
  const at = (lines[1] ?? '').split('|').indexOf(column);
  if (at < 0) return out;
  return lines.map((l, i) => (i < 2 || !l.includes('|') ? l : l.split('|').map((v, j) => (j === at ? '…' : v)).join('|'))).join('\n');
}

/** `\d+` output with the lines of its "View definition:" section replaced by one mark, and those lines. */
function splitDefinition(out: string): { rest: string; definition: string } {
  const lines = out.split('\n');
  const start = lines.indexOf('View definition:');
  if (start < 0) return { rest: out, definition: '' };
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith(' ')) end++;
  return { rest: [...lines.slice(0, start + 1), '…', ...lines.slice(end)].join('\n'), definition: lines.slice(start + 1, end).join('\n') };
}

describe('materialized views: psql 15 and the catalogs on Floe as on PostgreSQL 15', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string };
  oracleAndFloeForSuite(SETUP, (s) => ({ oracleTarget, floeTarget, floe } = s));
  const both = async <T>(fn: (url: string) => Promise<T>): Promise<[T, T]> => [await fn(oracleTarget.url), await fn(floe.url)];

  for (const cmd of ['\\dm', '\\d mv', '\\d mv_empty', '\\dt', '\\d', '\\dv']) {
    test(`${cmd} prints what PostgreSQL prints`, async () => {
      const want = await psql(oracleTarget, cmd);
      assert.equal(await psql(floeTarget, cmd), want);
    });
  }

  test('\\dm+ (sizes masked)', async () => {
    const want = maskColumn(await psql(oracleTarget, '\\dm+', ['-A']), 'Size');
    assert.match(want, /mv\|materialized view\|floe\|permanent\|heap\|…\|/);
    assert.equal(maskColumn(await psql(floeTarget, '\\dm+', ['-A']), 'Size'), want);
  });

  for (const name of ['mv', 'mv_empty']) {
    test(`\\d+ ${name}: the same but for the definition, which Floe prints as written`, async () => {
      const want = splitDefinition(await psql(oracleTarget, `\\d+ ${name}`));
      const got = splitDefinition(await psql(floeTarget, `\\d+ ${name}`));
      assert.match(want.rest, new RegExp(`Materialized view "public\\.${name}"[\\s\\S]*View definition:\\n…\\nAccess method: heap`));
      assert.equal(got.rest, want.rest);
      assert.match(got.definition, name === 'mv' ? /^ SELECT g, sum\(v\) AS total, count\(\*\) AS n FROM t GROUP BY g;$/ : /^ SELECT id, v FROM t;$/);
    });
  }

  for (const [what, sql] of [
    ['pg_class', `SELECT relname, relkind, relnatts, relispopulated, relhasindex, relhasrules, relpersistence, reloptions, relam, relchecks
      FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1`],
    ['pg_attribute', `SELECT c.relname, a.attname, a.attnum, a.attnotnull, a.atthasdef, a.attidentity, a.attstorage, format_type(a.atttypid, a.atttypmod)
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'mv%' AND a.attnum > 0 ORDER BY 1, 3`],
    ['pg_matviews', 'SELECT schemaname, matviewname, matviewowner, tablespace, hasindexes, ispopulated FROM pg_matviews ORDER BY 2'],
    ['information_schema.tables', `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`],
    ['information_schema.columns', `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`],
    ['pg_indexes', `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`],
    ['pg_tables', `SELECT tablename, hasindexes FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`],
    ['pg_index and pg_constraint', `SELECT (SELECT array_agg(indexrelid::regclass::text ORDER BY 1) FROM pg_index WHERE indrelid IN ('mv'::regclass, 'mv_empty'::regclass)),
      (SELECT count(*) FROM pg_constraint WHERE conrelid IN ('mv'::regclass, 'mv_empty'::regclass))`],
    ['privilege views', `SELECT (SELECT count(*) FROM information_schema.table_privileges WHERE table_name LIKE 'mv%'),
      (SELECT count(*) FROM information_schema.column_privileges WHERE table_name LIKE 'mv%'), has_table_privilege('mv', 'SELECT')`],
  ] as const) {
    test(`${what} shows them as PostgreSQL does`, async () => {
      const [want, got] = await both((url) => queryOutcome(url, sql));
      assert.deepEqual(got, want);
    });
  }

  test('pg_get_viewdef and pg_matviews.definition: the query as written, as for views', async () => {
    const got = await queryOutcome(floe.url, `SELECT pg_get_viewdef('mv'::regclass), pg_get_viewdef('mv'), definition FROM pg_matviews WHERE matviewname = 'mv'`);
    const def = ' SELECT g, sum(v) AS total, count(*) AS n FROM t GROUP BY g;';
    assert.deepEqual((got as { rows: unknown[][] }).rows, [[def, def, def]]);
  });

  test('Floe\'s own options show in \\d+ as reloptions do', async () => {
    await withClient(floe.url, (c) => c.query("CREATE MATERIALIZED VIEW mv_fresh WITH (freshness = '30 seconds') AS SELECT g FROM t"));
    try {
      assert.match(await psql(floeTarget, '\\d+ mv_fresh'), /\nOptions: freshness=30 seconds\n/);
    } finally {
      await withClient(floe.url, (c) => c.query('DROP MATERIALIZED VIEW mv_fresh'));
    }
  });
});

describe('pg_dump 15 of Floe with materialized views restores into PostgreSQL 15', () => {
  let restored: PostgresServer;
  let restoredTarget: ConnectTarget & { url: string };
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  oracleAndFloeForSuite(SETUP, (s) => ({ oracleTarget, floeTarget } = s));
  before(async () => {
    restored = await startPostgres();
    restoredTarget = await prepareOracle(restored);
  });
  after(async () => {
    await restored?.stop();
  });

  async function dump(target: ConnectTarget): Promise<string> {
    const r = await runCommand(PG_DUMP, ['-h', target.host ?? '127.0.0.1', '-p', String(target.port), '-U', target.user ?? 'floe', target.database ?? 'floe'],
      { env: { PGCONNECT_TIMEOUT: '10' } });
    assert.equal(r.code, 0, `pg_dump failed:\n${r.stderr}`);
    return r.stdout;
  }

  test('CREATE MATERIALIZED VIEW … WITH NO DATA after what it reads, REFRESH in dependency order for populated ones only; the restore holds the rows', async () => {
    const want = await dump(oracleTarget);
    const got = await dump(floeTarget);
    for (const script of [want, got]) {
      const at = (text: string) => script.indexOf(text);
      assert.ok(at('CREATE TABLE public.t ') < at('CREATE MATERIALIZED VIEW public.mv AS'), script);
      assert.ok(at('CREATE MATERIALIZED VIEW public.mv AS') < at('CREATE VIEW public.a_view AS'), script);
      assert.ok(at('CREATE VIEW public.a_view AS') < at('CREATE MATERIALIZED VIEW public.a_top AS'), script);
      assert.ok(at('REFRESH MATERIALIZED VIEW public.mv;') < at('REFRESH MATERIALIZED VIEW public.a_top;'), script);
      assert.match(script, /CREATE MATERIALIZED VIEW public\.mv AS\n[\s\S]*?\n {2}WITH NO DATA;\n/);
      assert.match(script, /\nREFRESH MATERIALIZED VIEW public\.mv;\n/);
      assert.doesNotMatch(script, /REFRESH MATERIALIZED VIEW public\.mv_empty/);
      assert.match(script, /\nCREATE UNIQUE INDEX mv_g_key ON public\.mv USING btree \(g\);\n/);
    }
    // The CREATE names its table schema-qualified: pg_dump empties search_path.
    assert.match(got, /CREATE MATERIALIZED VIEW public\.mv AS\n SELECT g, sum\(v\) AS total, count\(\*\) AS n FROM public\.t GROUP BY g\n {2}WITH NO DATA;/);
    const r = await runPsql(restoredTarget, ['-v', 'ON_ERROR_STOP=1', '-q', '-f', '-'], { input: got, mergeStderr: true });
    assert.equal(r.code, 0, `restore failed:\n${r.stdout}`);
    const check = `SELECT matviewname, ispopulated, hasindexes FROM pg_matviews ORDER BY 1`;
    assert.deepEqual(await queryOutcome(restoredTarget.url, check), await queryOutcome(oracleTarget.url, check));
    for (const rows of ['SELECT g, total, n FROM mv ORDER BY g', 'SELECT g, total FROM a_top ORDER BY g']) {
      assert.deepEqual(await queryOutcome(restoredTarget.url, rows), await queryOutcome(oracleTarget.url, rows));
    }
  });
});
