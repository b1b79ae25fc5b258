import { FloeError } from '../../common/floe-error.js';
import type { CodecContext } from './codec-context.js';
import type { TypeCodec } from './type-codec.js';

/**
 * One-dimensional arrays. Text: {a,b,NULL} with PostgreSQL's quoting rules;
 * binary: ndim, has-null flag, element OID, then (size, lower bound) per
 * dimension and length-prefixed elements.
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

/** Splits '{…}' into element strings (null for an unquoted NULL). */
export function parseArrayText(text: string): (string | null)[] {
  let s = text.trim();
  if (s.startsWith('[')) {
    const eq = s.indexOf('=');
    if (eq < 0) throw syntax(text, 'Missing "=" after array dimensions.');
    s = s.slice(eq + 1).trim();
  }
  if (!s.startsWith('{') || !s.endsWith('}')) throw syntax(text, 'Array value must start with "{" or dimension information.');
  const out: (string | null)[] = [];
  const inner = s.slice(1, -1);
  if (inner.trim() === '') return out;
  let i = 0;
  for (;;) {
    while (i < inner.length && /\s/.test(inner[i]!)) i++;
    if (inner[i] === '{') throw new FloeError('0A000', 'multidimensional arrays are not supported');
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
    decodeText: (t, ctx: CodecContext) => parseArrayText(t).map((e) => (e === null ? null : element.decodeText(e, ctx))),
    decodeBinary: (b, ctx: CodecContext) => {
      const bad = (): FloeError => new FloeError('22P03', 'incorrect binary data format for array');
      if (b.length < 12) throw bad();
      const ndim = b.readInt32BE(0);
      const elemOid = b.readUInt32BE(8);
      if (elemOid !== element.oid) {
        throw new FloeError('42804', `binary data has array element type ${elemOid} instead of expected ${element.oid}`);
      }
      if (ndim === 0) return [];
      if (ndim !== 1) throw new FloeError('0A000', 'multidimensional arrays are not supported');
      if (b.length < 20) throw bad();
      const n = b.readInt32BE(12);
      if (n < 0) throw bad();
      let pos = 20;
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
      return out;
    },
  };
}
