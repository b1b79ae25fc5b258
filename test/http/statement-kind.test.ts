import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATEMENT_KINDS, sqlstateClass, statementKind } from '../../src/http/index.js';

test('command tags map to a small fixed set of kinds', () => {
  const cases: [string, string][] = [
    ['SELECT 3', 'select'], ['FETCH 10', 'select'], ['INSERT 0 1', 'insert'], ['UPDATE 2', 'update'], ['DELETE 0', 'delete'],
    ['MERGE 4', 'merge'], ['COPY 5', 'copy'], ['CALL', 'call'], ['CREATE TABLE', 'ddl'], ['ALTER TABLE', 'ddl'], ['DROP TABLE', 'ddl'],
    ['BEGIN', 'transaction'], ['COMMIT', 'transaction'], ['ROLLBACK', 'transaction'], ['SET', 'utility'], ['SHOW', 'utility'],
    ['EXPLAIN', 'utility'], ['START_REPLICATION', 'utility'], ['', 'utility'], ['select 1', 'utility'],
  ];
  for (const [tag, kind] of cases) assert.equal(statementKind(tag), kind, tag);
  assert.ok(cases.every(([tag]) => (STATEMENT_KINDS as readonly string[]).includes(statementKind(tag))));
});

test('errors are labelled by SQLSTATE class; anything malformed is XX', () => {
  assert.equal(sqlstateClass('22012'), '22');
  assert.equal(sqlstateClass('0A000'), '0A');
  assert.equal(sqlstateClass('42P01'), '42');
  assert.equal(sqlstateClass('oops'), 'XX');
  assert.equal(sqlstateClass('2201'), 'XX');
});
