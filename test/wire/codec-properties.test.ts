import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { codecForOid } from '../../src/wire/codecs/codec-for-oid.js';

const ctxs = ['UTC', 'America/New_York', 'Asia/Kolkata', '<+03>-03'].map((timeZone) => ({ timeZone }));

function roundTrips(oid: number, arb: fc.Arbitrary<unknown>, numRuns = 300): void {
  const c = codecForOid(oid);
  fc.assert(fc.property(arb, fc.constantFrom(...ctxs), (v, ctx) => {
    assert.deepEqual(c.decodeBinary(c.encodeBinary(v, ctx), ctx), v);
    assert.deepEqual(c.decodeText(c.encodeText(v, ctx), ctx), v);
  }), { numRuns });
}

const numericText = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 20 }))
  .map(([neg, digits, scale]) => {
    const s = digits.toString().padStart(scale + 1, '0');
    const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
    return neg && /[1-9]/.test(text) ? `-${text}` : text;
  });

test('text and binary forms read back to the same canonical value (property)', () => {
  roundTrips(16, fc.boolean());
  roundTrips(21, fc.integer({ min: -32768, max: 32767 }));
  roundTrips(23, fc.integer({ min: -2147483648, max: 2147483647 }));
  roundTrips(20, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
  roundTrips(701, fc.double({ noNaN: true }).filter((d) => !Object.is(d, -0)));
  roundTrips(700, fc.float({ noNaN: true }).filter((d) => !Object.is(d, -0)));
  roundTrips(1700, numericText);
  roundTrips(25, fc.string({ unit: 'grapheme' }));
  roundTrips(17, fc.uint8Array({ maxLength: 64 }));
  roundTrips(2950, fc.uuid());
  roundTrips(1082, fc.integer({ min: -2440000, max: 2900000 }));
  roundTrips(1083, fc.bigInt({ min: 0n, max: 86400000000n }));
  roundTrips(1114, fc.bigInt({ min: -210866803200000000n, max: 9224318015999999999n / 1000n }));
  roundTrips(1184, fc.bigInt({ min: -62135596800000000n, max: 253402300799999999n }));
  roundTrips(1186, fc.record({
    months: fc.integer({ min: -100000, max: 100000 }),
    days: fc.integer({ min: -100000, max: 100000 }),
    micros: fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
  }).map((iv) => ({ months: iv.months, days: iv.days, micros: iv.micros })));
  roundTrips(1009, fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null }), { maxLength: 8 }));
  roundTrips(1007, fc.array(fc.option(fc.integer({ min: -2147483648, max: 2147483647 }), { nil: null }), { maxLength: 8 }));
  roundTrips(1231, fc.array(numericText, { maxLength: 5 }));
});
