import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeUtf8Strict, findInvalidUtf8, verifyUtf8 } from '../../src/common/utf8.js';

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' '));

describe('UTF-8 verification as PostgreSQL does it (src/common/utf8.ts)', () => {
  it('accepts valid text, including 4-byte characters and the largest code point', () => {
    for (const s of ['', 'plain ascii', 'é', '日本語', '😀', '\u{10FFFF}', '\uFFFD']) {
      assert.equal(decodeUtf8Strict(Buffer.from(s, 'utf8')), s);
    }
  });

  it('reports the first bad sequence with the bytes PostgreSQL names', () => {
    const cases: [number[], number, string][] = [
      [[0xff], 0, 'ff'],
      [[0x61, 0xc3, 0x28], 1, 'c3 28'], // a lead byte followed by a non-continuation
      [[0x61, 0xc3], 1, 'c3'], // truncated at the end: only the bytes that are there
      [[0xe2, 0x82], 0, 'e2 82'],
      [[0xed, 0xa0, 0x80], 0, 'ed a0 80'], // a UTF-16 surrogate
      [[0xc0, 0xaf], 0, 'c0 af'], // overlong
      [[0xe0, 0x80, 0xaf], 0, 'e0 80 af'], // overlong
      [[0xf4, 0x90, 0x80, 0x80], 0, 'f4 90 80 80'], // past U+10FFFF
      [[0xf8, 0x88, 0x80, 0x80, 0x80], 0, 'f8'], // 5-byte forms lead nothing
      [[0x80], 0, '80'], // a stray continuation byte
      [[0x61, 0x00, 0x62], 1, '00'], // NUL is not text in PostgreSQL
    ];
    for (const [bytes, offset, seq] of cases) {
      const bad = findInvalidUtf8(new Uint8Array(bytes));
      assert.equal(bad?.offset, offset, hex(new Uint8Array(bytes)));
      assert.equal(hex(bad?.sequence), seq, hex(new Uint8Array(bytes)));
    }
  });

  it('throws 22021 with the message PostgreSQL uses', () => {
    assert.throws(() => verifyUtf8(new Uint8Array([0x61, 0xc3, 0x28])), (e: unknown) => {
      const x = e as { sqlstate: string; message: string };
      return x.sqlstate === '22021' && x.message === 'invalid byte sequence for encoding "UTF8": 0xc3 0x28';
    });
  });

  it('agrees with the WHATWG decoder on which byte strings are valid (NUL aside)', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let i = 0; i < 20000; i++) {
      const bytes = new Uint8Array(1 + (next() % 6)).map(() => {
        const r = next() % 4;
        return r === 0 ? 0x41 : r === 1 ? 0x80 + (next() % 64) : 0xc0 + (next() % 64);
      });
      let whatwg = true;
      try { fatal.decode(bytes); } catch { whatwg = false; }
      assert.equal(findInvalidUtf8(bytes) === undefined, whatwg, hex(bytes));
    }
  });
});
