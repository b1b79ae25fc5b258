import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_STATISTICS_QUERY_CHARS, StatementStatistics } from '../../src/session/statement-statistics.js';
import { MAX_NORMALIZED_CHARS } from '../../src/sql/parser/normalized-statement.js';

const run = (text: string, ms: number, rows = 1, user = 'floe') => ({ user, database: 'floe', text, ms, rows });

test('statements that differ only in constants fold into one entry: calls, rows, min/max/mean/stddev in ms', () => {
  const s = new StatementStatistics();
  s.record(run("SELECT * FROM t WHERE id = 5 AND name = 'x'", 2));
  s.record(run("SELECT * FROM t WHERE id = 700 AND name = 'yy'", 4, 3));
  s.record(run('SELECT * FROM t WHERE id = 5', 1, 0, 'alice'));
  const rows = s.rows().sort((a, b) => a.user.localeCompare(b.user));
  assert.deepEqual(rows.map((r) => [r.user, r.query, r.calls, r.rows, r.totalExecTime, r.minExecTime, r.maxExecTime, r.meanExecTime, r.stddevExecTime]), [
    ['alice', 'SELECT * FROM t WHERE id = $1', 1, 0, 1, 1, 1, 1, 0],
    ['floe', 'SELECT * FROM t WHERE id = $1 AND name = $2', 2, 4, 6, 2, 4, 3, 1],
  ]);
  assert.notEqual(rows[0]!.queryId, rows[1]!.queryId);
  assert.equal(new StatementStatistics().rows().length, 0);
  const again = new StatementStatistics();
  again.record(run('SELECT * FROM t WHERE id = 9', 1));
  assert.equal(again.rows()[0]!.queryId, rows[0]!.queryId, 'the queryid is a stable hash of the normalized text');
});

test('a statement PostgreSQL\'s grammar cannot parse keeps its text; reset forgets everything', () => {
  const s = new StatementStatistics();
  s.record(run('SELECT * FROM t FOR SYSTEM_VERSION AS OF 3', 1));
  assert.deepEqual(s.rows().map((r) => r.query), ['SELECT * FROM t FOR SYSTEM_VERSION AS OF 3']);
  s.reset();
  assert.equal(s.size, 0);
});

test('bounded: past max entries the least-called are evicted, the busy ones stay', () => {
  const s = new StatementStatistics(40);
  for (let i = 0; i < 5; i++) s.record(run('SELECT 1 AS busy', 1));
  for (let i = 0; i < 60; i++) s.record(run(`SELECT ${i} AS c${i}`, 1));
  assert.ok(s.size <= 40, String(s.size));
  const busy = s.rows().find((r) => r.query === 'SELECT $1 AS busy');
  assert.equal(busy?.calls, 5);
  assert.ok(s.rows().some((r) => r.query === 'SELECT $1 AS c59'), 'the newest entry is kept');
});

test('a long text is kept cut to a bound, and one past the normalizing bound keeps its constants', () => {
  const s = new StatementStatistics();
  const values = Array.from({ length: 9000 }, (_, i) => `(${i})`).join(',');
  s.record(run(`INSERT INTO t VALUES ${values}`, 1));
  const [row] = s.rows();
  assert.equal(row!.query.length, MAX_STATISTICS_QUERY_CHARS + 1);
  assert.ok(row!.query.startsWith('INSERT INTO t VALUES ($1),($2)') && row!.query.endsWith('…'));
  const huge = `SELECT ${'1 + '.repeat(MAX_NORMALIZED_CHARS / 4)}1`;
  s.record(run(huge, 1));
  assert.ok(s.rows().some((r) => r.query.startsWith('SELECT 1 + 1 + ')), 'not normalized past the bound');
});
