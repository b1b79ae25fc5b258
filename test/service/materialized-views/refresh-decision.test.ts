import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REFRESH_AT_SHARE, dueRefreshes, movingAverage, type ViewRefreshState } from '../../../src/service/materialized-views/refresh-decision.js';

const view = (over: Partial<ViewRefreshState>): ViewRefreshState => ({
  tableId: 1, freshnessMs: 10_000, lagMs: 0, incremental: true, incrementalMs: undefined, fullMs: undefined, notBeforeMicros: undefined, ...over,
});

describe('which materialized views the refresher refreshes', () => {
  test('a view is due once its lag plus its expected refresh time reaches half its freshness', () => {
    const half = 10_000 * REFRESH_AT_SHARE;
    assert.deepEqual(dueRefreshes([view({ lagMs: half - 1 })], 0n), []);
    assert.deepEqual(dueRefreshes([view({ lagMs: half })], 0n), [{ tableId: 1, mode: 'auto' }]);
    // A refresh measured at 2 s starts 2 s earlier.
    assert.deepEqual(dueRefreshes([view({ lagMs: half - 2000, incrementalMs: 2000, fullMs: 5000 })], 0n), [{ tableId: 1, mode: 'auto' }]);
    assert.deepEqual(dueRefreshes([view({ lagMs: half - 2001, incrementalMs: 2000, fullMs: 5000 })], 0n), []);
  });

  test('nothing is due with no lag, an unknown lag, or while a failed view backs off', () => {
    assert.deepEqual(dueRefreshes([view({ lagMs: 0, freshnessMs: 1 })], 0n), []);
    assert.deepEqual(dueRefreshes([view({ lagMs: undefined })], 0n), []);
    const backingOff = view({ lagMs: 60_000, notBeforeMicros: 5_000_000n });
    assert.deepEqual(dueRefreshes([backingOff], 4_999_999n), []);
    assert.deepEqual(dueRefreshes([backingOff], 5_000_000n), [{ tableId: 1, mode: 'auto' }]);
  });

  test('the most urgent (lag against freshness) first, and each in its mode', () => {
    const due = dueRefreshes([
      view({ tableId: 1, lagMs: 6000 }),
      view({ tableId: 2, lagMs: 900, freshnessMs: 1000 }),
      view({ tableId: 3, lagMs: 60_000, incremental: false }),
      view({ tableId: 4, lagMs: 7000, incrementalMs: 300, fullMs: 100 }),
    ], 0n);
    assert.deepEqual(due, [
      { tableId: 3, mode: 'full' }, { tableId: 2, mode: 'auto' }, { tableId: 4, mode: 'full' }, { tableId: 1, mode: 'auto' },
    ]);
  });

  test('incremental first; then one full refresh to measure it; then the cheaper of the two', () => {
    assert.deepEqual(dueRefreshes([view({ lagMs: 9000 })], 0n), [{ tableId: 1, mode: 'auto' }]);
    assert.deepEqual(dueRefreshes([view({ lagMs: 9000, incrementalMs: 100 })], 0n), [{ tableId: 1, mode: 'full' }]);
    assert.deepEqual(dueRefreshes([view({ lagMs: 9000, incrementalMs: 100, fullMs: 300 })], 0n), [{ tableId: 1, mode: 'auto' }]);
    assert.deepEqual(dueRefreshes([view({ lagMs: 9000, incrementalMs: 301, fullMs: 300 })], 0n), [{ tableId: 1, mode: 'full' }]);
  });

  test('costs are moving averages that follow recent refreshes', () => {
    assert.equal(movingAverage(undefined, 50), 50);
    assert.equal(movingAverage(100, 200), 130);
  });
});
