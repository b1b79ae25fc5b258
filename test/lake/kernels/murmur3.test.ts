import assert from 'node:assert/strict';
import { test } from 'node:test';
import { murmur3Long, murmur3Range, murmur3X86_32 } from '../../../src/lake/bucket/murmur3.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

test('murmur3 matches Iceberg Appendix B vectors (signed view)', () => {
  const long34 = new Uint8Array(8);
  new DataView(long34.buffer).setBigInt64(0, 34n, true);
  assert.equal(murmur3X86_32(long34), 2017239379);
  assert.equal(murmur3X86_32(utf8('iceberg')), 1210000089);
  assert.equal(murmur3X86_32(new Uint8Array([0, 1, 2, 3])) | 0, -188683207);
});

test('murmur3 matches reference MurmurHash3_x86_32 vectors (seeds, tails, unsigned math)', () => {
  assert.equal(murmur3X86_32(new Uint8Array(0), 0), 0);
  assert.equal(murmur3X86_32(new Uint8Array(0), 1), 0x514e28b7);
  assert.equal(murmur3X86_32(new Uint8Array(0), 0xffffffff), 0x81f16f39);
  assert.equal(murmur3X86_32(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0), 0x76293b50);
  assert.equal(murmur3X86_32(new Uint8Array([0x21, 0x43, 0x65, 0x87]), 0), 0xf55b516b);
  assert.equal(murmur3X86_32(new Uint8Array([0x21, 0x43, 0x65, 0x87]), 0x5082edee), 0x2362f9de);
  assert.equal(murmur3X86_32(utf8('a')), 0x3c2569b2);
  assert.equal(murmur3X86_32(utf8('ab')), 0x9bbfd75f);
  assert.equal(murmur3X86_32(utf8('hello')), 613153351);
  assert.equal(murmur3X86_32(utf8('hello'), 123), 1573043710);
  assert.equal(murmur3X86_32(utf8('helloworld')), 2687965642);
});

test('results are unsigned 32-bit', () => {
  for (let i = 0; i < 1000; i++) {
    const h = murmur3X86_32(utf8(`k${i}`));
    assert.ok(Number.isInteger(h) && h >= 0 && h <= 0xffffffff);
  }
});

test('murmur3Range and murmur3Long agree with the byte form', () => {
  const bytes = utf8('xxhelloyy');
  assert.equal(murmur3Range(bytes, 2, 7), murmur3X86_32(utf8('hello')));
  const buf = new Uint8Array(8);
  const view = new DataView(buf.buffer);
  for (const v of [0n, 1n, -1n, 34n, -2147483648n, 9007199254740993n, -(2n ** 63n), 2n ** 63n - 1n]) {
    view.setBigInt64(0, v, true);
    assert.equal(murmur3Long(view.getInt32(0, true), view.getInt32(4, true)), murmur3X86_32(buf), String(v));
  }
});
