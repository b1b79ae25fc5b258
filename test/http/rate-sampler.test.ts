import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActivityTotals } from '../../src/http/metrics/floe-metrics.js';
import { RateSampler } from '../../src/http/metrics/rate-sampler.js';

function fixture(windowMs = 60_000) {
  let now = 1_000_000;
  const totals: { -readonly [K in keyof ActivityTotals]: number } = { commits: 0, ingestRows: 0, queries: 0, errors: 0 };
  const sampler = new RateSampler({ totals: () => ({ ...totals }), intervalMs: 10_000, windowMs, now: () => now });
  return { sampler, totals, advance: (ms: number) => { now += ms; } };
}

test('rates are per second between samples, then from the last sample to now', () => {
  const { sampler, totals, advance } = fixture();
  sampler.sample();
  totals.commits += 20;
  totals.ingestRows += 1000;
  advance(10_000);
  sampler.sample();
  totals.queries += 5;
  totals.errors += 1;
  advance(5_000);
  const points = sampler.rates();
  assert.deepEqual(points.map((p) => [p.seconds, p.commitsPerSecond, p.ingestRowsPerSecond, p.queriesPerSecond, p.errorsPerSecond]), [
    [10, 2, 100, 0, 0],
    [5, 0, 0, 1, 0.2],
  ]);
  assert.equal(points[1]!.at - points[0]!.at, 5_000);
});

test('only the window is kept: one sample older than it starts the first interval', () => {
  const { sampler, advance } = fixture(30_000);
  for (let i = 0; i < 10; i++) {
    sampler.sample();
    advance(10_000);
  }
  // Samples at 0..90 s, now 100 s: a 30 s window keeps 60 s (its start) to 90 s, plus now.
  const points = sampler.rates();
  assert.equal(points.length, 4);
  assert.ok(points.every((p) => p.seconds === 10));
});

test('one sample, asked at the same instant: no interval, no point', () => {
  const { sampler } = fixture();
  sampler.sample();
  assert.deepEqual(sampler.rates(), []);
});
