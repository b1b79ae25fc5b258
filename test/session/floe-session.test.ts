import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler, StatementResult } from '../../src/wire/session-handler.js';

let warehouse: Warehouse;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-session-')) });
});

function session(parameters: Record<string, string> = {}): { s: SessionHandler; status: Map<string, string> } {
  const s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters, remoteAddress: '127.0.0.1', processId: 42 },
  });
  return { s, status: new Map() };
}

async function all(s: SessionHandler, sql: string): Promise<{ result: StatementResult; rows: unknown[][] }[]> {
  const out: { result: StatementResult; rows: unknown[][] }[] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    const rows: unknown[][] = [];
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) rows.push(b.columns.map((c) => c.get(i)));
    out.push({ result: r, rows });
  }
  return out;
}

test('start() reports the ParameterStatus set, with startup parameters applied', async () => {
  const { s } = session({ application_name: 'psql', TimeZone: 'Europe/Paris' });
  const events = { parameterStatus: () => undefined, notice: () => undefined };
  const p = await s.start(events);
  assert.equal(p.server_version, '15.18 (Floe 0.1.0)');
  assert.equal(p.server_version_num, '150018');
  assert.equal(p.application_name, 'psql');
  assert.equal(p.TimeZone, 'Europe/Paris');
  assert.equal(p.DateStyle, 'ISO, MDY');
  assert.equal(p.search_path, '"$user", public');
  assert.equal(s.transactionStatus(), 'I');
});

test('a blank query string answers EmptyQueryResponse', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await all(s, ' ; ');
  assert.deepEqual(r.map((x) => x.result.kind), ['empty']);
});

test('BEGIN, a failing statement, then COMMIT answers ROLLBACK and statuses go T → E → I', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'BEGIN');
  assert.equal(s.transactionStatus(), 'T');
  await assert.rejects(all(s, 'SELECT * FROM no_such_table'));
  assert.equal(s.transactionStatus(), 'E');
  await assert.rejects(all(s, 'SELECT 1'), (e: { sqlstate?: string }) => e.sqlstate === '25P02');
  const r = await all(s, 'COMMIT');
  assert.deepEqual(r.map((x) => x.result), [{ kind: 'command', tag: 'ROLLBACK' }]);
  assert.equal(s.transactionStatus(), 'I');
});

test('SET re-sends ParameterStatus; SHOW and RESET see it', async () => {
  const { s } = session();
  const sent: [string, string][] = [];
  await s.start({ parameterStatus: (n, v) => sent.push([n, v]), notice: () => undefined });
  await all(s, "SET TimeZone = 'America/New_York'");
  assert.deepEqual(sent, [['TimeZone', 'America/New_York']]);
  const shown = await all(s, 'SHOW TimeZone');
  assert.deepEqual(shown[0]!.rows, [['America/New_York']]);
  await all(s, 'RESET TimeZone');
  assert.deepEqual(sent.at(-1), ['TimeZone', 'UTC']);
});

test('warnings for COMMIT outside and BEGIN inside a transaction, as PostgreSQL gives them', async () => {
  const { s } = session();
  const notices: string[] = [];
  await s.start({ parameterStatus: () => undefined, notice: (n) => notices.push(`${n.severity} ${n.sqlstate} ${n.message}`) });
  const r = await all(s, 'COMMIT');
  assert.deepEqual(r.map((x) => x.result), [{ kind: 'command', tag: 'COMMIT' }]);
  await all(s, 'BEGIN');
  await all(s, 'BEGIN');
  await all(s, 'ROLLBACK');
  assert.deepEqual(notices, [
    'WARNING 25P01 there is no transaction in progress',
    'WARNING 25001 there is already a transaction in progress',
  ]);
  assert.equal(s.transactionStatus(), 'I');
});

test('START TRANSACTION answers with its own command tag, as PostgreSQL does', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await all(s, 'START TRANSACTION; ROLLBACK; BEGIN; ROLLBACK');
  assert.deepEqual(r.map((x) => x.result), [
    { kind: 'command', tag: 'START TRANSACTION' }, { kind: 'command', tag: 'ROLLBACK' },
    { kind: 'command', tag: 'BEGIN' }, { kind: 'command', tag: 'ROLLBACK' },
  ]);
});

test('savepoints: ROLLBACK TO clears a failed state, RELEASE forgets, unknown names are 3B001', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'BEGIN');
  await all(s, 'SAVEPOINT a');
  await assert.rejects(all(s, 'SELECT * FROM missing_table'));
  assert.equal(s.transactionStatus(), 'E');
  const r = await all(s, 'ROLLBACK TO SAVEPOINT a');
  assert.deepEqual(r.map((x) => x.result), [{ kind: 'command', tag: 'ROLLBACK' }]);
  assert.equal(s.transactionStatus(), 'T');
  await all(s, 'RELEASE SAVEPOINT a');
  await assert.rejects(all(s, 'ROLLBACK TO SAVEPOINT a'), (e: { sqlstate?: string }) => e.sqlstate === '3B001');
  await all(s, 'ROLLBACK');
});

test('ROLLBACK TO SAVEPOINT undoes the writes made after the savepoint and keeps the earlier ones', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE sp_t (id integer PRIMARY KEY, v text)');
  const rows = async () => (await all(s, 'SELECT id, v FROM sp_t ORDER BY id'))[0]!.rows;
  await all(s, "BEGIN; INSERT INTO sp_t VALUES (1, 'a'); SAVEPOINT s1; INSERT INTO sp_t VALUES (2, 'b')");
  await all(s, "UPDATE sp_t SET v = 'z' WHERE id = 1; SAVEPOINT s2; INSERT INTO sp_t VALUES (3, 'c')");
  assert.deepEqual(await rows(), [[1, 'z'], [2, 'b'], [3, 'c']]);
  await all(s, 'ROLLBACK TO SAVEPOINT s2');
  assert.deepEqual(await rows(), [[1, 'z'], [2, 'b']]);
  await all(s, 'ROLLBACK TO SAVEPOINT s1');
  assert.deepEqual(await rows(), [[1, 'a']]);
  await all(s, "INSERT INTO sp_t VALUES (4, 'd'); COMMIT");
  assert.deepEqual(await rows(), [[1, 'a'], [4, 'd']]);
  // A savepoint taken before the transaction's first write rolls back to nothing staged.
  await all(s, "BEGIN; SAVEPOINT s0; INSERT INTO sp_t VALUES (5, 'e'); ROLLBACK TO SAVEPOINT s0; COMMIT");
  assert.deepEqual(await rows(), [[1, 'a'], [4, 'd']]);
});

test('set_config changes the setting as SET does (ParameterStatus too); is_local lasts until the transaction ends', async () => {
  const { s } = session();
  const reported: string[] = [];
  await s.start({ parameterStatus: (n, v) => reported.push(`${n}=${v}`), notice: () => undefined });
  const show = async () => (await all(s, 'SHOW application_name'))[0]!.rows[0]![0];
  const r = await all(s, "SELECT set_config('application_name', 'fromfn', false)");
  assert.deepEqual(r[0]!.rows, [['fromfn']]);
  assert.equal(await show(), 'fromfn');
  assert.ok(reported.includes('application_name=fromfn'));
  await all(s, "BEGIN; SELECT set_config('application_name', 'local', true)");
  assert.equal(await show(), 'local');
  await all(s, 'COMMIT');
  assert.equal(await show(), 'fromfn');
});

test('DDL goes to the lake: schemas and tables appear in the warehouse and in pg_catalog', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await all(s, 'CREATE SCHEMA ddl_s; CREATE TABLE ddl_s.t (id bigint PRIMARY KEY, v varchar(10) DEFAULT \'x\')');
  assert.deepEqual(r.map((x) => x.result), [{ kind: 'command', tag: 'CREATE SCHEMA' }, { kind: 'command', tag: 'CREATE TABLE' }]);
  const t = warehouse.getTable('ddl_s', 't');
  assert.ok(t);
  assert.deepEqual(t.primaryKey, ['id']);
  assert.deepEqual(t.columns.map((c) => [c.name, c.type.kind, c.nullable]), [['id', 'int8', false], ['v', 'varchar', true]]);
  await all(s, 'ALTER TABLE ddl_s.t ADD COLUMN w integer');
  assert.deepEqual(warehouse.getTable('ddl_s', 't')!.columns.map((c) => c.name), ['id', 'v', 'w']);
  await all(s, 'DROP TABLE ddl_s.t; DROP SCHEMA ddl_s');
  assert.equal(warehouse.getTable('ddl_s', 't'), undefined);
  assert.ok(!warehouse.listNamespaces().includes('ddl_s'));
});

test('COPY FROM STDIN parses text rows, applies DEFAULTs and commits them to the lake', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, "CREATE TABLE copy_t (id integer PRIMARY KEY, label text, note text DEFAULT 'dflt')");
  const [first] = await all(s, 'COPY copy_t (id, label) FROM STDIN');
  const r = first!.result;
  assert.equal(r.kind, 'copyIn');
  if (r.kind !== 'copyIn') return;
  assert.equal(r.columnCount, 2);
  await r.sink.write(Buffer.from('1\tone\n2\t\\N\n'));
  await r.sink.write(Buffer.from('3\tthree\n\\.\n'));
  assert.equal(await r.sink.finish(), 'COPY 3');
  const t = warehouse.getTable('public', 'copy_t')!;
  assert.equal(warehouse.listFiles(t).reduce((n, f) => n + f.rowCount, 0), 3);
  assert.equal(s.transactionStatus(), 'I');
});

test('COPY FROM rejects a row with too few fields and writes nothing', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE copy_bad (id integer, label text)');
  const [first] = await all(s, 'COPY copy_bad FROM STDIN');
  const r = first!.result;
  if (r.kind !== 'copyIn') throw new Error('expected copyIn');
  await r.sink.write(Buffer.from('1\tone\n2\n'));
  await assert.rejects(r.sink.finish(), (e: { sqlstate?: string; message: string }) => e.sqlstate === '22P04' && /missing data for column "label"/.test(e.message));
  const t = warehouse.getTable('public', 'copy_bad')!;
  assert.equal(warehouse.listFiles(t).length, 0);
});

test('extended protocol: Parse describes SHOW, Bind/Execute runs it; DISCARD ALL restores settings', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, "SET application_name = 'x'");
  const p = await s.prepare('SHOW application_name', []);
  assert.deepEqual(p.columns?.map((c) => [c.name, c.typeOid]), [['application_name', 25]]);
  const portal = await s.bind(p, []);
  const r = await portal.execute(new AbortController().signal);
  assert.equal(r.kind, 'rows');
  if (r.kind !== 'rows') return;
  const rows: unknown[] = [];
  for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) rows.push(b.columns[0]!.get(i));
  assert.deepEqual(rows, ['x']);
  assert.equal(r.commandTag(1), 'SHOW');
  await all(s, 'DISCARD ALL');
  const after = await all(s, 'SHOW application_name');
  assert.deepEqual(after[0]!.rows, [['']]);
});

test('settings are transactional: ROLLBACK undoes SET, COMMIT keeps SET but undoes SET LOCAL', async () => {
  const { s } = session();
  const sent: [string, string][] = [];
  await s.start({ parameterStatus: (n, v) => sent.push([n, v]), notice: () => undefined });
  await all(s, "BEGIN; SET application_name = 'in_txn'; ROLLBACK");
  assert.deepEqual((await all(s, 'SHOW application_name'))[0]!.rows, [['']]);
  assert.deepEqual(sent, [['application_name', 'in_txn'], ['application_name', '']]);
  await all(s, 'BEGIN');
  await all(s, "SET application_name = 'kept'");
  await all(s, "SET LOCAL TimeZone = 'Asia/Tokyo'");
  assert.deepEqual((await all(s, 'SHOW TimeZone'))[0]!.rows, [['Asia/Tokyo']]);
  await all(s, 'COMMIT');
  assert.deepEqual((await all(s, 'SHOW application_name'))[0]!.rows, [['kept']]);
  assert.deepEqual((await all(s, 'SHOW TimeZone'))[0]!.rows, [['UTC']]);
  assert.deepEqual(sent.at(-1), ['TimeZone', 'UTC']);
});

async function texts(s: SessionHandler, sql: string): Promise<unknown[][]> {
  const r = await all(s, sql);
  return r[r.length - 1]!.rows;
}

test('writes: autocommit commits, ROLLBACK discards, a failed multi-statement string writes nothing', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE w (id integer PRIMARY KEY, v text)');
  const ins = await all(s, "INSERT INTO w VALUES (1, 'a'), (2, 'b') RETURNING id");
  assert.deepEqual(ins[0]!.rows, [[1], [2]]);
  assert.equal(ins[0]!.result.kind === 'rows' && ins[0]!.result.commandTag(2), 'INSERT 0 2');
  await all(s, "BEGIN; INSERT INTO w VALUES (3, 'c'); ROLLBACK");
  assert.deepEqual(await texts(s, 'SELECT id FROM w ORDER BY id'), [[1], [2]]);
  await assert.rejects(all(s, "INSERT INTO w VALUES (4, 'd'); SELECT * FROM no_such"));
  assert.deepEqual(await texts(s, 'SELECT id FROM w ORDER BY id'), [[1], [2]]);
  await all(s, "BEGIN; INSERT INTO w VALUES (5, 'e')");
  assert.deepEqual(await texts(s, 'SELECT id FROM w ORDER BY id'), [[1], [2], [5]], 'a transaction sees its own writes');
  await all(s, 'COMMIT');
  assert.deepEqual(await texts(s, 'SELECT count(*) FROM w'), [[3n]]);
});

test('cursors: DECLARE, FETCH n, MOVE, FETCH ALL, CLOSE; outside a transaction is 25P01', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE cur_t (id integer)');
  await all(s, 'INSERT INTO cur_t SELECT i FROM generate_series(1, 10) AS g(i)');
  await assert.rejects(all(s, 'DECLARE c CURSOR FOR SELECT id FROM cur_t'), (e: { sqlstate?: string }) => e.sqlstate === '25P01');
  await all(s, 'BEGIN');
  await all(s, 'DECLARE c CURSOR FOR SELECT id FROM cur_t ORDER BY id');
  const f = await all(s, 'FETCH 3 FROM c');
  assert.deepEqual(f[0]!.rows, [[1], [2], [3]]);
  assert.equal(f[0]!.result.kind === 'rows' && f[0]!.result.commandTag(3), 'FETCH 3');
  assert.deepEqual((await all(s, 'MOVE 4 IN c'))[0]!.result, { kind: 'command', tag: 'MOVE 4' });
  assert.deepEqual(await texts(s, 'FETCH ALL FROM c'), [[8], [9], [10]]);
  assert.deepEqual(await texts(s, 'FETCH 1 FROM c'), []);
  await all(s, 'CLOSE c');
  await assert.rejects(all(s, 'FETCH 1 FROM c'), (e: { sqlstate?: string }) => e.sqlstate === '34000');
  await all(s, 'ROLLBACK');
});

test('PREPARE / EXECUTE / DEALLOCATE, and EXPLAIN answers QUERY PLAN rows', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE pe (id integer PRIMARY KEY, v text)');
  await all(s, 'PREPARE ins(integer, text) AS INSERT INTO pe VALUES ($1, $2)');
  await all(s, "EXECUTE ins(1, 'one'); EXECUTE ins(2, 'two')");
  await assert.rejects(all(s, 'PREPARE ins AS SELECT 1'), (e: { sqlstate?: string }) => e.sqlstate === '42P05');
  assert.deepEqual(await texts(s, 'SELECT v FROM pe ORDER BY id'), [['one'], ['two']]);
  await all(s, 'DEALLOCATE ins');
  await assert.rejects(all(s, 'EXECUTE ins(3, \'x\')'), (e: { sqlstate?: string }) => e.sqlstate === '26000');
  const plan = await all(s, 'EXPLAIN SELECT * FROM pe WHERE id = 1');
  const r = plan[0]!.result;
  assert.ok(r.kind === 'rows' && r.columns[0]!.name === 'QUERY PLAN');
  assert.ok(plan[0]!.rows.length > 0 && plan[0]!.rows.every((row) => typeof row[0] === 'string'));
  const text = plan[0]!.rows.map((row) => row[0]).join('\n');
  assert.match(text, /Lake Scan on public\.pe/);
  assert.match(text, /Scan Tasks: \d+/, text);
  assert.match(text, /Files: \d+ of \d+ \(pruned \d+/, text);
  const analyzed = (await texts(s, 'EXPLAIN ANALYZE SELECT * FROM pe')).map((row) => row[0]).join('\n');
  assert.match(analyzed, /Actual Rows: 2/);
});

test('COPY TO STDOUT writes CSV with a header and PostgreSQL quoting', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'CREATE TABLE ct (id integer, v text)');
  await all(s, "INSERT INTO ct VALUES (1, 'a,b'), (2, NULL), (3, '')");
  const [res] = await all(s, 'COPY (SELECT id, v FROM ct ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)');
  const r = res!.result;
  assert.equal(r.kind, 'copyOut');
  if (r.kind !== 'copyOut') return;
  let out = '';
  for await (const c of r.chunks) out += Buffer.from(c).toString('utf8');
  assert.equal(out, 'id,v\n1,"a,b"\n2,\n3,""\n');
  assert.equal(r.commandTag(0), 'COPY 3');
});

test('startup options: -c settings apply, client_encoding is UTF8, a bare DateStyle gets its order', async () => {
  const { s } = session({ options: '-c search_path=sales,public --application-name=tool', client_encoding: 'LATIN1', DateStyle: 'ISO' });
  const p = await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  assert.equal(p.search_path, 'sales,public');
  assert.equal(p.application_name, 'tool');
  assert.equal(p.client_encoding, 'UTF8');
  assert.equal(p.DateStyle, 'ISO, MDY');
});
