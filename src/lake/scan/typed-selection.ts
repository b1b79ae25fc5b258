import { Type } from 'apache-arrow';
import type { Data } from 'apache-arrow';
import { smallDecimalWords } from '../../common/decimal-words.js';
import type { SqlType } from '../../common/sql-type.js';
import { isValid, nullMask } from '../arrow/column-reader.js';
import { naturalScale, parseDecimalNumber } from '../arrow/decimal-text.js';
import { bytesToUuid, uuidToBytes } from '../arrow/uuid-bytes.js';
import type { ScanFilter } from './scan-types.js';

/** Largest scale gap bridged by multiplying the column's values (10^6 keeps 2^53 / 10^6 of headroom checks simple). */
const MAX_SCALE_GAP = 6;

/**
 * A selection over one column's Arrow buffers for all the filters on that column:
 * writes the rows of `rows` (rows 0..n-1 when undefined) that pass every filter to
 * `out` and returns how many. `bad()` turns true when a value could not be compared
 * exactly (a Decimal beyond 2^53): the caller then redoes the batch value by value.
 */
export interface TypedSelection {
  select(rows: Int32Array | undefined, n: number, out: Int32Array): number;
  bad(): boolean;
}

/**
 * The comparisons of one column as an inclusive range of integers plus values to
 * exclude: every value compared here (int2/int4/date, unscaled decimals at a common
 * scale) is an integer, so `< t` is `<= ceil(t) - 1` and a fractional `= t` matches nothing.
 */
interface IntRange { lo: number; hi: number; ne: number[] }

/**
 * The typed selection for the scan shapes that dominate (date ranges,
 * `l_discount between 0.05 and 0.07`, `l_quantity < 24`, `p_size in (49, 14, 23)`):
 * int2/int4/date compared as numbers (IN lists too), int8 as numbers within ±2^53 (IN lists too), uuid as bytes, and Decimal (numeric(p,s)) as unscaled safe integers with the targets
 * brought to the column's scale, and text (`l_shipmode in ('MAIL', 'SHIP')`) as UTF-8
 * bytes (char(n) without trailing blanks) — one pass per column, no canonical value per row. Undefined for any other
 * shape (IS NULL, IN on numerics, other types, infinite targets).
 */
export function typedSelection(data: Data, filters: readonly ScanFilter[], type: SqlType): TypedSelection | undefined {
  if (filters.length === 0 || filters.some((f) => f.op === 'isNull' || f.op === 'isNotNull')) return undefined;
  const nulls = nullMask(data);
  if (TEXT_KINDS.has(type.kind) && data.typeId === Type.Dictionary) return dictionarySelection(data, filters, type);
  if (TEXT_KINDS.has(type.kind) && data.typeId === Type.Utf8) {
    // char(n) compares without its trailing blanks, on both sides.
    const trim = type.kind === 'bpchar';
    const tests = filters.map((f) => utf8Test(f, trim));
    if (tests.some((t) => t === undefined)) return undefined;
    const bytes = data.values as Uint8Array;
    const offs = data.valueOffsets as Int32Array;
    return { select: (rows, n, out) => selectUtf8(bytes, offs, nulls, data.offset, tests as Utf8Test[], trim, rows, n, out), bad: () => false };
  }
  if (type.kind === 'int2' || type.kind === 'int4' || type.kind === 'date') {
    if (data.typeId !== Type.Int && data.typeId !== Type.Date) return undefined;
    if (data.typeId === Type.Date && (data.type as unknown as { unit: number }).unit !== 0) return undefined;
    const values = data.values as Int16Array | Int32Array;
    if (!(values instanceof Int32Array || values instanceof Int16Array)) return undefined;
    // Infinite dates are stored as Int32 sentinels beyond every real date, so they order correctly as numbers;
    // an infinite target is left to the value path.
    const tests = integerTests(filters, (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined));
    if (tests === undefined) return undefined;
    const { range, members } = tests;
    return { select: (rows, n, out) => selectInts(values, nulls, data.offset, range, rows, n, out, members), bad: () => false };
  }
  if (type.kind === 'int8' && data.typeId === Type.Int && data.values instanceof BigInt64Array) {
    // Targets as numbers: a bigint (or number) past ±2^53 is left to the value path.
    const tests = integerTests(filters, (v) => {
      if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
      if (typeof v === 'bigint' && v >= -MAX_SAFE_BIG && v <= MAX_SAFE_BIG) return Number(v);
      return undefined;
    });
    if (tests === undefined) return undefined;
    const { range, members } = tests;
    const v64 = data.values;
    const words = new Uint32Array(v64.buffer, v64.byteOffset, v64.length * 2);
    const state = { big: false };
    return { select: (rows, n, out) => selectInt64s(words, nulls, data.offset, range, members, rows, n, out, state), bad: () => state.big };
  }
  if (type.kind === 'uuid' && data.typeId === Type.FixedSizeBinary && (data.type as unknown as { byteWidth: number }).byteWidth === 16) {
    return uuidSelection(data.values as Uint8Array, nulls, data.offset, filters);
  }
  if (filters.some((f) => f.op === 'in')) return undefined;
  if (type.kind === 'numeric' && data.typeId === Type.Decimal && filters.every((f) => typeof f.value === 'string')) {
    const t = data.type as unknown as { scale: number; bitWidth?: number };
    const colScale = t.scale;
    if (colScale < 0) return undefined;
    const scale = Math.max(colScale, ...filters.map((f) => naturalScale(f.value as string)));
    if (scale - colScale > MAX_SCALE_GAP) return undefined;
    const targets: { op: ScanFilter['op']; target: number }[] = [];
    for (const f of filters) {
      const target = parseDecimalNumber(f.value as string, scale);
      if (target === undefined) return undefined;
      targets.push({ op: f.op, target });
    }
    const range = rangeOf(targets);
    const words = data.values as Uint32Array;
    const bw = (t.bitWidth ?? 128) / 32;
    const up = 10 ** (scale - colScale);
    const state = { big: false };
    return { select: (rows, n, out) => selectDecimals(words, bw, up, nulls, data.offset, range, rows, n, out, state), bad: () => state.big };
  }
  return undefined;
}

function rangeOf(filters: readonly { op: ScanFilter['op']; target: number }[]): IntRange {
  const r: IntRange = { lo: -Infinity, hi: Infinity, ne: [] };
  for (const { op, target: t } of filters) {
    switch (op) {
      case '=':
        if (Number.isInteger(t)) { r.lo = Math.max(r.lo, t); r.hi = Math.min(r.hi, t); } else { r.lo = Infinity; }
        break;
      case '<>': if (Number.isInteger(t)) r.ne.push(t); break;
      case '<': r.hi = Math.min(r.hi, Math.ceil(t) - 1); break;
      case '<=': r.hi = Math.min(r.hi, Math.floor(t)); break;
      case '>': r.lo = Math.max(r.lo, Math.floor(t) + 1); break;
      case '>=': r.lo = Math.max(r.lo, Math.ceil(t)); break;
      default: throw new Error(`typed selection: unexpected operator ${op}`);
    }
  }
  return r;
}

/**
 * One column's filters with each target converted by `convert` (NULLs in IN lists
 * dropped: they never make the test true): the comparisons, and the IN lists.
 * Undefined when a target does not convert: the column goes to the value path.
 */
function targetsOf<T>(
  filters: readonly ScanFilter[], convert: (v: unknown) => T | undefined,
): { comparisons: { op: ScanFilter['op']; target: T }[]; lists: T[][] } | undefined {
  const comparisons: { op: ScanFilter['op']; target: T }[] = [];
  const lists: T[][] = [];
  for (const f of filters) {
    if (f.op !== 'in') {
      const target = convert(f.value);
      if (target === undefined) return undefined;
      comparisons.push({ op: f.op, target });
      continue;
    }
    const list: T[] = [];
    for (const v of f.values ?? []) {
      if (v === null || v === undefined) continue;
      const target = convert(v);
      if (target === undefined) return undefined;
      list.push(target);
    }
    lists.push(list);
  }
  return { comparisons, lists };
}

/** An integer column's filters as a range and, with IN lists, the members passing them (targets as numbers by `asNumber`). */
function integerTests(
  filters: readonly ScanFilter[], asNumber: (v: unknown) => number | undefined,
): { range: IntRange; members: Uint8Array | Set<number> | undefined } | undefined {
  const targets = targetsOf(filters, asNumber);
  if (targets === undefined) return undefined;
  const range = rangeOf(targets.comparisons);
  return { range, members: targets.lists.length === 0 ? undefined : membersOf(range, targets.lists) };
}

/** Spans of IN values up to this wide are tested through a byte per value in the span; wider ones through a Set. */
const MEMBER_SPAN_MAX = 1 << 16;

/**
 * The integers passing every IN list and `range` (narrowed here to their least and
 * greatest, `ne` applied): a byte per value of that span, or a Set when it is wide. A
 * fractional list value matches no integer; NULLs were dropped by the caller.
 */
function membersOf(range: IntRange, lists: readonly (readonly number[])[]): Uint8Array | Set<number> {
  let allowed = new Set(lists[0]!.filter((v) => Number.isInteger(v)));
  for (const list of lists.slice(1)) allowed = new Set(list.filter((v) => allowed.has(v)));
  const kept = [...allowed].filter((v) => v >= range.lo && v <= range.hi && !range.ne.includes(v));
  range.ne = [];
  if (kept.length === 0) { range.lo = Infinity; range.hi = -Infinity; return new Uint8Array(0); }
  // A loop, not Math.min(...kept): a write's key lookups pass IN lists of every key it holds.
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of kept) { if (v < lo) lo = v; if (v > hi) hi = v; }
  range.lo = lo;
  range.hi = hi;
  if (range.hi - range.lo >= MEMBER_SPAN_MAX) return new Set(kept);
  const bytes = new Uint8Array(range.hi - range.lo + 1);
  for (const v of kept) bytes[v - range.lo] = 1;
  return bytes;
}

function selectInts(
  values: Int16Array | Int32Array, nulls: Uint8Array | undefined, offset: number, range: IntRange,
  rows: Int32Array | undefined, n: number, out: Int32Array, members?: Uint8Array | Set<number>,
): number {
  const { lo, hi, ne } = range;
  let k = 0;
  if (members !== undefined) {
    // An IN list (`size IN (…8 sizes)`): within the list's span, one byte read a row.
    const bytes = members instanceof Uint8Array ? members : undefined;
    for (let j = 0; j < n; j++) {
      const i = rows === undefined ? j : rows[j]!;
      const v = values[i]!;
      if (v < lo || v > hi) continue;
      if (bytes !== undefined ? bytes[v - lo] === 0 : !(members as Set<number>).has(v)) continue;
      if (nulls !== undefined && !isValid(nulls, offset, i)) continue;
      out[k++] = i;
    }
    return k;
  }
  if (nulls === undefined && ne.length === 0) {
    // Without a branch on the outcome: a row is written, then kept by advancing k. Half the rows
    // passing (a date range splitting a table's rows in hash order) defeats branch prediction, which cost 10-13 ns a value here against 3-5.
    if (rows === undefined) {
      for (let i = 0; i < n; i++) { const v = values[i]!; out[k] = i; k += +(v >= lo) & +(v <= hi); }
    } else {
      for (let j = 0; j < n; j++) { const i = rows[j]!; const v = values[i]!; out[k] = i; k += +(v >= lo) & +(v <= hi); }
    }
    return k;
  }
  for (let j = 0; j < n; j++) {
    const i = rows === undefined ? j : rows[j]!;
    const v = values[i]!;
    if (v < lo || v > hi || !isValid(nulls, offset, i)) continue;
    if (ne.length > 0 && ne.includes(v)) continue;
    out[k++] = i;
  }
  return k;
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * int8 (BigInt64Array) read as two 32-bit words a value, so no BigInt is made per row
 * (a write's key lookup on a bigint primary key: an IN list of every key it holds).
 * A value past ±2^53 sets `state.big`: the caller redoes the batch value by value.
 */
function selectInt64s(
  words: Uint32Array, nulls: Uint8Array | undefined, offset: number, range: IntRange, members: Uint8Array | Set<number> | undefined,
  rows: Int32Array | undefined, n: number, out: Int32Array, state: { big: boolean },
): number {
  const { lo, hi, ne } = range;
  const bytes = members instanceof Uint8Array ? members : undefined;
  let k = 0;
  for (let j = 0; j < n; j++) {
    const i = rows === undefined ? j : rows[j]!;
    if (nulls !== undefined && !isValid(nulls, offset, i)) continue;
    const v = (words[2 * i + 1]! | 0) * 4294967296 + words[2 * i]!;
    if (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) { state.big = true; continue; }
    if (v < lo || v > hi) continue;
    if (ne.length > 0 && ne.includes(v)) continue;
    if (members !== undefined && (bytes !== undefined ? bytes[v - lo] === 0 : !(members as Set<number>).has(v))) continue;
    out[k++] = i;
  }
  return k;
}

function selectDecimals(
  words: Uint32Array, bw: number, up: number, nulls: Uint8Array | undefined, offset: number, range: IntRange,
  rows: Int32Array | undefined, n: number, out: Int32Array, state: { big: boolean },
): number {
  const { lo, hi, ne } = range;
  let k = 0;
  if (bw === 2 && up === 1 && nulls === undefined && ne.length === 0) {
    // Decimal64 without NULLs (a scan's numeric(p ≤ 18): a discount or a quantity column), in one
    // loop without branches. A value past ±2^53 needs no value path here: it converts with one
    // correct rounding, which cannot carry it across the bounds, safe integers or infinite.
    for (let j = 0; j < n; j++) {
      const i = rows === undefined ? j : rows[j]!;
      const v = (words[2 * i + 1]! | 0) * 4294967296 + words[2 * i]!;
      out[k] = i;
      k += +(v >= lo) & +(v <= hi);
    }
    return k;
  }
  for (let j = 0; j < n; j++) {
    const i = rows === undefined ? j : rows[j]!;
    if (!isValid(nulls, offset, i)) continue;
    const u = smallDecimalWords(words, i * bw, bw);
    const v = up === 1 ? u : u * up;
    if (v !== v || v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) { state.big = true; continue; }
    if (ne.length > 0 && ne.includes(v)) continue;
    // Kept without a branch on the outcome (see selectInts).
    out[k] = i;
    k += +(v >= lo) & +(v <= hi);
  }
  return k;
}

/**
 * uuid (FixedSizeBinary(16)) compared as its 16 bytes, whose order is that of the
 * canonical text the value path compares (lower-case hex at fixed hyphens). Only
 * canonical targets are taken, so a row passes here exactly when it passes there. IN
 * lists find their candidates by the first four bytes: a write's key lookup on a uuid
 * primary key passes every key it holds (5k keys against 100k rows took 10 s by value).
 */
function uuidSelection(bytes: Uint8Array, nulls: Uint8Array | undefined, offset: number, filters: readonly ScanFilter[]): TypedSelection | undefined {
  const canonical = (v: unknown): Uint8Array | undefined => {
    if (typeof v !== 'string') return undefined;
    try {
      const b = uuidToBytes(v);
      return bytesToUuid(b) === v ? b : undefined;
    } catch {
      return undefined;
    }
  };
  const targets = targetsOf(filters, canonical);
  if (targets === undefined) return undefined;
  type UuidTest = { op: ScanFilter['op']; target: Uint8Array } | { op: 'in'; byHead: Map<number, Uint8Array[]> };
  const tests: UuidTest[] = [...targets.comparisons];
  for (const list of targets.lists) {
    const byHead = new Map<number, Uint8Array[]>();
    for (const target of list) {
      const head = headOf(target, 0);
      const same = byHead.get(head);
      if (same) same.push(target); else byHead.set(head, [target]);
    }
    tests.push({ op: 'in', byHead });
  }
  return {
    select: (rows, n, out) => {
      let k = 0;
      rows: for (let j = 0; j < n; j++) {
        const i = rows === undefined ? j : rows[j]!;
        if (nulls !== undefined && !isValid(nulls, offset, i)) continue;
        const at = 16 * i;
        for (const t of tests) {
          if ('byHead' in t) {
            const candidates = t.byHead.get(headOf(bytes, at));
            if (candidates === undefined || !candidates.some((c) => compareUuid(bytes, at, c) === 0)) continue rows;
            continue;
          }
          if (!holds(t.op, compareUuid(bytes, at, t.target))) continue rows;
        }
        out[k++] = i;
      }
      return k;
    },
    bad: () => false,
  };
}

/** Whether comparison `op` holds of a row whose comparison with the target came out `c` (<0, 0, >0). */
function holds(op: ScanFilter['op'], c: number): boolean {
  return op === '=' ? c === 0 : op === '<>' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

/** The first four bytes at `at`, big-endian, as an unsigned number. */
function headOf(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Bytes at..at+15 against `target`, unsigned, first difference decides. */
function compareUuid(bytes: Uint8Array, at: number, target: Uint8Array): number {
  for (let b = 0; b < 16; b++) {
    const d = bytes[at + b]! - target[b]!;
    if (d !== 0) return d;
  }
  return 0;
}

const TEXT_KINDS = new Set<SqlType['kind']>(['text', 'varchar', 'name', 'bpchar']);

/** Whether a text column's filters all compare UTF-8 bytes here (typedSelection decides them without a value per row). */
export function textFiltersTyped(filters: readonly ScanFilter[], type: SqlType): boolean {
  return TEXT_KINDS.has(type.kind) && filters.length > 0 && filters.every((f) => f.op !== 'isNull' && f.op !== 'isNotNull' && utf8Test(f, false) !== undefined);
}

/**
 * A text column as an Arrow Dictionary of Int32 codes into Utf8 values: each value is
 * tested once, then a row by its code — a filter-only column's strings are never built.
 */
function dictionarySelection(data: Data, filters: readonly ScanFilter[], type: SqlType): TypedSelection | undefined {
  const values = (data.dictionary as { data?: readonly Data[] } | undefined)?.data;
  const codes = data.values as unknown;
  if (values?.length !== 1 || values[0]!.typeId !== Type.Utf8 || !(codes instanceof Int32Array)) return undefined;
  const trim = type.kind === 'bpchar';
  const tests = filters.map((f) => utf8Test(f, trim));
  if (tests.some((t) => t === undefined)) return undefined;
  const dict = values[0]!;
  const passing = new Int32Array(dict.length);
  const m = selectUtf8(dict.values as Uint8Array, dict.valueOffsets as Int32Array, nullMask(dict), dict.offset, tests as Utf8Test[], trim, undefined, dict.length, passing);
  const pass = new Uint8Array(dict.length);
  for (let k = 0; k < m; k++) pass[passing[k]!] = 1;
  const nulls = nullMask(data);
  const at = data.offset;
  return {
    select: (rows, n, out) => {
      let k = 0;
      if (rows === undefined && nulls === undefined) {
        for (let i = 0; i < n; i++) { out[k] = i; k += pass[codes[at + i]!]!; }
        return k;
      }
      for (let j = 0; j < n; j++) {
        const i = rows === undefined ? j : rows[j]!;
        if (nulls !== undefined && !isValid(nulls, at, i)) continue;
        out[k] = i;
        k += pass[codes[at + i]!]!;
      }
      return k;
    },
    bad: () => false,
  };
}

/** One filter on a text column as UTF-8 bytes: their order is PostgreSQL's C-collation (code point) order. */
interface Utf8Test {
  readonly op: ScanFilter['op'];
  readonly targets: readonly Uint8Array[];
}

const encoder = new TextEncoder();

function utf8Test(f: ScanFilter, trim: boolean): Utf8Test | undefined {
  const bytesOf = (v: string) => encoder.encode(trim ? v.replace(/ +$/, '') : v);
  if (f.op === 'in') {
    // A NULL in the list never makes the test true, so it is dropped.
    const values = (f.values ?? []).filter((v) => v !== null && v !== undefined);
    return values.every((v) => typeof v === 'string') ? { op: 'in', targets: values.map((v) => bytesOf(v as string)) } : undefined;
  }
  return typeof f.value === 'string' ? { op: f.op, targets: [bytesOf(f.value)] } : undefined;
}

function selectUtf8(
  bytes: Uint8Array, offs: Int32Array, nulls: Uint8Array | undefined, offset: number, tests: readonly Utf8Test[], trim: boolean,
  rows: Int32Array | undefined, n: number, out: Int32Array,
): number {
  if (tests.length === 1 && (tests[0]!.op === 'in' || tests[0]!.op === '=')) return selectUtf8Equal(bytes, offs, nulls, offset, tests[0]!.targets, trim, rows, n, out);
  let k = 0;
  rows: for (let j = 0; j < n; j++) {
    const i = rows === undefined ? j : rows[j]!;
    if (!isValid(nulls, offset, i)) continue;
    const start = offs[i]!;
    let len = offs[i + 1]! - start;
    if (trim) while (len > 0 && bytes[start + len - 1] === 32) len--;
    for (let f = 0; f < tests.length; f++) {
      const { op, targets } = tests[f]!;
      if (op === 'in') {
        if (equalIndex(bytes, start, len, targets) < 0) continue rows;
        continue;
      }
      const t = targets[0]!;
      // Equality needs equal lengths, so most rows are decided without reading their bytes.
      const c = (op === '=' || op === '<>') && t.length !== len ? 1 : compareUtf8(bytes, start, len, t);
      if (!holds(op, c)) continue rows;
    }
    out[k++] = i;
  }
  return k;
}

/**
 * selectUtf8 for the common shape, one `=` or IN: a row passes when its bytes equal
 * one target's. A char(n) row passes when it starts with a target and only blanks
 * follow, so rows that differ are told apart by their first bytes, without first
 * walking back over their padding (l_shipinstruct's 8 to 13 blanks a row).
 */
function selectUtf8Equal(
  bytes: Uint8Array, offs: Int32Array, nulls: Uint8Array | undefined, offset: number, targets: readonly Uint8Array[], trim: boolean,
  rows: Int32Array | undefined, n: number, out: Int32Array,
): number {
  let k = 0;
  for (let j = 0; j < n; j++) {
    const i = rows === undefined ? j : rows[j]!;
    if (nulls !== undefined && !isValid(nulls, offset, i)) continue;
    const start = offs[i]!;
    const len = offs[i + 1]! - start;
    out[k] = i;
    k += +((trim ? paddedIndex(bytes, start, len, targets) : equalIndex(bytes, start, len, targets)) >= 0);
  }
  return k;
}

/** The index of the target that bytes[start, start + len) holds followed by nothing but blanks, or -1. */
function paddedIndex(bytes: Uint8Array, start: number, len: number, targets: readonly Uint8Array[]): number {
  for (let t = 0; t < targets.length; t++) {
    const tb = targets[t]!;
    const tl = tb.length;
    if (tl > len) continue;
    let b = 0;
    while (b < tl && bytes[start + b] === tb[b]) b++;
    if (b < tl) continue;
    while (b < len && bytes[start + b] === 32) b++;
    if (b === len) return t;
  }
  return -1;
}

/** The index of the target equal to bytes[start, start + len), or -1. */
function equalIndex(bytes: Uint8Array, start: number, len: number, targets: readonly Uint8Array[]): number {
  for (let t = 0; t < targets.length; t++) {
    const tb = targets[t]!;
    if (tb.length !== len) continue;
    let b = 0;
    while (b < len && bytes[start + b] === tb[b]) b++;
    if (b === len) return t;
  }
  return -1;
}

/** Byte order of bytes[start, start + len) against `t`. */
function compareUtf8(bytes: Uint8Array, start: number, len: number, t: Uint8Array): number {
  const m = Math.min(len, t.length);
  for (let b = 0; b < m; b++) {
    const d = bytes[start + b]! - t[b]!;
    if (d !== 0) return d;
  }
  return len - t.length;
}
