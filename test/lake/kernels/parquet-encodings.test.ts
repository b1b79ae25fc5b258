import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decompressLz4Block, LZ4_SLACK } from '../../../src/lake/format/lz4-block.js';
import { decodeHybrid } from '../../../src/lake/format/rle-hybrid.js';

/** A varint as Parquet's hybrid run headers spell it. */
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
  out.push(n);
  return out;
}

/** A bit-packed run of `values` (a multiple of 8 of them), least significant bit first, as the Parquet spec lays it out. */
function bitPacked(values: readonly number[], width: number): number[] {
  const bytes = new Array<number>((values.length * width) / 8).fill(0);
  values.forEach((v, i) => {
    for (let b = 0; b < width; b++) if (Math.floor(v / 2 ** b) % 2 === 1) bytes[(i * width + b) >> 3]! |= 1 << ((i * width + b) & 7);
  });
  return [...varint((values.length / 8) * 2 + 1), ...bytes];
}

function rleRun(value: number, count: number, width: number): number[] {
  const bytes = Array.from({ length: (width + 7) >> 3 }, (_, i) => Math.floor(value / 2 ** (8 * i)) % 256);
  return [...varint(count * 2), ...bytes];
}

test('hybrid runs decode at every bit width, mixing bit-packed and repeated runs', () => {
  let seed = 7;
  const next = (width: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return width === 0 ? 0 : Math.floor((seed / 2147483648) * 2 ** width); };
  for (let width = 0; width <= 32; width++) {
    const packed = Array.from({ length: 24 }, () => next(width));
    const repeated = next(width);
    const tail = Array.from({ length: 16 }, () => next(width));
    const buf = new Uint8Array([...bitPacked(packed, width), ...rleRun(repeated, 300, width), ...bitPacked(tail, width)]);
    // Asking for fewer values than the last run holds stops inside it.
    const want = [...packed, ...new Array<number>(300).fill(repeated), ...tail.slice(0, 11)];
    const out = new Int32Array(want.length + 2);
    assert.equal(decodeHybrid(buf, 0, buf.length, width, want.length, out, 2), want.length, `width ${width}`);
    assert.deepEqual([...out.subarray(2)].map((v) => v >>> 0), want, `width ${width}`);
    // Stopping inside the repeated run leaves the values past it untouched.
    const short = new Int32Array(packed.length + 101).fill(-7);
    assert.equal(decodeHybrid(buf, 0, buf.length, width, packed.length + 100, short), packed.length + 100, `width ${width}, short`);
    assert.equal(short[packed.length + 99]! >>> 0, repeated);
    assert.equal(short[packed.length + 100], -7);
  }
});

/** An LZ4 sequence: token, literal length and match length extensions, literals, offset. */
function sequence(literals: string, offset?: number, matchLength?: number): number[] {
  const lit = [...Buffer.from(literals, 'latin1')];
  const extend = (n: number): number[] => { const out: number[] = []; n -= 15; while (n >= 255) { out.push(255); n -= 255; } out.push(n); return out; };
  const litNibble = Math.min(lit.length, 15);
  if (offset === undefined) return [litNibble << 4, ...(lit.length >= 15 ? extend(lit.length) : []), ...lit];
  const m = matchLength! - 4;
  return [(litNibble << 4) | Math.min(m, 15), ...(lit.length >= 15 ? extend(lit.length) : []), ...lit, offset & 255, offset >> 8, ...(m >= 15 ? extend(m) : [])];
}

function decompress(block: number[], size: number): string {
  const src = new Uint8Array(block);
  const out = new Uint8Array(size + LZ4_SLACK);
  const n = decompressLz4Block(src, 0, src.length, out, size);
  return Buffer.from(out.subarray(0, n)).toString('latin1');
}

test('LZ4 blocks: overlapping matches 1 to 9 back, long literals and matches, and a final literal run', () => {
  const repeat = (s: string, n: number): string => s.repeat(Math.ceil(n / s.length)).slice(0, n);
  for (let back = 1; back <= 9; back++) {
    const head = 'abcdefghi'.slice(0, back);
    for (const length of [4, 5, 8, 9, 19, 40]) {
      const want = repeat(head, back + length) + 'END';
      assert.equal(decompress([...sequence(head, back, length), ...sequence('END')], want.length), want, `${back} back, ${length} long`);
    }
  }
  const long = Array.from({ length: 300 }, (_, i) => String.fromCharCode(33 + (i % 90))).join('');
  const want = long + long + long.slice(0, 290) + 'xyz';
  assert.equal(decompress([...sequence(long, 300, 590), ...sequence('xyz')], want.length), want);
  assert.equal(decompress(sequence(''), 0), '');
});

test('LZ4 blocks that point outside their output or overrun it are refused', () => {
  assert.throws(() => decompress([...sequence('ab', 3, 4)], 6), /outside its output/);
  assert.throws(() => decompress([...sequence('ab', 0, 4)], 6), /outside its output/);
  assert.throws(() => decompress([...sequence('abcd', 4, 10)], 8), /outside its output/);
  assert.throws(() => decompress([...sequence('abcdef')], 3), /overruns/);
  assert.throws(() => decompressLz4Block(new Uint8Array(sequence('abc')), 0, 4, new Uint8Array(3), 3), /slack/);
});
