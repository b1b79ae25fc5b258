import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { oracleAndFloeForSuite } from '../harness/oracle-and-floe.js';
import { runPsql } from '../harness/run-psql.js';
import type { ConnectTarget } from '../harness/run-psql.js';

const SETUP = [
  'CREATE TABLE items (id int PRIMARY KEY, sku varchar(20) NOT NULL UNIQUE, qty int DEFAULT 0 CHECK (qty >= 0), note text)',
  // No FOREIGN KEY here: Floe records them NOT ENFORCED, which \\d prints (a difference by design).
  'CREATE TABLE moves (id bigserial PRIMARY KEY, item int, at timestamptz)',
  'CREATE INDEX moves_at_idx ON moves (at)',
  'CREATE SEQUENCE ticket START 10',
  "INSERT INTO items VALUES (1, 'a', 3, NULL), (2, 'b', 0, 'x')",
];

async function psql(target: ConnectTarget, command: string, args: readonly string[] = []): Promise<string> {
  const r = await runPsql(target, [...args, '-c', command], { mergeStderr: true });
  return r.stdout;
}

/** psql's unaligned output with one column's values blanked (sizes of a heap and of Parquet files differ by nature). */
function maskColumn(out: string, column: string): string {
  const lines = out.split('\n');
  const at = (lines[1] ?? '').split('|').indexOf(column);
  if (at < 0) return out;
  return lines.map((l, i) => (i < 2 || !l.includes('|') ? l : l.split('|').map((v, j) => (j === at ? '…' : v)).join('|'))).join('\n');
}

describe('psql 15 meta-commands print on Floe what they print on PostgreSQL 15', () => {
  let oracleTarget: ConnectTarget & { url: string };
  let floeTarget: ConnectTarget;
  let floe: { url: string };
  oracleAndFloeForSuite(SETUP, (s) => ({ oracleTarget, floeTarget, floe } = s));

  for (const cmd of ['\\d items', '\\d moves', '\\d+ items', '\\di', '\\ds', '\\dv', '\\df+', '\\sf nosuchfunction']) {
    test(cmd, async () => {
      const want = await psql(oracleTarget, cmd);
      assert.equal(await psql(floeTarget, cmd), want);
    });
  }

  test('\\dt+ (sizes masked: a heap and Parquet files differ by nature)', async () => {
    const want = maskColumn(await psql(oracleTarget, '\\dt+', ['-A']), 'Size');
    assert.match(want, /items\|table\|floe\|permanent\|heap\|…\|/);
    assert.equal(maskColumn(await psql(floeTarget, '\\dt+', ['-A']), 'Size'), want);
  });

  test('Floe has more: \\d shows the partition spec, \\d+ the table properties', async () => {
    const c = new pg.Client({ connectionString: floe.url });
    await c.connect();
    await c.query(`CREATE TABLE ev (id int, region text, ts timestamptz) PARTITION BY (region, day(ts), bucket(8, id))
                   WITH ("write.target-file-size" = '1048576')`);
    await c.end();
    const d = await psql(floeTarget, '\\d ev');
    assert.match(d, /Partition key: \(region, day\(ts\), bucket\(8, id\)\)/, d);
    const plus = await psql(floeTarget, '\\d+ ev');
    assert.match(plus, /Options: write\.target-file-size=1048576/, plus);
  });
});
