import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreshnessTracker, STAMP_TABLE } from '../../src/tools/cdcbench/commit-stamps.js';

describe('bench:cdc freshness tracker', () => {
  it('times a stamp from its COMMIT acknowledgement to the first poll that returned it', () => {
    const t = new FreshnessTracker();
    const a = t.next();
    assert.equal(a.sql, `INSERT INTO ${STAMP_TABLE} (id, stamped_at) VALUES (${a.id}, clock_timestamp())`);
    t.settled(a.id, 1_000);
    assert.equal(t.pending, 1);
    t.seen([a.id], 1_040);
    t.seen([a.id], 1_090); // a later poll returns it again: not a second sample
    assert.deepEqual(t.samples, [{ ackAtMs: 1_000, ms: 40 }]);
    assert.equal(t.pending, 0);
  });

  it('counts a stamp seen before its acknowledgement reached the client as 0 ms', () => {
    const t = new FreshnessTracker();
    const a = t.next();
    t.seen([a.id], 500);
    assert.deepEqual(t.samples, []);
    t.settled(a.id, 510);
    assert.deepEqual(t.samples, [{ ackAtMs: 510, ms: 0 }]);
    assert.equal(t.pending, 0);
  });

  it('asks polls for the lowest stamp still in flight or unseen, and drops failed transactions', () => {
    const t = new FreshnessTracker();
    assert.equal(t.floor(), 1, 'nothing stamped yet: the next id');
    const a = t.next();
    const b = t.next();
    const c = t.next();
    assert.equal(t.floor(), a.id);
    t.settled(a.id, undefined); // its COMMIT failed: never expected on the replica
    assert.equal(t.floor(), b.id);
    t.settled(c.id, 100);
    t.seen([c.id], 130);
    assert.equal(t.floor(), b.id, 'b is still in flight');
    t.settled(b.id, 140);
    assert.equal(t.pending, 1);
    t.seen([b.id, c.id], 160);
    assert.equal(t.floor(), 4);
    assert.deepEqual(t.samples, [{ ackAtMs: 100, ms: 30 }, { ackAtMs: 140, ms: 20 }]);
  });
});
