import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStatements } from '../../src/sql/index.js';
import { FloeError } from '../../src/common/floe-error.js';
import { capturedStatements } from './client-queries.js';

function syntaxError(sql: string): FloeError {
  try {
    parseStatements(sql);
  } catch (e) {
    assert.ok(e instanceof FloeError, 'a FloeError');
    return e;
  }
  assert.fail(`expected a syntax error for ${sql}`);
}

test('splits statements with their text and 0-based location', () => {
  const sql = 'select 1;  select 2 ;\n-- note\nselect 3';
  const stmts = parseStatements(sql);
  assert.deepEqual(stmts.map((s) => s.text), ['select 1', 'select 2', 'select 3']);
  assert.deepEqual(stmts.map((s) => s.location), [0, 11, 30]);
  for (const s of stmts) assert.equal(sql.slice(s.location, s.location + s.text.length), s.text);
  assert.equal(Object.keys(stmts[0]!.ast)[0], 'SelectStmt');
});

test('blank, whitespace-only and ;-only input yield no statements', () => {
  for (const sql of ['', '   ', ';', ' ; ; ', '-- just a comment', '/* c */ ;']) assert.deepEqual(parseStatements(sql), [], JSON.stringify(sql));
});

test('semicolons inside strings, dollar quotes and comments do not split', () => {
  const stmts = parseStatements("select 'a;b'; select $$x;y$$ /* ; */; select \"c;d\" from t");
  assert.equal(stmts.length, 3);
  assert.equal(stmts[2]!.text, 'select "c;d" from t');
});

test('syntax errors are 42601 with PostgreSQL\'s message and 1-based position', () => {
  const e = syntaxError('select from where');
  assert.equal(e.sqlstate, '42601');
  assert.equal(e.message, 'syntax error at or near "where"');
  assert.equal(e.position, 13);
  const second = syntaxError('select 1; selec 2');
  assert.equal(second.message, 'syntax error at or near "selec"');
  assert.equal(second.position, 11);
  const end = syntaxError('select (1');
  assert.equal(end.message, 'syntax error at end of input');
  assert.equal(end.position, 10);
});

test('positions count characters, not UTF-8 bytes', () => {
  const e = syntaxError("select 'é€' frm x");
  assert.equal(e.position, "select 'é€' frm ".length + 1);
  const [s] = parseStatements("select 'é€', zz from t");
  const target = (s!.ast as any).SelectStmt.targetList[1].ResTarget.val.ColumnRef;
  assert.equal(target.location, "select 'é€', ".length);
});

test('parses are cached by text and shared', () => {
  const a = parseStatements('select 42 as cached');
  const b = parseStatements('select 42 as cached');
  assert.notEqual(a, b, 'callers get their own array');
  assert.equal(a[0], b[0], 'the parsed statement is shared');
});

test('every captured client statement parses', () => {
  for (const file of ['psql-meta-commands.sql', 'pgjdbc-42.5.sql']) {
    const stmts = capturedStatements(file);
    assert.ok(stmts.length > 10, `${file} has statements`);
    for (const sql of stmts) {
      const parsed = parseStatements(sql);
      assert.ok(parsed.length === 1, `${file}: one statement in ${sql.slice(0, 60)}`);
    }
  }
});

test('PostgreSQL-only syntax that node-sql-parser rejected parses', () => {
  for (const sql of [
    "SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default",
    "SELECT typinput='pg_catalog.array_in'::regproc, (current_schemas(false))[1]",
    'SHOW TRANSACTION ISOLATION LEVEL', 'SELECT session_user', 'DECLARE c CURSOR WITH HOLD FOR SELECT 1', 'DISCARD ALL',
    'COPY t FROM STDIN', 'MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE',
  ]) {
    assert.equal(parseStatements(sql).length, 1, sql);
  }
});
