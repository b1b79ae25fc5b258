import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { tpchRecordBatch, writeDecimal } from '../../src/tools/tpch/parquet-export.js';
import type { TpchBatch } from '../../src/tools/tpch/tpch-generator.js';

/** The 128-bit words by BigInt only (the previous implementation). */
function reference(text: string, scale: number): Uint32Array {
  const neg = text.startsWith('-');
  const [int = '0', frac = ''] = (neg ? text.slice(1) : text).split('.');
  let v = BigInt(int + frac.padEnd(scale, '0').slice(0, scale));
  if (neg) v = -v;
  const u = BigInt.asUintN(128, v);
  const out = new Uint32Array(4);
  for (let w = 0; w < 4; w++) out[w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
  return out;
}

test('writeDecimal equals the BigInt reference, across the 2^53 boundary and for negatives', () => {
  const digits = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
  const text = fc.tuple(fc.boolean(), digits(1, 20), digits(0, 4)).map(([neg, i, f]) => `${neg ? '-' : ''}${i}${f === '' ? '' : `.${f}`}`);
  const fixed = ['0.00', '-0.00', '-0.05', '9007199254740991', '9007199254740992', '90071992547409.91', '-90071992547409.92', '99999999999999.99', '-1'];
  for (const scale of [0, 2, 4]) {
    for (const t of fixed) {
      const w = new Uint32Array(8);
      writeDecimal(w, 1, t, scale);
      assert.deepEqual(w.subarray(4), reference(t, scale), `${t} @${scale}`);
    }
  }
  fc.assert(fc.property(text, fc.integer({ min: 0, max: 4 }), (t, scale) => {
    const w = new Uint32Array(4);
    writeDecimal(w, 0, t, scale);
    assert.deepEqual(w, reference(t, scale));
  }), { numRuns: 3000 });
});

test('tpchRecordBatch writes strings as UTF-8 and bpchar without its padding', () => {
  const batch: TpchBatch = {
    table: 'region', rowCount: 3,
    columns: [[0, 1, 2], ['AFRICA                   ', 'ÉTÉ   ', ''], ['plain comment', 'naïve – “quoted” ☃', '']],
  };
  const rb = tpchRecordBatch(batch);
  assert.deepEqual([...rb.getChild('r_name')!].map(String), ['AFRICA', 'ÉTÉ', '']);
  assert.deepEqual([...rb.getChild('r_comment')!].map(String), ['plain comment', 'naïve – “quoted” ☃', '']);
  assert.deepEqual([...rb.getChild('r_regionkey')!], [0, 1, 2]);
});
