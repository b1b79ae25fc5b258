import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backOffMs } from '../../src/service/optimizing/back-off.js';
import { healthScore } from '../../src/service/optimizing/health-score.js';
import { OccupationTracker } from '../../src/service/optimizing/occupation-tracker.js';

test('back-off doubles from 1 s and is capped at 10 min', () => {
  assert.deepEqual([0, 1, 2, 3, 4].map(backOffMs), [0, 1000, 2000, 4000, 8000]);
  assert.equal(backOffMs(10), 512_000);
  assert.equal(backOffMs(11), 600_000);
  assert.equal(backOffMs(10_000), 600_000);
});

test('occupation: thread time in the last hour over threads × 1 h, a running process counting up to now', () => {
  const o = new OccupationTracker();
  const h = 3_600_000_000n;
  const t0 = 10n * h;
  o.add(1, t0 - 2n * h, t0 - h - 60_000_000n); // left the window entirely
  o.add(1, t0 - h - 600_000_000n, t0 - h + 600_000_000n); // 10 min of it inside
  const end = o.begin(1, t0 - 1_200_000_000n); // running for 20 min
  assert.equal(o.occupation(1, 1, t0), 0.5);
  assert.equal(o.occupation(1, 2, t0), 0.25);
  end(t0 - 600_000_000n); // it finished after 10 min
  assert.ok(Math.abs(o.occupation(1, 1, t0) - 1 / 3) < 1e-9);
  assert.equal(o.occupation(2, 1, t0), 0);
  assert.equal(o.occupation(1, 0, t0), 0);
});

test('health score: 100 when clean, docked for read amplification, small files, lag and failures', () => {
  const clean = { readAmplification: 0, readAmplificationMax: 16, smallFiles: 0, baseFiles: 4, optimizingLagMs: 0, minorIntervalMs: 60_000, consecutiveFailures: 0 };
  assert.equal(healthScore(clean), 100);
  assert.equal(healthScore({ ...clean, readAmplification: 16 }), 60);
  assert.equal(healthScore({ ...clean, readAmplification: 8 }), 80);
  assert.equal(healthScore({ ...clean, smallFiles: 1, baseFiles: 1 }), 100, 'a small table\'s one small file is no fault');
  assert.equal(healthScore({ ...clean, smallFiles: 3 }), 90);
  assert.equal(healthScore({ ...clean, optimizingLagMs: 60_000 }), 88);
  assert.equal(healthScore({ ...clean, consecutiveFailures: 10 }), 85);
  assert.equal(healthScore({ readAmplification: 99, readAmplificationMax: 16, smallFiles: 9, baseFiles: 9, optimizingLagMs: 1e9, minorIntervalMs: 60_000, consecutiveFailures: 9 }), 2);
});
