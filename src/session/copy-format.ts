import { FloeError } from '../common/floe-error.js';
import type { CopyOptions } from '../sql/index.js';
import type { SqlType } from '../common/sql-type.js';
import { castValue, formatValue, type TextIoSettings } from '../exec/index.js';
import type { RowBatch } from '../common/session-handler.js';
import { decodeUtf8Strict } from '../common/utf8.js';

const BAD_COPY_FILE_FORMAT = '22P04';

/**
 * COPY's text and CSV formats, with PostgreSQL's escaping rules. Fields are
 * already the text forms of values (or null); this file only frames them.
 */
export function formatCopyRow(fields: readonly (string | null)[], o: CopyOptions): string {
  if (o.format === 'csv') {
    return `${fields.map((f, i) => csvField(f, o, i)).join(o.delimiter)}\n`;
  }
  return `${fields.map((f) => (f === null ? o.null : escapeText(f, o.delimiter))).join(o.delimiter)}\n`;
}

function csvField(f: string | null, o: CopyOptions, _i: number): string {
  if (f === null) return o.null;
  const needs = o.forceQuote === 'all' || f === o.null || f.includes(o.delimiter) || f.includes(o.quote) || f.includes('\n') || f.includes('\r')
    || f === '\\.';
  if (!needs) return f;
  const esc = o.escape === o.quote ? f.replaceAll(o.quote, o.quote + o.quote) : f.replaceAll(o.escape, o.escape + o.escape).replaceAll(o.quote, o.escape + o.quote);
  return `${o.quote}${esc}${o.quote}`;
}

function escapeText(s: string, delimiter: string): string {
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t' && delimiter === '\t') out += '\\t';
    else if (ch === delimiter) out += `\\${ch}`;
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else out += ch;
  }
  return out;
}

/**
 * Splits COPY FROM input bytes into rows of fields, as PostgreSQL does: on bytes, so a
 * `\xNN` or octal escape contributes one byte, and each field must then be valid UTF-8
 * (22021 otherwise). Latin-1 maps bytes to characters one to one, which lets the
 * character parsers below work on bytes; delimiters are ASCII and never occur inside
 * a multi-byte UTF-8 sequence.
 */
export function parseCopyBytes(input: Uint8Array, o: CopyOptions): (string | null)[][] {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const asBytes = (t: string) => Buffer.from(t, 'utf8').toString('latin1');
  const rows = parseCopyText(bytes.toString('latin1'), {
    ...o, delimiter: asBytes(o.delimiter), null: asBytes(o.null), quote: asBytes(o.quote), escape: asBytes(o.escape),
  });
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const f = row[i];
      if (f !== null && f !== undefined && NOT_PLAIN_ASCII.test(f)) row[i] = decodeUtf8Strict(Buffer.from(f, 'latin1'));
    }
  }
  return rows;
}

const NOT_PLAIN_ASCII = /[^\x01-\x7f]/;

/** Splits COPY FROM input into rows of fields (null for NULL). Stops at the `\.` end marker. */
export function parseCopyText(input: string, o: CopyOptions): (string | null)[][] {
  return o.format === 'csv' ? parseCsv(input, o) : parseText(input, o);
}

function parseText(input: string, o: CopyOptions): (string | null)[][] {
  const rows: (string | null)[][] = [];
  const lines = input.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (o.header) lines.shift();
  for (let line of lines) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '\\.') break;
    const fields: (string | null)[] = [];
    let raw = '';
    let cur = '';
    const flush = () => {
      fields.push(raw === o.null ? null : cur);
      raw = '';
      cur = '';
    };
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (ch === o.delimiter) { flush(); continue; }
      if (ch !== '\\' || i + 1 >= line.length) { raw += ch; cur += ch; continue; }
      const n = line[++i]!;
      raw += `\\${n}`;
      switch (n) {
        case 'n': cur += '\n'; break;
        case 'r': cur += '\r'; break;
        case 't': cur += '\t'; break;
        case 'b': cur += '\b'; break;
        case 'f': cur += '\f'; break;
        case 'v': cur += '\v'; break;
        case 'x': {
          const m = /^[0-9a-fA-F]{1,2}/.exec(line.slice(i + 1));
          if (m) { cur += String.fromCharCode(parseInt(m[0], 16)); raw += m[0]; i += m[0].length; } else cur += 'x';
          break;
        }
        default:
          if (n >= '0' && n <= '7') {
            const m = /^[0-7]{1,3}/.exec(line.slice(i))!;
            cur += String.fromCharCode(parseInt(m[0], 8));
            raw += m[0].slice(1);
            i += m[0].length - 1;
          } else cur += n;
      }
    }
    flush();
    rows.push(fields);
  }
  return rows;
}

function parseCsv(input: string, o: CopyOptions): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let i = 0;
  let first = true;
  while (i < input.length) {
    const fields: (string | null)[] = [];
    let atLineStart = true;
    for (;;) {
      if (atLineStart && input.startsWith('\\.', i) && (i + 2 === input.length || input[i + 2] === '\n' || input[i + 2] === '\r')) return rows;
      atLineStart = false;
      let value = '';
      let quoted = false;
      if (input[i] === o.quote) {
        quoted = true;
        i++;
        for (;;) {
          if (i >= input.length) throw new FloeError(BAD_COPY_FILE_FORMAT, 'unterminated CSV quoted field');
          const ch = input[i]!;
          if (ch === o.escape && (input[i + 1] === o.quote || (o.escape !== o.quote && input[i + 1] === o.escape))) {
            value += input[i + 1];
            i += 2;
            continue;
          }
          if (ch === o.quote) { i++; break; }
          value += ch;
          i++;
        }
      }
      while (i < input.length && input[i] !== o.delimiter && input[i] !== '\n' && input[i] !== '\r') value += input[i++];
      fields.push(!quoted && value === o.null ? null : value);
      if (input[i] === o.delimiter) { i++; continue; }
      if (input[i] === '\r') i++;
      if (input[i] === '\n') i++;
      break;
    }
    if (first && o.header) { first = false; continue; }
    first = false;
    rows.push(fields);
  }
  return rows;
}

/**
 * One batch of a COPY TO's rows as COPY text. Its own function, not inline in the
 * COPY's chunk generator: V8 does not optimize a loop inside a running generator,
 * and that generator runs once per COPY.
 */
export function copyRowsText(rb: RowBatch, types: readonly SqlType[], settings: Parameters<typeof formatValue>[2], options: CopyOptions): string {
  let text = '';
  for (let r = 0; r < rb.numRows; r++) {
    text += formatCopyRow(rb.columns.map((col, i) => {
      const v = col.get(r);
      return v === null ? null : formatValue(v, types[i]!, settings);
    }), options);
  }
  return text;
}

/**
 * A value the wire decoded from binary COPY, held to the column's type
 * modifier as text input would be: varchar/char length, numeric precision.
 */
export function binaryCopyValue(v: unknown, t: SqlType, settings: TextIoSettings): unknown {
  if (t.kind === 'varchar' || t.kind === 'bpchar' || t.kind === 'numeric') return castValue(v, t, t, settings, false);
  return v;
}
