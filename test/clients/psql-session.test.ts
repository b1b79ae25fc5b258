import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { prepareOracle } from '../harness/prepare-oracle.js';
import { runPsql } from '../harness/run-psql.js';
import { textDiff } from '../harness/text-diff.js';
import type { ConnectTarget } from '../harness/run-psql.js';

const SCRIPT = readFileSync(new URL('./psql-session.sql', import.meta.url), 'utf8');

/** The script through psql's stdin, so error lines read "psql:<stdin>:N:" on both servers. */
async function runScript(target: ConnectTarget): Promise<string> {
  const r = await runPsql(target, ['-f', '-'], { input: SCRIPT, mergeStderr: true });
  assert.equal(r.code, 0, r.stdout);
  return r.stdout;
}

/**
 * \l lists every database of the cluster, and the PostgreSQL oracle has other
 * databases than Floe does: compare the header and the current database's row
 * (documented in README.md).
 */
async function listDatabases(target: ConnectTarget): Promise<{ header: string; row: string | undefined }> {
  const r = await runPsql(target, ['-A', '-c', '\\l']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const db = target.database ?? 'floe';
  const row = lines.find((l) => l.startsWith(`${db}|`));
  return { header: lines[1] ?? '', row: row?.replace(`${db}|`, 'DB|') };
}

describe('psql 15 scripted session', () => {
  let oracle: PostgresServer;
  let floe: FloeServer;
  let oracleTarget: ConnectTarget;
  let expected = '';

  before(async () => {
    oracle = await startPostgres();
    oracleTarget = await prepareOracle(oracle);
    expected = await runScript(oracleTarget);
  });
  after(async () => {
    await oracle?.stop();
    await floe?.stop();
  });

  test('the script is a real test: PostgreSQL 15 runs it as expected', () => {
    assert.match(expected, /INSERT 0 3/);
    assert.match(expected, /"orders_pkey" PRIMARY KEY, btree \(o_id\)/);
    assert.match(expected, /column "nosuchcolumn" does not exist/);
    assert.match(expected, /quoted, with comma/);
  });

  test('Floe prints exactly what PostgreSQL 15 prints', async () => {
    floe = await startFloe();
    const actual = await runScript({ port: floe.port });
    const diff = await textDiff(expected, actual, ['postgresql-15', 'floe']);
    assert.ok(diff === '', `psql output differs from PostgreSQL 15's:\n${diff}`);
  });

  test('\\l shows the current database like PostgreSQL 15', async () => {
    const want = await listDatabases(oracleTarget);
    floe ??= await startFloe();
    const got = await listDatabases({ port: floe.port });
    assert.equal(got.header, want.header);
    assert.ok(want.row !== undefined);
    assert.equal(got.row, want.row);
  });
});
