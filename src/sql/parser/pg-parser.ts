import { loadModule, normalizeSync, parseSync, scanSync, hasSqlDetails } from 'libpg-query';
import type { Node, ParseResult } from '@pgsql/types';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/*
 * The one place that talks to libpg-query. Its offsets are UTF-8 byte offsets;
 * everything this module returns uses JavaScript string (character) offsets,
 * which is what PostgreSQL reports to clients as positions.
 */

let loaded: Promise<void> | undefined;
let ready = false;

/** Loads the WASM parser once; src/sql does this at import time, so callers rarely need it. */
export function loadSqlParser(): Promise<void> {
  loaded ??= loadModule().then(() => { ready = true; });
  return loaded;
}

await loadSqlParser();

export interface RawStatement {
  readonly stmt: Node;
  /** Character offset of the statement's start (after the previous ';'). */
  readonly location: number;
  /** Character length, or undefined for "to the end". */
  readonly length: number | undefined;
}

export interface Token {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** libpg-query's token name: IDENT, SCONST, ICONST, FCONST, PARAM, ASCII_59, … (UNKNOWN for keywords). */
  readonly tokenName: string;
  /** 0 none, 1 unreserved, 2 col_name, 3 type_func_name, 4 reserved. */
  readonly keywordKind: number;
}

function isAscii(text: string): boolean {
  return /^[\x00-\x7f]*$/.test(text);
}

/** Maps UTF-8 byte offsets of `text` to character offsets. */
function byteToCharMap(text: string): (byteOffset: number) => number {
  const map: number[] = [];
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    for (let b = 0; b < width; b++) map[bytes + b] = i;
    bytes += width;
    if (code >= 0x10000) i++;
  }
  map[bytes] = text.length;
  return (b) => map[b] ?? text.length;
}

function shiftLocations(node: unknown, convert: (n: number) => number): void {
  if (Array.isArray(node)) {
    for (const item of node) shiftLocations(item, convert);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (key === 'location' && typeof value === 'number' && value >= 0) obj[key] = convert(value);
    else if (typeof value === 'object') shiftLocations(value, convert);
  }
}

/** PostgreSQL's syntax error as a FloeError with its 1-based character position. */
function syntaxError(e: unknown, text: string, positionBase: number): FloeError {
  if (hasSqlDetails(e) && e.sqlDetails) {
    // Unlike node locations, cursorPosition is already in characters (PostgreSQL computes it so).
    const cursor = e.sqlDetails.cursorPosition;
    // The scanner verifies the bytes an E'\\xNN' escape produces; PostgreSQL reports that as a data error, without a position.
    if (e.sqlDetails.message.startsWith('invalid byte sequence for encoding')) {
      return new FloeError(SqlState.characterNotInRepertoire, e.sqlDetails.message);
    }
    // The grammar's own refusals of reserved role names carry PostgreSQL's reserved_name code, not a syntax error's.
    const code = /^role name ".*" is reserved$|cannot be used as a role name here$/.test(e.sqlDetails.message) ? SqlState.reservedName : SqlState.syntaxError;
    return new FloeError(code, e.sqlDetails.message, { position: positionBase + cursor + 1 });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new FloeError(SqlState.syntaxError, message, { position: positionBase + text.length + 1 });
}

/** Parses text into raw statements (locations in characters). Syntax errors → FloeError 42601. */
export function parseRaw(text: string): RawStatement[] {
  if (!ready) throw new FloeError(SqlState.internalError, 'SQL parser not loaded');
  if (text.trim() === '') return [];
  const convert = isAscii(text) ? (b: number) => b : byteToCharMap(text);
  let result: ParseResult;
  try {
    result = parseSync(text);
  } catch (e) {
    throw syntaxError(e, text, 0);
  }
  const ascii = isAscii(text);
  const out: RawStatement[] = [];
  for (const raw of result.stmts ?? []) {
    if (!raw.stmt) continue;
    if (!ascii) shiftLocations(raw.stmt, convert);
    const startByte = raw.stmt_location ?? 0;
    const location = convert(startByte);
    const length = raw.stmt_len === undefined || raw.stmt_len === 0 ? undefined : convert(startByte + raw.stmt_len) - location;
    out.push({ stmt: raw.stmt, location, length });
  }
  return out;
}

/**
 * Parses `prefix + text` (e.g. "SELECT " + an expression lifted out by the extension pre-pass) and
 * returns the statement with every location shifted so it points into the original query string,
 * where `text` began at `textLocation`.
 */
export function parseFragment(prefix: string, text: string, textLocation: number): Node {
  const whole = prefix + text;
  const convert = isAscii(whole) ? (b: number) => b : byteToCharMap(whole);
  let result: ParseResult;
  try {
    result = parseSync(whole);
  } catch (e) {
    throw syntaxError(e, whole, textLocation - prefix.length);
  }
  const stmt = result.stmts?.[0]?.stmt;
  if (!stmt || (result.stmts?.length ?? 0) !== 1) {
    throw new FloeError(SqlState.syntaxError, 'syntax error at or near ";"', { position: textLocation + 1 });
  }
  shiftLocations(stmt, (b) => convert(b) - prefix.length + textLocation);
  return stmt;
}

/** PostgreSQL's lexer: tokens with character offsets, comments dropped. Undefined when the text does not lex. */
export function scanTokens(text: string): Token[] | undefined {
  let tokens;
  try {
    tokens = scanSync(text).tokens;
  } catch {
    return undefined;
  }
  const convert = isAscii(text) ? (b: number) => b : byteToCharMap(text);
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT') continue;
    out.push({ start: convert(t.start), end: convert(t.end), text: t.text, tokenName: t.tokenName, keywordKind: t.keywordKind });
  }
  return out;
}

/**
 * The statement with its constants replaced by $n placeholders (numbered after any $n it
 * already has), as pg_stat_statements shows a query; undefined when PostgreSQL's grammar
 * does not parse it (Floe's lakehouse clauses).
 */
export function normalizeConstants(text: string): string | undefined {
  try {
    return normalizeSync(text);
  } catch {
    return undefined;
  }
}
