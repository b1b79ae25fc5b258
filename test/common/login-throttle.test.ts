import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginThrottle } from '../../src/common/login-throttle.js';

/** A throttle on a clock the test moves. */
function throttle(opts: { failuresAllowed?: number; windowMs?: number; maxAddresses?: number } = {}) {
  let now = 1_000_000;
  const t = new LoginThrottle({ failuresAllowed: 3, windowMs: 60_000, firstLockMs: 1_000, maxLockMs: 8_000, ...opts, now: () => now });
  return { t, advance: (ms: number) => { now += ms; } };
}

const locked = (t: LoginThrottle, address: string) => {
  try {
    t.check(address);
    return undefined;
  } catch (e) {
    return e as { sqlstate: string; message: string; hint?: string; severity: string };
  }
};

test('an address is locked out at its allowed failures, for a time that doubles with each further failure up to the most', () => {
  const { t, advance } = throttle();
  assert.equal(t.failed('10.0.0.1'), 1);
  assert.equal(t.failed('10.0.0.1'), 2);
  assert.equal(locked(t, '10.0.0.1'), undefined);
  t.failed('10.0.0.1');
  const e = locked(t, '10.0.0.1')!;
  assert.equal(e.sqlstate, '28000');
  assert.equal(e.severity, 'FATAL');
  assert.equal(e.message, 'too many failed authentication attempts from 10.0.0.1');
  assert.equal(e.hint, 'Try again in 1 s.');
  // Another address is not touched.
  assert.equal(locked(t, '10.0.0.2'), undefined);
  advance(1_000);
  assert.equal(locked(t, '10.0.0.1'), undefined);
  // Each further failure doubles the lock: 2 s, 4 s, then the 8 s ceiling.
  for (const ms of [2_000, 4_000, 8_000, 8_000]) {
    t.failed('10.0.0.1');
    advance(ms - 1);
    assert.ok(locked(t, '10.0.0.1') !== undefined, `still locked just before ${ms} ms`);
    advance(1);
    assert.equal(locked(t, '10.0.0.1'), undefined, `free at ${ms} ms`);
  }
});

test('a success clears the address, and failures further apart than the window start the count again', () => {
  const { t, advance } = throttle();
  t.failed('a');
  t.failed('a');
  t.succeeded('a');
  t.failed('a');
  t.failed('a');
  assert.equal(locked(t, 'a'), undefined);
  advance(60_001);
  assert.equal(t.failed('a'), 1);
  assert.equal(locked(t, 'a'), undefined);
});

test('memory is bounded: past maxAddresses the longest-quiet address is forgotten', () => {
  const { t } = throttle({ maxAddresses: 2, failuresAllowed: 1 });
  t.failed('first');
  t.failed('second');
  t.failed('third');
  assert.equal(locked(t, 'first'), undefined, 'forgotten');
  assert.ok(locked(t, 'second') !== undefined);
  assert.ok(locked(t, 'third') !== undefined);
});
