import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../src/common/floe-error.js';
import { isReplicationConnection, parseReplicationCommand } from '../../src/session/replication/replication-command.js';

test('walsender commands as PostgreSQL 15 clients spell them', () => {
  assert.deepEqual(parseReplicationCommand('IDENTIFY_SYSTEM'), { kind: 'identifySystem' });
  assert.deepEqual(parseReplicationCommand(`CREATE_REPLICATION_SLOT "pg_16390_sync_16385_7312" LOGICAL pgoutput (SNAPSHOT 'use')`), {
    kind: 'createSlot', name: 'pg_16390_sync_16385_7312', temporary: false, plugin: 'pgoutput', snapshot: 'use',
  });
  assert.deepEqual(parseReplicationCommand('create_replication_slot s1 TEMPORARY LOGICAL "pgoutput" NOEXPORT_SNAPSHOT;'), {
    kind: 'createSlot', name: 's1', temporary: true, plugin: 'pgoutput', snapshot: 'nothing',
  });
  assert.deepEqual(parseReplicationCommand('CREATE_REPLICATION_SLOT s2 LOGICAL pgoutput'), {
    kind: 'createSlot', name: 's2', temporary: false, plugin: 'pgoutput', snapshot: 'export',
  });
  assert.deepEqual(parseReplicationCommand('CREATE_REPLICATION_SLOT p PHYSICAL RESERVE_WAL'), {
    kind: 'createSlot', name: 'p', temporary: false, plugin: undefined, snapshot: 'export',
  });
  assert.deepEqual(parseReplicationCommand('DROP_REPLICATION_SLOT "s" WAIT'), { kind: 'dropSlot', name: 's', wait: true });
  const start = parseReplicationCommand(`START_REPLICATION SLOT "s" LOGICAL 1A/2B ("proto_version" '1', "publication_names" '"p","Q"')`);
  assert.ok(start?.kind === 'startReplication');
  assert.equal(start.slot, 's');
  assert.equal(start.logical, true);
  assert.equal(start.startLsn, (0x1an << 32n) | 0x2bn);
  assert.deepEqual([...start.options], [['proto_version', '1'], ['publication_names', '"p","Q"']]);
  assert.deepEqual(parseReplicationCommand('BASE_BACKUP'), { kind: 'unsupported', command: 'BASE_BACKUP' });
});

test('anything else is SQL, and broken commands are syntax errors', () => {
  assert.equal(parseReplicationCommand('SELECT 1'), undefined);
  assert.equal(parseReplicationCommand("SELECT pg_catalog.set_config('search_path', '', false)"), undefined);
  assert.equal(parseReplicationCommand('SHOW server_version'), undefined);
  assert.throws(() => parseReplicationCommand('START_REPLICATION SLOT s LOGICAL nowhere'), (e: unknown) => isFloeError(e) && e.sqlstate === '42601');
  assert.throws(() => parseReplicationCommand('IDENTIFY_SYSTEM extra'), (e: unknown) => isFloeError(e) && e.sqlstate === '42601');
});

test('replication=database and the physical spellings mark a walsender connection', () => {
  assert.equal(isReplicationConnection({ parameters: { replication: 'database' } }), true);
  assert.equal(isReplicationConnection({ parameters: { replication: 'true' } }), true);
  assert.equal(isReplicationConnection({ parameters: { replication: 'false' } }), false);
  assert.equal(isReplicationConnection({ parameters: {} }), false);
});
