import { FloeError } from '../../common/floe-error.js';
import { decodeUtf8Strict } from '../../common/utf8.js';
import { formatFloat4, formatFloat8 } from './float-text.js';
import type { TypeCodec } from './type-codec.js';
import { regNameText } from './reg-name-text.js';

/** Codecs of the types whose forms need no calendar or decimal arithmetic. */
function syntax(type: string, text: string): FloeError {
  return new FloeError('22P02', `invalid input syntax for type ${type}: "${text}"`);
}

function binaryLength(b: Buffer, n: number, type: string): void {
  if (b.length !== n) throw new FloeError('22P03', `incorrect binary data format for type ${type}`);
}

function utf8(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}

function asBoolean(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return parseBool(v);
  return Boolean(v);
}

export function parseBool(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (t.length > 0) {
    if ('true'.startsWith(t) || 'yes'.startsWith(t) || t === 'on' || t === '1') return true;
    if ('false'.startsWith(t) || t === 'no' || t === 'n' || t === 'off' || t === 'of' || t === '0') return false;
  }
  throw syntax('boolean', text);
}

export const boolCodec: TypeCodec = {
  oid: 16,
  name: 'boolean',
  encodeText: (v) => (asBoolean(v) ? 't' : 'f'),
  encodeBinary: (v) => Buffer.from([asBoolean(v) ? 1 : 0]),
  decodeText: (t) => parseBool(t),
  decodeBinary: (b) => {
    binaryLength(b, 1, 'boolean');
    return b[0] !== 0;
  },
};

function integerCodec(oid: number, name: string, bytes: 2 | 4, min: number, max: number): TypeCodec {
  const check = (n: number, text: string): number => {
    if (n < min || n > max) throw new FloeError('22003', `value "${text}" is out of range for type ${name}`);
    return n;
  };
  const toNumber = (v: unknown): number => {
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isInteger(n)) throw new FloeError('XX000', `cannot encode ${String(v)} as ${name}`);
    return n;
  };
  return {
    oid,
    name,
    encodeText: (v) => String(toNumber(v)),
    encodeBinary: (v) => {
      const b = Buffer.alloc(bytes);
      if (bytes === 2) b.writeInt16BE(toNumber(v));
      else b.writeInt32BE(toNumber(v));
      return b;
    },
    decodeText: (t) => {
      const s = t.trim();
      if (!/^[+-]?\d+$/.test(s)) throw syntax(name, t);
      return check(Number(s), t);
    },
    decodeBinary: (b) => {
      binaryLength(b, bytes, name);
      return bytes === 2 ? b.readInt16BE(0) : b.readInt32BE(0);
    },
  };
}

export const int2Codec = integerCodec(21, 'smallint', 2, -32768, 32767);
export const int4Codec = integerCodec(23, 'integer', 4, -2147483648, 2147483647);

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) return BigInt(v.trim());
  throw new FloeError('XX000', `cannot encode ${String(v)} as bigint`);
}

export const int8Codec: TypeCodec = {
  oid: 20,
  name: 'bigint',
  encodeText: (v) => toBigInt(v).toString(),
  encodeBinary: (v) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(toBigInt(v));
    return b;
  },
  decodeText: (t) => {
    const s = t.trim();
    if (!/^[+-]?\d+$/.test(s)) throw syntax('bigint', t);
    const n = BigInt(s);
    if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new FloeError('22003', `value "${t}" is out of range for type bigint`);
    return n;
  },
  decodeBinary: (b) => {
    binaryLength(b, 8, 'bigint');
    return b.readBigInt64BE(0);
  },
};

function parseFloatText(text: string, name: string, single: boolean): number {
  const t = text.trim().toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'infinity' || t === '+infinity' || t === 'inf' || t === '+inf') return Infinity;
  if (t === '-infinity' || t === '-inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw syntax(name, text);
  const n = Number(t);
  const r = single ? Math.fround(n) : n;
  if (!Number.isFinite(r)) throw new FloeError('22003', `"${text}" is out of range for type ${name}`);
  return r;
}

export const float4Codec: TypeCodec = {
  oid: 700,
  name: 'real',
  encodeText: (v) => formatFloat4(Number(v)),
  encodeBinary: (v) => {
    const b = Buffer.alloc(4);
    b.writeFloatBE(Number(v));
    return b;
  },
  decodeText: (t) => parseFloatText(t, 'real', true),
  decodeBinary: (b) => {
    binaryLength(b, 4, 'real');
    return b.readFloatBE(0);
  },
};

export const float8Codec: TypeCodec = {
  oid: 701,
  name: 'double precision',
  encodeText: (v) => formatFloat8(Number(v)),
  encodeBinary: (v) => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(Number(v));
    return b;
  },
  decodeText: (t) => parseFloatText(t, 'double precision', false),
  decodeBinary: (b) => {
    binaryLength(b, 8, 'double precision');
    return b.readDoubleBE(0);
  },
};

/** text, varchar, bpchar, name, unknown: the UTF-8 bytes in both forms. */
export function stringCodec(oid: number, name: string): TypeCodec {
  return {
    oid,
    name,
    encodeText: (v) => asString(v),
    encodeBinary: (v) => utf8(asString(v)),
    decodeText: (t) => t,
    decodeBinary: (b) => decodeUtf8Strict(b),
  };
}

/** "char": a single byte. */
export const charCodec: TypeCodec = {
  oid: 18,
  name: '"char"',
  encodeText: (v) => asString(v),
  encodeBinary: (v) => utf8(asString(v)).subarray(0, 1),
  decodeText: (t) => t,
  decodeBinary: (b) => b.toString('latin1'),
};

export function formatByteaHex(b: Uint8Array): string {
  return `\\x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
}

export function parseBytea(text: string): Uint8Array {
  if (text.startsWith('\\x') || text.startsWith('\\X')) {
    const hex = text.slice(2).replace(/\s+/g, '');
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw syntax('bytea', text);
    return new Uint8Array(Buffer.from(hex, 'hex'));
  }
  // PostgreSQL's escape format: \\ for a backslash, \ooo for an octal byte, everything else literal.
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c) {
      if (c > 0x7f) out.push(...Buffer.from(text[i]!, 'utf8'));
      else out.push(c);
      continue;
    }
    if (text[i + 1] === '\\') {
      out.push(0x5c);
      i++;
    } else if (/^[0-3][0-7]{2}$/.test(text.slice(i + 1, i + 4))) {
      out.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      throw syntax('bytea', text);
    }
  }
  return new Uint8Array(out);
}

function asBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return utf8(v);
  throw new FloeError('XX000', `cannot encode ${typeof v} as bytea`);
}

export const byteaCodec: TypeCodec = {
  oid: 17,
  name: 'bytea',
  encodeText: (v) => formatByteaHex(asBytes(v)),
  encodeBinary: (v) => {
    const b = asBytes(v);
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  },
  decodeText: (t) => parseBytea(t),
  decodeBinary: (b) => new Uint8Array(b),
};

export function parseUuid(text: string): string {
  let t = text.trim();
  if (t.startsWith('{') && t.endsWith('}')) t = t.slice(1, -1);
  // PostgreSQL allows a hyphen after any group of four hex digits.
  const hex = /^[0-9a-fA-F]{4}(-?[0-9a-fA-F]{4}){7}$/.test(t) ? t.replace(/-/g, '') : '';
  if (hex.length !== 32) throw syntax('uuid', text);
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const uuidCodec: TypeCodec = {
  oid: 2950,
  name: 'uuid',
  encodeText: (v) => parseUuid(asString(v)),
  encodeBinary: (v) => Buffer.from(parseUuid(asString(v)).replace(/-/g, ''), 'hex'),
  decodeText: (t) => parseUuid(t),
  decodeBinary: (b) => {
    binaryLength(b, 16, 'uuid');
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  },
};

function checkJson(text: string, name: string): string {
  try {
    JSON.parse(text);
  } catch {
    throw syntax(name, text);
  }
  return text;
}

export const jsonCodec: TypeCodec = {
  oid: 114,
  name: 'json',
  encodeText: (v) => asString(v),
  encodeBinary: (v) => utf8(asString(v)),
  decodeText: (t) => checkJson(t, 'json'),
  decodeBinary: (b) => checkJson(decodeUtf8Strict(b), 'json'),
};

/** jsonb's binary form is a version byte (1) followed by the JSON text. */
export const jsonbCodec: TypeCodec = {
  oid: 3802,
  name: 'jsonb',
  encodeText: (v) => asString(v),
  encodeBinary: (v) => Buffer.concat([Buffer.from([1]), utf8(asString(v))]),
  decodeText: (t) => checkJson(t, 'json'),
  decodeBinary: (b) => {
    if (b.length < 1 || b[0] !== 1) throw new FloeError('22P03', 'unsupported jsonb version number');
    return checkJson(decodeUtf8Strict(b.subarray(1)), 'json');
  },
};

/** oid and the reg* types travel as unsigned 32-bit numbers. */
export function oidCodec(oid: number, name: string): TypeCodec {
  return {
    oid,
    name,
    encodeText: name === 'oid' ? (v) => String(Number(v) >>> 0) : (v) => regNameText(oid, Number(v) >>> 0),
    encodeBinary: (v) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(Number(v) >>> 0);
      return b;
    },
    decodeText: (t) => {
      const s = t.trim();
      if (!/^[+-]?\d+$/.test(s)) throw syntax(name, t);
      const n = Number(s);
      if (n < -2147483648 || n > 4294967295) throw new FloeError('22003', `value "${t}" is out of range for type ${name}`);
      return n >>> 0;
    },
    decodeBinary: (b) => {
      binaryLength(b, 4, name);
      return b.readUInt32BE(0);
    },
  };
}
