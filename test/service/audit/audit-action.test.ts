import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditActionOf, type AuditedStatement } from '../../../src/service/index.js';

const of = (stmt: AuditedStatement, logReads: string | boolean = 'off') => auditActionOf(stmt, logReads);

test('GRANT, REVOKE, role statements and ALTER … OWNER TO are privilege changes', () => {
  for (const commandTag of ['GRANT', 'REVOKE', 'GRANT ROLE', 'REVOKE ROLE', 'CREATE ROLE', 'ALTER ROLE', 'DROP ROLE', 'REASSIGN OWNED']) {
    assert.equal(of({ kind: 'ddl', commandTag }), 'privilege', commandTag);
    assert.equal(of({ kind: 'utility', commandTag: commandTag.toLowerCase() }), 'privilege', `${commandTag} whatever its kind`);
  }
  assert.equal(of({ kind: 'ddl', commandTag: 'ALTER TABLE', changesOwner: true }), 'privilege');
  assert.equal(of({ kind: 'ddl', commandTag: 'ALTER SCHEMA', changesOwner: true }), 'privilege');
});

test('other DDL is ddl; a utility spelled like DDL is too', () => {
  for (const commandTag of ['CREATE TABLE', 'ALTER TABLE', 'DROP TABLE', 'CREATE VIEW', 'CREATE TABLE AS', 'COMMENT', 'CREATE SUBSCRIPTION']) {
    assert.equal(of({ kind: 'ddl', commandTag }), 'ddl', commandTag);
  }
  assert.equal(of({ kind: 'utility', commandTag: 'ALTER SYSTEM' }), 'ddl');
});

test('INSERT, UPDATE, DELETE, MERGE, TRUNCATE, COPY FROM and CALL are writes, audited whatever audit.log_reads says', () => {
  for (const commandTag of ['INSERT 0 3', 'UPDATE 2', 'DELETE 0', 'MERGE 1', 'TRUNCATE TABLE']) {
    assert.equal(of({ kind: 'dml', commandTag }), 'write', commandTag);
  }
  assert.equal(of({ kind: 'ddl', commandTag: 'TRUNCATE TABLE' }), 'write');
  assert.equal(of({ kind: 'utility', commandTag: 'COPY 10', copyDirection: 'from' }), 'write');
  assert.equal(of({ kind: 'utility', commandTag: 'COPY' }), 'write', 'a COPY of unknown direction is audited');
  assert.equal(of({ kind: 'utility', commandTag: 'CALL' }), 'write', 'rollback_to_snapshot and friends change tables');
  assert.equal(of({ kind: 'query', commandTag: 'SELECT 1', writesData: true }), 'write', 'a data-modifying WITH');
});

test('SELECT, COPY TO and DECLARE CURSOR are reads, audited only with audit.log_reads on', () => {
  const reads: AuditedStatement[] = [
    { kind: 'query', commandTag: 'SELECT 5' },
    { kind: 'utility', commandTag: 'COPY 5', copyDirection: 'to' },
    { kind: 'utility', commandTag: 'DECLARE CURSOR' },
  ];
  for (const stmt of reads) {
    assert.equal(of(stmt, 'off'), undefined, stmt.commandTag);
    assert.equal(of(stmt, false), undefined);
    for (const on of ['on', 'ON', 'true', 't', 'yes', '1', true]) assert.equal(of(stmt, on), 'read', `${stmt.commandTag} with ${on}`);
    for (const off of ['off', 'false', 'no', '0', '']) assert.equal(of(stmt, off), undefined, `${stmt.commandTag} with ${off}`);
  }
});

test('SET, SHOW, transaction control, FETCH, EXPLAIN and the like are not audited, even with reads on', () => {
  for (const commandTag of ['SET', 'SHOW', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'FETCH 10', 'MOVE 1', 'CLOSE CURSOR', 'EXPLAIN', 'LISTEN', 'DISCARD ALL', 'RESET', 'DEALLOCATE', 'PREPARE', 'LOCK TABLE']) {
    assert.equal(of({ kind: 'utility', commandTag }, 'on'), undefined, commandTag);
  }
});
