import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { AuditSpool, AuditTrail, recoverAuditSpools } from '../../../src/service/index.js';
import { tempWarehouse } from '../../lake/helpers/read-table.js';
import { auditStatements, captureLogger, event } from './audit-trail-helpers.js';

/** Above Linux's largest process id (4194304): no process can hold it, so its spool is a dead one's. */
const DEAD_PID = 4_194_305;

test('the spool holds what no flush has committed: appended at record, cut back after each flush, gone at a clean stop', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const spool = new AuditSpool(dir);
    const trail = new AuditTrail({ warehouse: wh, logger: captureLogger().logger, spool });
    const lines = () => readFileSync(spool.path, 'utf8').split('\n').filter((l) => l !== '');
    trail.record(event(1));
    trail.record(event(2));
    assert.equal(lines().length, 2, 'each row is in the file before any flush');
    assert.equal(await trail.flush(), true);
    assert.deepEqual(lines(), [], 'a committed flush cuts the file back');
    trail.record(event(3));
    assert.equal(lines().length, 1);
    await trail.stop();
    assert.equal(existsSync(spool.path), false, 'a clean stop with nothing waiting removes the file');
    assert.deepEqual(await auditStatements(wh), ['INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (2)', 'INSERT INTO t VALUES (3)']);
  } finally {
    await cleanup();
  }
});

test("a dead process's spool goes into the table once: rows a flush had committed are skipped, a torn last line ignored", async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    // A process that committed rows 1 and 2 and was killed before it cut its file back, having spooled 3 and half of 4.
    const dead = new AuditSpool(dir, DEAD_PID);
    const trail = new AuditTrail({ warehouse: wh, logger: captureLogger().logger });
    for (const n of [1, 2]) {
      trail.record(event(n));
      dead.append(event(n));
    }
    assert.equal(await trail.flush(), true);
    dead.append(event(3));
    dead.close(false);
    appendFileSync(dead.path, '{"at":"17');
    // The live process's own spool is not touched.
    const live = new AuditSpool(dir);
    live.append(event(9));
    assert.equal(await recoverAuditSpools(wh, dir), 1);
    assert.deepEqual(await auditStatements(wh), ['INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (2)', 'INSERT INTO t VALUES (3)']);
    assert.deepEqual(readdirSync(join(dir, 'audit-spool')), [`${process.pid}.jsonl`]);
    assert.equal(await recoverAuditSpools(wh, dir), 0, 'nothing is taken twice');
    live.close(true);
  } finally {
    await cleanup();
  }
});

test('a spool claimed by a process that died while recovering it is taken again', async () => {
  const { wh, dir, cleanup } = await tempWarehouse();
  try {
    const dead = new AuditSpool(dir, DEAD_PID);
    dead.append(event(5));
    dead.close(false);
    renameSync(dead.path, `${dead.path}.recovering-${DEAD_PID + 1}`);
    assert.equal(await recoverAuditSpools(wh, dir), 1);
    assert.deepEqual(await auditStatements(wh), ['INSERT INTO t VALUES (5)']);
    assert.deepEqual(readdirSync(join(dir, 'audit-spool')), []);
  } finally {
    await cleanup();
  }
});
