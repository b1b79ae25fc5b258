import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCopyRow, parseCopyText } from '../../src/session/copy-format.js';
import type { CopyOptions } from '../../src/sql/index.js';

const text: CopyOptions = { format: 'text', delimiter: '\t', null: '\\N', header: false, quote: '"', escape: '"', forceQuote: [], forceNotNull: [] };
const csv: CopyOptions = { ...text, format: 'csv', delimiter: ',', null: '' };

test('text format escapes backslash, tab, newline, CR and writes \\N for NULL', () => {
  assert.equal(formatCopyRow(['a\tb', 'back\\slash', 'line\nbreak\r', null, ''], text), 'a\\tb\tback\\\\slash\tline\\nbreak\\r\t\\N\t\n');
});

test('text format parses what it writes, plus octal and hex escapes, and stops at \\.', () => {
  const rows = parseCopyText('a\\tb\tback\\\\slash\t\\N\t\n\\101\\x42\tx\t\\N\t\n\\.\nignored\n', text);
  assert.deepEqual(rows, [['a\tb', 'back\\slash', null, ''], ['AB', 'x', null, '']]);
});

test('CSV quotes fields with delimiter, quote or newline, and an empty string, never NULL', () => {
  assert.equal(formatCopyRow(['plain', 'a,b', 'say "hi"', 'multi\nline', '', null], csv), 'plain,"a,b","say ""hi""","multi\nline","",\n');
});

test('CSV parsing tells an empty quoted string from NULL and honours HEADER', () => {
  const rows = parseCopyText('id,label\n1,"quoted, with comma"\n2,\n3,""\n4,"multi\nline ""q"""\n', { ...csv, header: true });
  assert.deepEqual(rows, [['1', 'quoted, with comma'], ['2', null], ['3', ''], ['4', 'multi\nline "q"']]);
});

test('text round trip of awkward strings', () => {
  const fields = ['\\N', 'tab\there', '\u00e9\u4e2d', ' ', '\\'];
  assert.deepEqual(parseCopyText(formatCopyRow(fields, text), text), [fields]);
});
