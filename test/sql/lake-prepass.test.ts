import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStatements } from '../../src/sql/index.js';
import type { LakeClause, TimeTravelClause } from '../../src/sql/index.js';
import { FloeError } from '../../src/common/floe-error.js';

function clauses(sql: string): LakeClause[] {
  const stmts = parseStatements(sql);
  assert.equal(stmts.length, 1);
  return [...stmts[0]!.lake];
}

function errorOf(sql: string): FloeError {
  try {
    parseStatements(sql);
  } catch (e) {
    assert.ok(e instanceof FloeError);
    return e;
  }
  assert.fail(`expected an error for ${sql}`);
}

/** The RangeVar locations PostgreSQL's grammar reported, for matching clauses to tables. */
function rangeVarLocations(sql: string): number[] {
  const out: number[] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) { n.forEach(visit); return; }
    if (n === null || typeof n !== 'object') return;
    for (const [k, v] of Object.entries(n)) {
      if (k === 'RangeVar') out.push((v as { location: number }).location);
      visit(v);
    }
  };
  visit(parseStatements(sql)[0]!.ast);
  return out;
}

test('every time-travel spelling attaches to its table by location', () => {
  const cases: [string, 'systemTime' | 'systemVersion'][] = [
    ["select * from t for system_time as of '2024-01-01 00:00:00+00'", 'systemTime'],
    ['select * from t for system_version as of 42', 'systemVersion'],
    ["select * from s.t version as of 'v1' where a = 1", 'systemVersion'],
    ["select * from t timestamp as of '2024-01-01' x join u on x.a = u.a", 'systemTime'],
    ['select * from t for version as of 7', 'systemVersion'],
    ["select * from t for timestamp as of '2024-01-01'", 'systemTime'],
  ];
  for (const [sql, mode] of cases) {
    const c = clauses(sql);
    assert.equal(c.length, 1, sql);
    const tt = c[0] as TimeTravelClause;
    assert.equal(tt.kind, 'timeTravel');
    assert.equal(tt.mode, mode, sql);
    assert.ok(rangeVarLocations(sql).includes(tt.tableLocation), `${sql}: clause matches a RangeVar`);
  }
});

test('time travel in joins and subqueries, with aliases after the clause', () => {
  const sql = "select * from a for system_version as of 1 x join (select * from b version as of 'tag' y) z on true";
  const c = clauses(sql) as TimeTravelClause[];
  assert.equal(c.length, 2);
  assert.deepEqual(c.map((x) => x.tableLocation).sort((p, q) => p - q), rangeVarLocations(sql).sort((p, q) => p - q));
  const stmt = parseStatements(sql)[0]!;
  const from = (stmt.ast as any).SelectStmt.fromClause[0].JoinExpr;
  assert.equal(from.larg.RangeVar.alias.aliasname, 'x');
});

test('the AS OF expression is parsed with positions in the original text', () => {
  const sql = "select * from t for system_time as of now() - interval '1 day'";
  const tt = clauses(sql)[0] as TimeTravelClause;
  const expr = tt.expr as any;
  assert.equal(expr.A_Expr.lexpr.FuncCall.location, sql.indexOf('now()'));
});

test('plain PostgreSQL text is untouched: columns named version/timestamp, casts, aliases', () => {
  for (const sql of [
    'select version, timestamp from t',
    "select x::timestamp as of from t",
    "select cast(x as timestamp) as of from t",
    'alter table t drop branch',
    'alter table t drop column tag',
    "update t set (a, b) = (1, 2)",
  ]) {
    const stmts = parseStatements(sql);
    assert.equal(stmts.length, 1, sql);
    assert.deepEqual(stmts[0]!.lake, [], sql);
  }
});

test('branch and tag DDL', () => {
  const [c] = clauses('ALTER TABLE s.t CREATE OR REPLACE BRANCH IF NOT EXISTS dev AS OF VERSION 12 RETAIN 7 DAYS');
  assert.deepEqual(c, {
    kind: 'refDdl', location: 0, table: { schema: 's', name: 't', location: 12 }, ifTableExists: false,
    action: { kind: 'create', refKind: 'branch', name: 'dev', orReplace: true, ifNotExists: true, asOfVersion: 12n, retainMicros: 7n * 86_400_000_000n },
  });
  const [d] = clauses('alter table if exists t drop tag if exists "Release"');
  assert.deepEqual(d, {
    kind: 'refDdl', location: 0, table: { name: 't', location: 22 }, ifTableExists: true,
    action: { kind: 'drop', refKind: 'tag', name: 'Release', ifExists: true },
  });
  const [h] = clauses('alter table t create tag v1 retain 12 hours');
  assert.equal(h!.kind === 'refDdl' && h.action.kind === 'create' ? h.action.retainMicros : undefined, 12n * 3_600_000_000n);
});

test('branch DDL among other statements keeps splitting right', () => {
  const stmts = parseStatements('select 1; alter table t create branch b; select 2');
  assert.equal(stmts.length, 3);
  assert.equal(stmts[1]!.text, 'alter table t create branch b');
  assert.equal(stmts[1]!.lake.length, 1);
  assert.equal(stmts[0]!.lake.length, 0);
  assert.equal(stmts[2]!.lake.length, 0);
});

test('SHOW TBLPROPERTIES', () => {
  assert.deepEqual(clauses('show tblproperties sales.items'), [
    { kind: 'showTblProperties', location: 0, table: { schema: 'sales', name: 'items', location: 19 } },
  ]);
});

test('Floe PARTITION BY (transforms) is lifted out of CREATE TABLE', () => {
  const sql = 'create table t (id int, ts timestamptz) partition by (day(ts), bucket(16, id)) with (x = 1)';
  const stmts = parseStatements(sql);
  const c = stmts[0]!.lake;
  assert.equal(c.length, 1);
  assert.equal(c[0]!.kind, 'partitionSpec');
  const elements = c[0]!.kind === 'partitionSpec' ? c[0]!.elements : [];
  assert.equal(elements.length, 2);
  assert.equal((elements[1] as any).FuncCall.location, sql.indexOf('bucket'));
  assert.equal((stmts[0]!.ast as any).CreateStmt.options.length, 1, 'WITH (…) still parsed by PostgreSQL');
});

test('string property keys become identifiers without moving anything', () => {
  const sql = "create table t (a int) with ('write.target-file-size' = '64MB', \"merge-engine\" = 'deduplicate')";
  const [s] = parseStatements(sql);
  const names = (s!.ast as any).CreateStmt.options.map((o: any) => o.DefElem.defname);
  assert.deepEqual(names, ['write.target-file-size', 'merge-engine']);
  const [r] = parseStatements("alter table t reset ('write.target-file-size')");
  assert.equal((r!.ast as any).AlterTableStmt.cmds[0].AlterTableCmd.def.List.items[0].DefElem.defname, 'write.target-file-size');
});

test('syntax errors inside extension clauses report their own position', () => {
  const a = errorOf('alter table t create branch b retain 7 weeks');
  assert.equal(a.sqlstate, '42601');
  assert.equal(a.message, 'syntax error at or near "weeks"');
  assert.equal(a.position, 'alter table t create branch b retain 7 '.length + 1);
  const b = errorOf('alter table t create tag');
  assert.equal(b.message, 'syntax error at end of input');
  const c = errorOf('select * from t for system_time as of )');
  assert.equal(c.message, 'syntax error at or near ")"');
  assert.equal(c.position, 'select * from t for system_time as of '.length + 1);
  const d = errorOf("select * from t for system_version as of 1 +");
  assert.equal(d.sqlstate, '42601');
  assert.ok(d.position! > 'select * from t for system_version as of'.length, 'position inside the AS OF expression');
  const e = errorOf('alter table t create branch b as of version x');
  assert.equal(e.position, 'alter table t create branch b as of version '.length + 1);
  const f = errorOf('create table t (a int) partition by (day(a), )');
  assert.equal(f.sqlstate, '42601');
});

test('optimizer group DDL is lifted whole; options keep their text, keys lower-cased; any keyword may name the group', () => {
  assert.deepEqual(clauses("CREATE OPTIMIZER GROUP IF NOT EXISTS etl WITH (Threads = 4, 'scheduling_policy' = 'balanced')"), [{
    kind: 'optimizerGroupDdl', location: 0, action: 'create', name: 'etl', ifClause: true,
    options: [{ key: 'threads', value: '4', location: 47 }, { key: 'scheduling_policy', value: 'balanced', location: 60 }],
  }]);
  assert.deepEqual(clauses('alter optimizer group default set (threads = -1)').map((c) => c.kind === 'optimizerGroupDdl' && [c.action, c.name, c.options[0]!.value]),
    [['alter', 'default', '-1']]);
  assert.deepEqual(clauses('DROP OPTIMIZER GROUP IF EXISTS "Nightly"').map((c) => c.kind === 'optimizerGroupDdl' && [c.action, c.name, c.ifClause]),
    [['drop', 'Nightly', true]]);
  assert.deepEqual(clauses('CREATE OPTIMIZER GROUP g').map((c) => c.kind === 'optimizerGroupDdl' && c.options), [[]]);
});

test('optimizer group DDL errors are 42601 at the token; PostgreSQL text mentioning the words is untouched', () => {
  const at = (sql: string) => { const e = errorOf(sql); return [e.sqlstate, e.message, e.position]; };
  assert.deepEqual(at('CREATE OPTIMIZER GROUP g WITH (threads)'), ['42601', 'syntax error at or near ")"', 39]);
  assert.deepEqual(at('CREATE OPTIMIZER GROUP g WITH threads = 1'), ['42601', 'syntax error at or near "threads"', 31]);
  assert.deepEqual(at('ALTER OPTIMIZER GROUP g SET (threads = 1) x'), ['42601', 'syntax error at or near "x"', 43]);
  assert.deepEqual(at('DROP OPTIMIZER GROUP IF g'), ['42601', 'syntax error at or near "g"', 25]);
  assert.deepEqual(at('CREATE OPTIMIZER GROUP'), ['42601', 'syntax error at end of input', 23]);
  assert.deepEqual(at('CREATE OPTIMIZER GROUP g WITH (threads = 1, THREADS = 2)'), ['42601', 'conflicting or redundant options', 45]);
  assert.deepEqual(clauses("SELECT 'create optimizer group g' AS optimizer"), []);
  assert.deepEqual(clauses('CREATE TABLE optimizer ("group" int)'), []);
});
