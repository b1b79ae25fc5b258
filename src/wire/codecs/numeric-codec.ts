import { FloeError } from '../../common/floe-error.js';
import type { TypeCodec } from './type-codec.js';

const signPos = 0x0000;
const signNeg = 0x4000;
const signNaN = 0xc000;
const signPinf = 0xd000;
const signNinf = 0xf000;

function invalid(text: string): FloeError {
  return new FloeError('22P02', `invalid input syntax for type numeric: "${text}"`);
}

/**
 * numeric_in's accepted forms turned into the canonical text: no exponent, no
 * '+', no superfluous leading zeros, the written scale kept ('12.50' stays).
 */
export function normalizeNumericText(text: string): string {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (lower === 'nan') return 'NaN';
  if (lower === 'infinity' || lower === '+infinity' || lower === 'inf' || lower === '+inf') return 'Infinity';
  if (lower === '-infinity' || lower === '-inf') return '-Infinity';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw invalid(text);
  const negative = m[1] === '-';
  let intDigits = m[2]!;
  let fracDigits = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000000) throw invalid(text);
  if (exp > 0) {
    const moved = fracDigits.slice(0, exp).padEnd(exp, '0');
    intDigits += moved;
    fracDigits = fracDigits.slice(exp);
  } else if (exp < 0) {
    const n = -exp;
    const padded = intDigits.padStart(n, '0');
    fracDigits = padded.slice(padded.length - n) + fracDigits;
    intDigits = padded.slice(0, padded.length - n);
  }
  intDigits = intDigits.replace(/^0+/, '') || '0';
  const zero = /^0*$/.test(intDigits + fracDigits);
  const body = fracDigits === '' ? intDigits : `${intDigits}.${fracDigits}`;
  return negative && !zero ? `-${body}` : body;
}

function canonical(value: unknown): string {
  if (typeof value === 'string') return normalizeNumericText(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return normalizeNumericText(String(value));
  }
  throw new FloeError('XX000', `cannot encode ${typeof value} as numeric`);
}

/** PostgreSQL's numeric_send: ndigits, weight, sign, dscale, then base-10000 digits. */
export function encodeNumericBinary(text: string): Buffer {
  const header = (nd: number, weight: number, sign: number, dscale: number): Buffer => {
    const b = Buffer.alloc(8 + nd * 2);
    b.writeInt16BE(nd, 0);
    b.writeInt16BE(weight, 2);
    b.writeUInt16BE(sign, 4);
    b.writeInt16BE(dscale, 6);
    return b;
  };
  if (text === 'NaN') return header(0, 0, signNaN, 0);
  // PostgreSQL reports dscale 32 for infinities: its short-header bits read back as a scale.
  if (text === 'Infinity') return header(0, 0, signPinf, 32);
  if (text === '-Infinity') return header(0, 0, signNinf, 32);
  const negative = text.startsWith('-');
  const [intPart, fracPart = ''] = (negative ? text.slice(1) : text).split('.') as [string, string?];
  const dscale = fracPart.length;
  const intPadded = intPart.padStart(Math.ceil(intPart.length / 4) * 4, '0');
  const fracPadded = fracPart.padEnd(Math.ceil(fracPart.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  const intGroups = groups.length;
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intGroups - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start++;
    weight--;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end--;
  const digits = groups.slice(start, end);
  if (digits.length === 0) return header(0, 0, signPos, dscale);
  const b = header(digits.length, weight, negative ? signNeg : signPos, dscale);
  digits.forEach((d, i) => b.writeInt16BE(d, 8 + i * 2));
  return b;
}

function badBinary(): FloeError {
  return new FloeError('22P03', 'invalid external "numeric" value');
}

export function decodeNumericBinary(b: Buffer): string {
  if (b.length < 8) throw badBinary();
  const nd = b.readInt16BE(0);
  const weight = b.readInt16BE(2);
  const sign = b.readUInt16BE(4);
  const dscale = b.readInt16BE(6);
  if (nd < 0 || b.length !== 8 + nd * 2 || dscale < 0) throw badBinary();
  if (sign === signNaN) return 'NaN';
  if (sign === signPinf) return 'Infinity';
  if (sign === signNinf) return '-Infinity';
  if (sign !== signPos && sign !== signNeg) throw new FloeError('22P03', 'invalid sign in external "numeric" value');
  const digits: number[] = [];
  for (let i = 0; i < nd; i++) {
    const d = b.readInt16BE(8 + i * 2);
    if (d < 0 || d > 9999) throw new FloeError('22P03', 'invalid digit in external "numeric" value');
    digits.push(d);
  }
  const digitAt = (pos: number): number => digits[pos] ?? 0; // pos: index in digits; weight - pos = group exponent
  let intText = '';
  for (let g = weight; g >= 0; g--) {
    const d = digitAt(weight - g);
    intText += intText === '' ? String(d) : String(d).padStart(4, '0');
  }
  if (intText === '' ) intText = '0';
  intText = intText.replace(/^0+(?=\d)/, '');
  let frac = '';
  for (let g = -1; frac.length < dscale; g--) {
    const idx = weight - g;
    frac += idx < 0 ? '0000' : String(digitAt(idx)).padStart(4, '0');
  }
  frac = frac.slice(0, dscale);
  const text = dscale > 0 ? `${intText}.${frac}` : intText;
  const zero = /^[0.]*$/.test(text);
  return sign === signNeg && !zero ? `-${text}` : text;
}

export const numericCodec: TypeCodec = {
  oid: 1700,
  name: 'numeric',
  encodeText: (v) => canonical(v),
  encodeBinary: (v) => encodeNumericBinary(canonical(v)),
  decodeText: (t) => normalizeNumericText(t),
  decodeBinary: (b) => decodeNumericBinary(b),
};
