import { FloeError } from '../../common/floe-error.js';
import type { CodecContext } from './codec-context.js';
import type { TypeCodec } from './type-codec.js';

/**
 * Arrays of any dimension count (a multi-dimensional one is nested JS arrays, lower
 * bounds 1). Text: {a,b,NULL} / {{1,2},{3,4}} with PostgreSQL's quoting rules;
 * binary: ndim, has-null flag, element OID, then (size, lower bound) per
 * dimension and length-prefixed elements in row-major order.
 */
function needsQuotes(s: string): boolean {
  if (s === '' || s.toUpperCase() === 'NULL') return true;
  return /[{}",\\\s]/.test(s);
}

function quote(s: string): string {
  return needsQuotes(s) ? `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"` : s;
}

function asArray(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  throw new FloeError('XX000', `cannot encode ${typeof v} as an array`);
}

function syntax(text: string, detail: string): FloeError {
  return new FloeError('22P02', `malformed array literal: "${text}"`, { detail });
}

/** Element strings of an array's text, nested as its sub-arrays are (null for an unquoted NULL). */
export type ArrayTextItems = (string | null | ArrayTextItems)[];

/** The index just past the '}' closing the sub-array that opens at `start`, skipping quoted text. */
function subArrayEnd(s: string, start: number, text: string): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') i++;
    else if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  throw syntax(text, 'Unexpected end of input.');
}

/** Splits '{…}' into element strings (null for an unquoted NULL); sub-arrays nest. */
export function parseArrayText(text: string): ArrayTextItems {
  let s = text.trim();
  if (s.startsWith('[')) {
    const eq = s.indexOf('=');
    if (eq < 0) throw syntax(text, 'Missing "=" after array dimensions.');
    s = s.slice(eq + 1).trim();
  }
  if (!s.startsWith('{') || !s.endsWith('}')) throw syntax(text, 'Array value must start with "{" or dimension information.');
  const out: ArrayTextItems = [];
  const inner = s.slice(1, -1);
  if (inner.trim() === '') return out;
  let i = 0;
  for (;;) {
    while (i < inner.length && /\s/.test(inner[i]!)) i++;
    if (inner[i] === '{') {
      const end = subArrayEnd(inner, i, text);
      const sub = parseArrayText(inner.slice(i, end));
      if (sub.length === 0) throw syntax(text, 'Unexpected "}" character.');
      out.push(sub);
      i = end;
      while (i < inner.length && /\s/.test(inner[i]!)) i++;
      if (i >= inner.length) break;
      if (inner[i] !== ',') throw syntax(text, 'Unexpected array element.');
      i++;
      continue;
    }
    let value = '';
    let quoted = false;
    let sawAny = false;
    if (inner[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= inner.length) throw syntax(text, 'Unexpected end of input.');
        const c = inner[i]!;
        if (c === '\\') {
          if (i + 1 >= inner.length) throw syntax(text, 'Unexpected end of input.');
          value += inner[i + 1];
          i += 2;
        } else if (c === '"') {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
      while (i < inner.length && /\s/.test(inner[i]!)) i++;
    } else {
      let trailingSpace = '';
      while (i < inner.length && inner[i] !== ',') {
        const c = inner[i]!;
        if (c === '"' || c === '{' || c === '}') throw syntax(text, 'Unexpected array element.');
        if (c === '\\') {
          if (i + 1 >= inner.length) throw syntax(text, 'Unexpected end of input.');
          value += trailingSpace + inner[i + 1];
          trailingSpace = '';
          i += 2;
          sawAny = true;
          continue;
        }
        if (/\s/.test(c)) trailingSpace += c;
        else {
          value += trailingSpace + c;
          trailingSpace = '';
          sawAny = true;
        }
        i++;
      }
      if (!sawAny) throw syntax(text, 'Unexpected "," character.');
    }
    out.push(!quoted && value.toUpperCase() === 'NULL' ? null : value);
    if (i >= inner.length) break;
    if (inner[i] !== ',') throw syntax(text, 'Unexpected array element.');
    i++;
  }
  return out;
}

export function arrayCodec(oid: number, element: TypeCodec): TypeCodec {
  return {
    oid,
    name: `${element.name}[]`,
    encodeText: (v, ctx: CodecContext) => {
      // A multi-dimensional array is nested JS arrays: nested braces.
      const text = (items: readonly unknown[]): string =>
        `{${items.map((e) => (e === null || e === undefined ? 'NULL' : Array.isArray(e) ? text(e) : quote(element.encodeText(e, ctx)))).join(',')}}`;
      return text(asArray(v));
    },
    encodeBinary: (v, ctx: CodecContext) => {
      const dims: number[] = [];
      for (let x: unknown = asArray(v); Array.isArray(x) && x.length > 0; x = x[0]) dims.push(x.length);
      const items = dims.length > 1 ? (asArray(v).flat(dims.length - 1) as unknown[]) : asArray(v);
      const encoded = items.map((e) => (e === null || e === undefined ? null : element.encodeBinary(e, ctx)));
      const size = 12 + dims.length * 8 + encoded.reduce((n, b) => n + 4 + (b?.length ?? 0), 0);
      const out = Buffer.alloc(size);
      let pos = out.writeInt32BE(dims.length, 0);
      pos = out.writeInt32BE(encoded.includes(null) ? 1 : 0, pos);
      pos = out.writeUInt32BE(element.oid, pos);
      if (items.length === 0) return out;
      for (const d of dims) {
        pos = out.writeInt32BE(d, pos);
        pos = out.writeInt32BE(1, pos);
      }
      for (const b of encoded) {
        if (b === null) pos = out.writeInt32BE(-1, pos);
        else {
          pos = out.writeInt32BE(b.length, pos);
          pos += b.copy(out, pos);
        }
      }
      return out;
    },
    decodeText: (t, ctx: CodecContext) => {
      const decode = (items: ArrayTextItems): unknown[] => items.map((e) => (e === null ? null : Array.isArray(e) ? decode(e) : element.decodeText(e, ctx)));
      const value = decode(parseArrayText(t));
      if (!isRectangular(value)) throw syntax(t, 'Multidimensional arrays must have sub-arrays with matching dimensions.');
      return value;
    },
    decodeBinary: (b, ctx: CodecContext) => {
      const bad = (): FloeError => new FloeError('22P03', 'incorrect binary data format for array');
      if (b.length < 12) throw bad();
      const ndim = b.readInt32BE(0);
      const elemOid = b.readUInt32BE(8);
      if (elemOid !== element.oid) {
        throw new FloeError('42804', `binary data has array element type ${elemOid} instead of expected ${element.oid}`);
      }
      if (ndim === 0) return [];
      if (ndim < 0 || ndim > 6 || b.length < 12 + ndim * 8) throw bad();
      const dims: number[] = [];
      for (let d = 0; d < ndim; d++) {
        const size = b.readInt32BE(12 + d * 8);
        if (size < 0) throw bad();
        if (b.readInt32BE(16 + d * 8) !== 1) throw new FloeError('0A000', 'array lower bounds other than 1 are not supported');
        dims.push(size);
      }
      const n = dims.reduce((a, c) => a * c, 1);
      if (n === 0) return [];
      let pos = 12 + ndim * 8;
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) {
        if (pos + 4 > b.length) throw bad();
        const len = b.readInt32BE(pos);
        pos += 4;
        if (len === -1) {
          out.push(null);
          continue;
        }
        if (len < 0 || pos + len > b.length) throw bad();
        out.push(element.decodeBinary(b.subarray(pos, pos + len), ctx));
        pos += len;
      }
      if (pos !== b.length) throw bad();
      return ndim === 1 ? out : nest(dims, out);
    },
  };
}

/** Every sub-array at each level has the shape of the first, as PostgreSQL requires. */
function isRectangular(v: readonly unknown[]): boolean {
  const shape = (x: unknown): string => (Array.isArray(x) ? `[${x.length}${x.length > 0 ? shape(x[0]) : ''}]` : '');
  const first = shape(v[0]);
  return v.every((e) => shape(e) === first && (!Array.isArray(e) || isRectangular(e)));
}

/** Row-major `items` laid out as nested arrays of the given dimension lengths. */
function nest(dims: readonly number[], items: readonly unknown[]): unknown[] {
  if (dims.length === 1) return items.slice();
  const stride = items.length / dims[0]!;
  return Array.from({ length: dims[0]! }, (_, i) => nest(dims.slice(1), items.slice(i * stride, (i + 1) * stride)));
}
