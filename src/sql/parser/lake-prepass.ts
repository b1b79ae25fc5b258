import type { Node } from '@pgsql/types';
import type { LakeClause, QualifiedName, RefDdlClause } from './lake-clause.js';
import { identValue, lower, syntaxErrorAt } from './lake-tokens.js';
import { optimizerGroupDdl } from './optimizer-group-ddl.js';
import { parseFragment, scanTokens, type Token } from './pg-parser.js';

/**
 * The lakehouse extension layer. It finds the few clauses PostgreSQL's grammar
 * lacks, lifts them out as LakeClauses, and blanks their text (same length, so
 * every other position is unchanged) before PostgreSQL's parser runs. Text
 * without these clauses is passed through untouched, so plain PostgreSQL SQL
 * parses exactly as PostgreSQL parses it.
 */
export interface PrepassResult {
  /** The text PostgreSQL's parser should see. */
  readonly text: string;
  readonly clauses: readonly LakeClause[];
}

// Cheap guard: only text mentioning one of these words can hold an extension clause.
const maybeExtension = /as\s+of|branch|tag|tblproperties|partition\s+by\s*\(|(?:with|set|reset)\s*\([^)]*'|optimizer\s+group/i;

/** A whole statement replaced by this (padded) placeholder parses to an empty SELECT. */
const placeholder = 'select';

export function lakePrepass(text: string): PrepassResult {
  if (!maybeExtension.test(text)) return { text, clauses: [] };
  const tokens = scanTokens(text);
  if (tokens === undefined) return { text, clauses: [] }; // let PostgreSQL's parser report the lexical error
  const chars = text.split('');
  const clauses: LakeClause[] = [];
  const blank = (from: number, to: number): void => {
    for (let i = from; i < to; i++) if (chars[i] !== '\n') chars[i] = ' ';
  };

  for (const stmt of splitByTokens(tokens)) {
    if (stmt.length === 0) continue;
    const whole = statementClause(stmt, text);
    if (whole) {
      clauses.push(whole);
      const from = stmt[0]!.start;
      const to = stmt[stmt.length - 1]!.end;
      blank(from, to);
      for (let i = 0; i < placeholder.length; i++) chars[from + i] = placeholder[i]!;
      continue;
    }
    findTimeTravel(stmt, text, clauses, blank);
    findPartitionSpec(stmt, text, clauses, blank);
    quotePropertyKeys(stmt, chars);
  }
  return { text: chars.join(''), clauses };
}

function splitByTokens(tokens: readonly Token[]): Token[][] {
  const out: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(') depth++;
    else if (t.text === ')') depth = Math.max(0, depth - 1);
    if (t.text === ';' && depth === 0) out.push([]);
    else out[out.length - 1]!.push(t);
  }
  return out;
}

/** Reads `name` or `schema.name` at tokens[i]; returns it and the next index. */
function qualifiedName(stmt: readonly Token[], i: number): { name: QualifiedName; next: number } | undefined {
  const first = identValue(stmt[i]);
  if (first === undefined) return undefined;
  if (stmt[i + 1]?.text === '.') {
    const second = identValue(stmt[i + 2]);
    if (second === undefined) throw syntaxErrorAt(stmt[i + 2], stmt);
    return { name: { schema: first, name: second, location: stmt[i]!.start }, next: i + 3 };
  }
  return { name: { name: first, location: stmt[i]!.start }, next: i + 1 };
}

/** Statements that are wholly extension syntax: branch/tag DDL, SHOW TBLPROPERTIES, optimizer group DDL. */
function statementClause(stmt: readonly Token[], text: string): LakeClause | undefined {
  void text;
  const k0 = lower(stmt[0]);
  const group = optimizerGroupDdl(stmt);
  if (group) return group;
  if (k0 === 'show' && lower(stmt[1]) === 'tblproperties') {
    const q = qualifiedName(stmt, 2);
    if (!q) throw syntaxErrorAt(stmt[2], stmt);
    if (q.next < stmt.length) throw syntaxErrorAt(stmt[q.next], stmt);
    return { kind: 'showTblProperties', location: stmt[0]!.start, table: q.name };
  }
  if (k0 !== 'alter' || lower(stmt[1]) !== 'table') return undefined;
  let i = 2;
  let ifTableExists = false;
  if (lower(stmt[i]) === 'if' && lower(stmt[i + 1]) === 'exists') { ifTableExists = true; i += 2; }
  if (lower(stmt[i]) === 'only') i++;
  const q = qualifiedName(stmt, i);
  if (!q) return undefined;
  i = q.next;
  const verb = lower(stmt[i]);
  if (verb === 'create') {
    let j = i + 1;
    let orReplace = false;
    if (lower(stmt[j]) === 'or' && lower(stmt[j + 1]) === 'replace') { orReplace = true; j += 2; }
    const refKind = lower(stmt[j]);
    if (refKind !== 'branch' && refKind !== 'tag') return undefined;
    return parseCreateRef(stmt, j + 1, refKind, orReplace, q.name, ifTableExists);
  }
  if (verb === 'drop') {
    const refKind = lower(stmt[i + 1]);
    if (refKind !== 'branch' && refKind !== 'tag') return undefined;
    let j = i + 2;
    // `ALTER TABLE t DROP branch [CASCADE|RESTRICT]` drops a column named "branch": leave it to PostgreSQL.
    const next = lower(stmt[j]);
    if (stmt[j] === undefined || next === 'cascade' || next === 'restrict') return undefined;
    let ifExists = false;
    if (next === 'if' && lower(stmt[j + 1]) === 'exists') { ifExists = true; j += 2; }
    const name = identValue(stmt[j]);
    if (name === undefined) throw syntaxErrorAt(stmt[j], stmt);
    if (j + 1 < stmt.length) throw syntaxErrorAt(stmt[j + 1], stmt);
    return {
      kind: 'refDdl', location: stmt[0]!.start, table: q.name, ifTableExists,
      action: { kind: 'drop', refKind, name, ifExists },
    };
  }
  return undefined;
}

const microsPer = { days: 86_400_000_000n, hours: 3_600_000_000n, minutes: 60_000_000n } as const;

function parseCreateRef(
  stmt: readonly Token[], start: number, refKind: 'branch' | 'tag', orReplace: boolean, table: QualifiedName, ifTableExists: boolean,
): RefDdlClause {
  let j = start;
  let ifNotExists = false;
  if (lower(stmt[j]) === 'if') {
    if (lower(stmt[j + 1]) !== 'not') throw syntaxErrorAt(stmt[j + 1], stmt);
    if (lower(stmt[j + 2]) !== 'exists') throw syntaxErrorAt(stmt[j + 2], stmt);
    ifNotExists = true;
    j += 3;
  }
  const name = identValue(stmt[j]);
  if (name === undefined) throw syntaxErrorAt(stmt[j], stmt);
  j++;
  let asOfVersion: bigint | undefined;
  let retainMicros: bigint | undefined;
  while (j < stmt.length) {
    const word = lower(stmt[j]);
    if (word === 'as' && asOfVersion === undefined) {
      if (lower(stmt[j + 1]) !== 'of') throw syntaxErrorAt(stmt[j + 1], stmt);
      if (lower(stmt[j + 2]) !== 'version') throw syntaxErrorAt(stmt[j + 2], stmt);
      const v = stmt[j + 3];
      if (v?.tokenName !== 'ICONST') throw syntaxErrorAt(v, stmt);
      asOfVersion = BigInt(v.text);
      j += 4;
    } else if (word === 'retain' && retainMicros === undefined) {
      const n = stmt[j + 1];
      if (n?.tokenName !== 'ICONST') throw syntaxErrorAt(n, stmt);
      const unit = lower(stmt[j + 2]);
      if (unit !== 'days' && unit !== 'hours' && unit !== 'minutes') throw syntaxErrorAt(stmt[j + 2], stmt);
      retainMicros = BigInt(n.text) * microsPer[unit];
      j += 3;
    } else {
      throw syntaxErrorAt(stmt[j], stmt);
    }
  }
  return {
    kind: 'refDdl', location: stmt[0]!.start, table, ifTableExists,
    action: {
      kind: 'create', refKind, name, orReplace, ifNotExists,
      ...(asOfVersion === undefined ? {} : { asOfVersion }),
      ...(retainMicros === undefined ? {} : { retainMicros }),
    },
  };
}

/** Tokens after which a table name may follow. */
const tableIntroducers = new Set(['from', 'join', ',', 'update', 'into', 'using', 'only', 'table']);

/** Words that end an AS OF expression at depth 0. */
const expressionStoppers = new Set([
  'where', 'join', 'inner', 'left', 'right', 'full', 'cross', 'natural', 'on', 'using', 'group', 'order', 'limit',
  'offset', 'having', 'window', 'union', 'intersect', 'except', 'as', 'fetch', 'for', 'returning', 'set', 'values',
  'when', 'lateral', 'tablesample', 'into', 'select', 'then', 'do', 'from', 'default', 'overriding',
]);

const operandEnds = new Set(['IDENT', 'SCONST', 'ICONST', 'FCONST', 'PARAM', 'BCONST', 'XCONST', 'USCONST', 'UIDENT']);

/** Finds `FOR SYSTEM_TIME|SYSTEM_VERSION AS OF e` and `VERSION|TIMESTAMP AS OF e` after table names. */
function findTimeTravel(
  stmt: readonly Token[], text: string, clauses: LakeClause[], blank: (from: number, to: number) => void,
): void {
  for (let i = 1; i < stmt.length; i++) {
    const w = lower(stmt[i]);
    let mode: 'systemTime' | 'systemVersion' | undefined;
    let asIndex = -1;
    if (w === 'for') {
      const kind = lower(stmt[i + 1]);
      if (kind === 'system_time') mode = 'systemTime';
      else if (kind === 'system_version' || kind === 'version') mode = 'systemVersion';
      else if (kind === 'timestamp') mode = 'systemTime';
      asIndex = i + 2;
    } else if (w === 'version' || w === 'timestamp') {
      mode = w === 'version' ? 'systemVersion' : 'systemTime';
      asIndex = i + 1;
    }
    if (mode === undefined || lower(stmt[asIndex]) !== 'as' || lower(stmt[asIndex + 1]) !== 'of') continue;
    const tableStart = tableNameStart(stmt, i);
    if (tableStart === undefined) continue;
    const exprStart = asIndex + 2;
    const exprEnd = expressionEnd(stmt, exprStart);
    if (exprEnd === exprStart) throw syntaxErrorAt(stmt[exprStart], stmt);
    const from = stmt[exprStart]!.start;
    const to = stmt[exprEnd - 1]!.end;
    const select = parseFragment('SELECT ', text.slice(from, to), from);
    const target = (select as { SelectStmt?: { targetList?: Node[] } }).SelectStmt?.targetList;
    const res = target?.[0] as { ResTarget?: { val?: Node } } | undefined;
    if (target?.length !== 1 || !res?.ResTarget?.val) throw syntaxErrorAt(stmt[exprStart], stmt);
    clauses.push({ kind: 'timeTravel', location: stmt[i]!.start, tableLocation: stmt[tableStart]!.start, mode, expr: res.ResTarget.val });
    blank(stmt[i]!.start, to);
    i = exprEnd - 1;
  }
}

/** Index of the first token of the (possibly qualified) table name that ends just before index `i`. */
function tableNameStart(stmt: readonly Token[], i: number): number | undefined {
  let j = i - 1;
  if (identValue(stmt[j]) === undefined) return undefined;
  while (stmt[j - 1]?.text === '.' && identValue(stmt[j - 2]) !== undefined) j -= 2;
  const before = stmt[j - 1];
  if (before === undefined || !tableIntroducers.has(before.text.toLowerCase())) return undefined;
  return j;
}

function expressionEnd(stmt: readonly Token[], start: number): number {
  let depth = 0;
  for (let k = start; k < stmt.length; k++) {
    const t = stmt[k]!;
    if (t.text === '(' || t.text === '[') { depth++; continue; }
    if (t.text === ')' || t.text === ']') {
      if (depth === 0) return k;
      depth--;
      continue;
    }
    if (depth > 0) continue;
    if (t.text === ',') return k;
    if (k > start && expressionStoppers.has(lower(t)) && t.tokenName !== 'IDENT') return k;
    // An identifier right after a complete operand starts an alias (`AS OF 3 x`).
    const prev = stmt[k - 1]!;
    if (k > start && t.tokenName === 'IDENT' && (operandEnds.has(prev.tokenName) || prev.text === ')' || prev.text === ']')) return k;
  }
  return stmt.length;
}

/** Floe's strategy-less `PARTITION BY (…)` after a CREATE TABLE's column list. */
function findPartitionSpec(
  stmt: readonly Token[], text: string, clauses: LakeClause[], blank: (from: number, to: number) => void,
): void {
  if (lower(stmt[0]) !== 'create') return;
  let depth = 0;
  let sawTable = false;
  for (let i = 1; i < stmt.length; i++) {
    const t = stmt[i]!;
    if (t.text === '(') { depth++; continue; }
    if (t.text === ')') { depth--; continue; }
    if (lower(t) === 'table') sawTable = true;
    if (!sawTable || depth !== 0 || lower(t) !== 'partition' || lower(stmt[i + 1]) !== 'by' || stmt[i + 2]?.text !== '(') continue;
    let close = i + 3;
    let d = 1;
    for (; close < stmt.length; close++) {
      if (stmt[close]!.text === '(') d++;
      else if (stmt[close]!.text === ')' && --d === 0) break;
    }
    if (close >= stmt.length) throw syntaxErrorAt(undefined, stmt);
    if (close === i + 3) throw syntaxErrorAt(stmt[close], stmt);
    const from = stmt[i + 3]!.start;
    const to = stmt[close - 1]!.end;
    const select = parseFragment('SELECT ', text.slice(from, to), from);
    const targets = (select as { SelectStmt?: { targetList?: Node[] } }).SelectStmt?.targetList ?? [];
    const elements = targets.map((n) => (n as { ResTarget: { val: Node } }).ResTarget.val);
    clauses.push({ kind: 'partitionSpec', location: t.start, elements });
    blank(t.start, stmt[close]!.end);
    return;
  }
}

/**
 * Table property keys are often written as strings (`WITH ('write.target-file-size' = '64MB')`,
 * Spark's TBLPROPERTIES habit); PostgreSQL's reloptions grammar wants identifiers. Swapping the
 * quotes to double quotes keeps every position and turns the key into a quoted identifier.
 */
function quotePropertyKeys(stmt: readonly Token[], chars: string[]): void {
  const first = lower(stmt[0]);
  if (first !== 'create' && first !== 'alter') return;
  for (let i = 1; i + 1 < stmt.length; i++) {
    const w = lower(stmt[i]);
    if ((w !== 'with' && w !== 'set' && w !== 'reset') || stmt[i + 1]!.text !== '(') continue;
    let depth = 0;
    for (let k = i + 1; k < stmt.length; k++) {
      const t = stmt[k]!;
      if (t.text === '(') depth++;
      else if (t.text === ')') { if (--depth === 0) break; }
      const prev = stmt[k - 1]!.text;
      const next = stmt[k + 1]?.text;
      const isKey = depth === 1 && t.tokenName === 'SCONST' && (prev === '(' || prev === ',') && (next === '=' || w === 'reset');
      if (isKey && /^'[^'"\\]*'$/.test(t.text)) {
        chars[t.start] = '"';
        chars[t.end - 1] = '"';
      }
    }
  }
}
