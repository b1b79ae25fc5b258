import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { likeMatcher } from '../../src/exec/expr/like-matcher.js';
import { FloeError } from '../../src/common/floe-error.js';

/** The general path: the whole pattern as one anchored regex over code points. */
function reference(pattern: string, escape: string, ci: boolean): (s: string) => boolean {
  let re = '^';
  const chars = [...pattern];
  const quote = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (escape !== '' && ch === escape) { re += quote(chars[++i]!); continue; }
    re += ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : quote(ch);
  }
  const rx = new RegExp(re + '$', ci ? 'iu' : 'u');
  return (s) => rx.test(s);
}

const ALPHABET = ['a', 'b', 'A', 'é', 'É', '😀', '%', '_', '\\', '#', '.', '*'];
const text = (maxLength: number) => fc.array(fc.constantFrom(...ALPHABET), { maxLength }).map((a) => a.join(''));

test('LIKE matcher equals the anchored regex for %/_ patterns, escapes, non-ASCII and ILIKE (property)', () => {
  fc.assert(fc.property(text(8), fc.array(text(12), { minLength: 1, maxLength: 8 }), fc.constantFrom('\\', '#', '', '%'), fc.boolean(), (pattern, values, escape, ci) => {
    const chars = [...pattern];
    // A pattern ending in a lone escape is an error in both; tested below.
    let dangling = false;
    for (let i = 0; i < chars.length; i++) if (escape !== '' && chars[i] === escape) { if (i + 1 >= chars.length) dangling = true; i++; }
    if (dangling) return;
    const want = reference(pattern, escape, ci);
    const got = likeMatcher(pattern, escape, ci);
    for (const v of values) assert.equal(got(v), want(v), `${JSON.stringify(v)} LIKE ${JSON.stringify(pattern)} ESCAPE ${JSON.stringify(escape)} ci=${ci}`);
  }), { numRuns: 3000 });
});

test('LIKE substring shapes: prefix, suffix, %a%b%, overlapping pieces, empty pattern and empty value', () => {
  const cases: [string, string, boolean][] = [
    ['%special%requests%', 'xx special yy requests zz', true],
    ['%special%requests%', 'requests then special', false],
    ['%special%requests%', 'specialrequests', true],
    ['%green%', 'forest green lace', true],
    ['%green%', 'gree n', false],
    ['ab%ba', 'aba', false],
    ['ab%ba', 'abba', true],
    ['a%a%a', 'aa', false],
    ['a%a%a', 'aaa', true],
    ['', '', true],
    ['', 'x', false],
    ['%', '', true],
    ['%%', 'anything', true],
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['\\%%', '%x', true],
    ['\\%%', 'x%', false],
    ['%é😀%', 'aé😀b', true],
    ['_😀', 'é😀', true],
  ];
  for (const [p, s, want] of cases) {
    assert.equal(likeMatcher(p, '\\', false)(s), want, `${s} LIKE ${p}`);
    assert.equal(reference(p, '\\', false)(s), want, `reference: ${s} LIKE ${p}`);
  }
  // Switching patterns between calls must not reuse the previous matcher.
  assert.equal(likeMatcher('a%', '\\', false)('abc'), true);
  assert.equal(likeMatcher('b%', '\\', false)('abc'), false);
  assert.equal(likeMatcher('b%', '', false)('b\\'), true);
  assert.equal(likeMatcher('A%', '\\', true)('abc'), true);
  assert.equal(likeMatcher('A%', '\\', false)('abc'), false);
});

test('LIKE errors keep their SQLSTATEs: dangling escape 22025, multi-character escape 22019', () => {
  assert.throws(() => likeMatcher('abc\\', '\\', false), (e: unknown) => e instanceof FloeError && e.sqlstate === '22025');
  assert.throws(() => likeMatcher('%abc#', '#', false), (e: unknown) => e instanceof FloeError && e.sqlstate === '22025');
  assert.throws(() => likeMatcher('abc', 'ab', false), (e: unknown) => e instanceof FloeError && e.sqlstate === '22019');
});

test('LIKE over UTF-8 bytes equals the string matcher for %-and-ASCII patterns, and declines every other pattern (property)', async () => {
  const { likeBytesMatcher } = await import('../../src/exec/expr/like-matcher.js');
  fc.assert(fc.property(text(8), fc.array(text(12), { minLength: 1, maxLength: 8 }), fc.constantFrom('\\', '#', ''), (pattern, values, escape) => {
    const bytesMatch = likeBytesMatcher(pattern, escape);
    const chars = [...pattern];
    let dangling = false;
    let special = false;
    for (let i = 0; i < chars.length; i++) {
      if (escape !== '' && chars[i] === escape) { if (i + 1 >= chars.length) dangling = true; else if (chars[i + 1]!.charCodeAt(0) >= 128) special = true; i++; continue; }
      if (chars[i] === '_' || chars[i]!.charCodeAt(0) >= 128) special = true;
    }
    if (dangling || special) { assert.equal(bytesMatch, undefined, `declines ${JSON.stringify(pattern)}`); return; }
    assert.ok(bytesMatch, `takes ${JSON.stringify(pattern)} ESCAPE ${JSON.stringify(escape)}`);
    const want = likeMatcher(pattern, escape, false);
    // Values sit inside a larger buffer, as they do in an Arrow Utf8 column.
    const enc = new TextEncoder();
    for (const v of values) {
      const body = enc.encode(v);
      const buf = new Uint8Array(body.length + 6).fill(0x61);
      buf.set(body, 3);
      assert.equal(bytesMatch(buf, 3, 3 + body.length), want(v), `${JSON.stringify(v)} LIKE ${JSON.stringify(pattern)} ESCAPE ${JSON.stringify(escape)}`);
    }
  }), { numRuns: 3000 });
});

test('rowsContaining finds the rows whose bytes hold a piece (not one running into the next row), and every value a pattern matches holds its required piece (property)', async () => {
  const { likeRequiredBytes } = await import('../../src/exec/expr/like-matcher.js');
  const { rowsContaining } = await import('../../src/exec/arrow/utf8-search.js');
  const { Utf8, vectorFromArray } = await import('apache-arrow');
  const small = fc.array(fc.constantFrom('a', 'b', 'ab', 'é', '%', 'x'), { maxLength: 6 }).map((p) => p.join(''));
  fc.assert(fc.property(fc.array(fc.option(small, { nil: null, freq: 6 }), { minLength: 1, maxLength: 60 }), small, fc.nat(5), (values, piece, cut) => {
    const all = vectorFromArray(values, new Utf8()).data[0]!;
    const from = Math.min(cut, values.length - 1);
    const data = all.slice(from, values.length - from);
    const needle = new TextEncoder().encode(piece);
    if (needle.length === 0) return;
    const got = rowsContaining(data, needle);
    const want = values.slice(from).map((v) => (v !== null && v.includes(piece) ? 1 : 0));
    assert.deepEqual([...got], want, `${JSON.stringify(values.slice(from))} ∋ ${JSON.stringify(piece)}`);
  }), { numRuns: 2000 });
  fc.assert(fc.property(text(8), fc.array(text(12), { minLength: 1, maxLength: 8 }), (pattern, values) => {
    const required = likeRequiredBytes(pattern, '\\');
    if (required === undefined) return;
    const piece = new TextDecoder().decode(required);
    const match = likeMatcher(pattern, '\\', false);
    for (const v of values) if (match(v)) assert.ok(v.includes(piece), `${JSON.stringify(v)} LIKE ${JSON.stringify(pattern)} holds ${JSON.stringify(piece)}`);
  }), { numRuns: 2000 });
  assert.deepEqual([...likeRequiredBytes('%special%requests%', '\\')!], [...new TextEncoder().encode('requests')]);
  assert.equal(likeRequiredBytes('%ab%', '\\'), undefined, 'too short to be worth a search');
});
