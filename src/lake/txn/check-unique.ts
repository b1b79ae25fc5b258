import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { columnReader } from '../arrow/column-reader.js';
import { hashKey } from '../bucket/key-hash.js';
import { keyValueBytes } from '../bucket/key-serializer.js';
import { decodeDataFileSelected, readDataFile } from '../format/data-file-reader.js';
import { readDataFileBytes } from '../format/data-file-source.js';
import { bytesSource } from '../format/parquet-io.js';
import { filterSelection } from '../scan/filter-batch.js';
import { executeScanTask } from '../scan/execute-scan-task.js';
import { planScan } from '../scan/plan-scan.js';
import { ROW_ID_COLUMN } from '../scan/scan-types.js';
import { snapshotsSince } from '../refs/snapshots-since.js';
import { concurrentRowsAtHead } from './concurrent-rows-at-head.js';
import { filesWithRowsOf } from '../log/tiered-files.js';
import type { ScanFilter, ScanRequest } from '../scan/scan-types.js';
import { isKeyed, physicalName } from '../table/table-layout.js';
import type { ColumnMetadata, TableConstraint, TableMetadata } from '../table/table-metadata.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { keyValueText } from './key-value-text.js';
import type { LakeTransaction } from './lake-transaction.js';
import { isDeferred } from './constraint-modes.js';
import type { ConstraintModes } from './constraint-modes.js';
import { valueOrderOf } from '../stats/value-order.js';

export type UniqueConstraint = Extract<TableConstraint, { kind: 'unique' }>;

export function uniqueConstraintsOf(table: TableMetadata): UniqueConstraint[] {
  return (table.constraints ?? []).filter((c): c is UniqueConstraint => c.kind === 'unique');
}

/** One value a transaction wrote under a unique constraint, kept for the commit-time re-check. */
interface WrittenValue {
  readonly slot: string;
  readonly constraint: UniqueConstraint;
  readonly key: unknown;
  readonly values: readonly unknown[];
  /** The primary key of the row that holds it (keyed tables). */
  readonly pk: unknown;
}

/** A statement's rows as the write sees them: the live after-images and the primary keys it replaces. */
interface WriteRows {
  readonly live: number[];
  readonly superseded: Set<unknown>;
  readonly pkOf: (i: number) => unknown;
}

/**
 * UNIQUE constraints (and CREATE UNIQUE INDEX) for every writer of src/lake:
 *  - checkWrite, per lake write call (INSERT, upsert, UPDATE's -U/+U pairs, MERGE,
 *    COPY): the statement's after-images among themselves, then against the table as
 *    the transaction sees it (its pinned snapshot plus what it staged), read with an IN
 *    filter so that files are pruned by their min/max statistics. A row this write
 *    replaces (same primary key) or a row the transaction deleted does not hold its
 *    value any longer. NULLs are distinct unless the constraint says NULLS NOT DISTINCT.
 *  - checkCommit: against what other transactions committed after the pinned snapshot.
 *    Their files are read for the values this transaction wrote; only when one turns up
 *    is the head read to see whether it is still there. The commit then expects that
 *    head, so a commit landing meanwhile re-runs the check.
 * Values are compared by their key serialization (key-serializer.ts): equal in SQL
 * exactly when the bytes are.
 */
export class UniqueLedger {
  readonly #written: WrittenValue[] = [];
  readonly #superseded: { slot: string; pk: unknown }[] = [];
  /** Writes to INITIALLY DEFERRED constraints, checked at COMMIT (checkDeferred). */
  readonly #deferred: { table: TableMetadata; ref: string; constraint: UniqueConstraint }[] = [];
  readonly #marks: { written: number; superseded: number; deferred: number }[] = [];
  /** SET CONSTRAINTS' choices; undefined: every constraint as declared. */
  #modes: ConstraintModes | undefined;

  constructor(modes?: ConstraintModes) {
    this.#modes = modes;
  }

  /**
   * SET CONSTRAINTS (or a ROLLBACK TO restoring an earlier choice): the new modes, and the
   * COMMIT check run now for every constraint with deferred writes that is immediate from
   * here on, as PostgreSQL does ("retroactively").
   */
  async setModes(ctx: LakeContext, txn: LakeTransaction, modes: ConstraintModes): Promise<void> {
    this.#modes = modes;
    await this.checkDeferred(ctx, txn, (d) => !isDeferred(modes, d.table.id, d.constraint));
  }

  mark(): void {
    this.#marks.push({ written: this.#written.length, superseded: this.#superseded.length, deferred: this.#deferred.length });
  }

  /** Back to savepoint `ordinal` (undefined: the start); pairs with LakeTransaction.savepoint/rollbackTo. */
  rollbackTo(ordinal: number | undefined): void {
    const none = { written: 0, superseded: 0, deferred: 0 };
    const m = ordinal === undefined ? none : this.#marks[ordinal] ?? none;
    this.#marks.length = ordinal === undefined ? 0 : ordinal + 1;
    this.#written.length = m.written;
    this.#superseded.length = m.superseded;
    this.#deferred.length = m.deferred;
  }

  async checkWrite(
    ctx: LakeContext, txn: LakeTransaction, table: TableMetadata, ref: string,
    columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined,
  ): Promise<void> {
    const constraints = uniqueConstraintsOf(table);
    if (constraints.length === 0) return;
    const rows = writeRows(table, columns, ops);
    const slot = slotOf(table, ref);
    const found: WrittenValue[] = [];
    for (const c of constraints) {
      const idx = columnIndexes(table, c);
      const types = idx.map((i) => table.columns[i]!.type);
      if (isDeferred(this.#modes, table.id, c)) {
        // Duplicates may come and go until COMMIT: only what the transaction leaves counts.
        for (const i of rows.live) {
          const values = idx.map((k) => columns[k]![i]);
          const key = keyOf(c, types, values);
          if (key !== undefined) found.push({ slot, constraint: c, key, values, pk: isKeyed(table) ? rows.pkOf(i) : undefined });
        }
        if (!this.#deferred.some((d) => d.table.id === table.id && d.ref === ref && d.constraint.name === c.name)) this.#deferred.push({ table, ref, constraint: c });
        continue;
      }
      const all = new Set<unknown>();
      // Values a row already held (an UPDATE's +U whose -U had the same key and value) need no look at the table.
      const mine = new Map<unknown, number>();
      for (const i of rows.live) {
        const values = idx.map((k) => columns[k]![i]);
        const key = keyOf(c, types, values);
        if (key === undefined) continue;
        if (all.has(key)) throw violation(table, c, values);
        all.add(key);
        const kept = ops !== undefined && ops[i] === '+U' && i > 0 && ops[i - 1] === '-U' && isKeyed(table)
          && rows.pkOf(i - 1) === rows.pkOf(i) && keyOf(c, types, idx.map((k) => columns[k]![i - 1])) === key;
        if (kept) continue;
        mine.set(key, i);
        found.push({ slot, constraint: c, key, values, pk: isKeyed(table) ? rows.pkOf(i) : undefined });
      }
      if (mine.size === 0) continue;
      const firstValues = [...mine.values()].map((i) => columns[idx[0]!]![i]);
      const req: ScanRequest = { table, at: { kind: 'ref', name: ref }, txn };
      if (!(await filesMayHold(ctx, req, table, c, firstValues))) continue;
      for await (const row of tableRows(ctx, req, table, c, firstValues)) {
        if (row.pk !== undefined && rows.superseded.has(row.pk)) continue;
        const i = mine.get(row.key);
        if (i !== undefined) throw violation(table, c, idx.map((k) => columns[k]![i]));
      }
    }
    this.#written.push(...found);
    for (const pk of rows.superseded) this.#superseded.push({ slot, pk });
  }

  /**
   * COMMIT's check of INITIALLY DEFERRED constraints: each value the transaction wrote is
   * held by at most one row of the table as the transaction leaves it.
   */
  async checkDeferred(
    ctx: LakeContext, txn: LakeTransaction,
    which: (d: { readonly table: TableMetadata; readonly constraint: UniqueConstraint }) => boolean = () => true,
  ): Promise<void> {
    for (const d of this.#deferred) {
      if (!which(d)) continue;
      const { table, ref, constraint: c } = d;
      const slot = slotOf(table, ref);
      const mine = new Map(this.#written.filter((w) => w.slot === slot && w.constraint.name === c.name).map((w) => [w.key, w.values]));
      if (mine.size === 0) continue;
      const firstValues = [...new Set([...mine.values()].map((v) => v[0]))];
      const seen = new Set<unknown>();
      const req: ScanRequest = { table, at: { kind: 'ref', name: ref }, txn };
      for await (const row of tableRows(ctx, req, table, c, firstValues)) {
        const values = mine.get(row.key);
        if (values === undefined) continue;
        if (seen.has(row.key)) throw violation(table, c, values);
        seen.add(row.key);
      }
    }
  }

  /**
   * 32-bit hashes of the unique values this transaction wrote to (table, ref), salted by
   * constraint. The group commit compares them, beside the primary-key hashes, with what
   * earlier commits of its batch wrote: a commit whose values none of them wrote still
   * passes checkCommit after them, so it need not fail behind them (LogCommitPart.rebaseKeys).
   * A collision only costs a retry.
   */
  writtenValueHashes(table: TableMetadata, ref: string): Uint32Array {
    const slot = slotOf(table, ref);
    const written = this.#written.filter((w) => w.slot === slot);
    return Uint32Array.from(written, (w) => hashKey(SALTED_VALUE_TYPES, [`${w.constraint.name}\u0000${String(w.key)}`]));
  }

  /**
   * Re-checks what this transaction wrote to (table, ref) against commits after `pinned`
   * up to `head`. True when the commit must insist on `head` (it wrote unique values).
   */
  async checkCommit(ctx: LakeContext, table: TableMetadata, ref: string, pinned: bigint, head: bigint): Promise<boolean> {
    const slot = slotOf(table, ref);
    const written = this.#written.filter((w) => w.slot === slot);
    if (written.length === 0) return false;
    if (head === pinned) return true;
    const { catalog, storage } = ctx;
    const newer = snapshotsSince(catalog, table.id, head, pinned)
      .filter((s) => catalog.getSnapshot(table.id, s)?.operation !== 'optimize');
    const files = newer.length === 0 ? [] : filesWithRowsOf(catalog, table.id, newer).filter((f) => (f.store === 'change' || f.store === 'base') && f.path !== '');
    if (files.length === 0) return true;
    const superseded = new Set(this.#superseded.filter((s) => s.slot === slot).map((s) => s.pk));
    // Append tables: rows by position, followed through compactions that moved them since.
    const concurrent = isKeyed(table) ? undefined : concurrentRowsAtHead(catalog, table.id, files);
    for (const c of uniqueConstraintsOf(table)) {
      const mine = new Map(written.filter((w) => w.constraint.name === c.name).map((w) => [w.key, w.values]));
      if (mine.size === 0) continue;
      const idx = columnIndexes(table, c);
      const cols = idx.map((i) => table.columns[i]!);
      const types = cols.map((col) => col.type);
      // Cheap first: do the concurrent files hold any of these values at all?
      const candidates: unknown[][] = [];
      for (const f of files) {
        for (const b of await readDataFile(storage, f.path, cols)) {
          const readers = cols.map((col) => columnReaderOf(b, physicalName(col.fieldId), col.type));
          for (let r = 0; r < b.numRows; r++) {
            const values = readers.map((rd) => rd.get(r));
            const key = keyOf(c, types, values);
            if (key !== undefined && mine.has(key)) candidates.push(values);
          }
        }
      }
      if (candidates.length === 0) continue;
      const req: ScanRequest = { table, at: { kind: 'snapshot', id: head } };
      for await (const row of tableRows(ctx, req, table, c, candidates.map((v) => v[0]))) {
        if (row.pk !== undefined ? superseded.has(row.pk) : !concurrent!(row.fileId!, row.position!)) continue;
        const values = mine.get(row.key);
        if (values !== undefined) throw violation(table, c, values);
      }
    }
    return true;
  }
}

/** The live after-images of a write and the primary keys it replaces (keyed tables: the last row of a key wins). */
function writeRows(table: TableMetadata, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined): WriteRows {
  const n = columns[0]?.length ?? 0;
  if (!isKeyed(table)) {
    const live: number[] = [];
    for (let i = 0; i < n; i++) if (ops === undefined || ops[i] === '+I' || ops[i] === '+U') live.push(i);
    return { live, superseded: new Set(), pkOf: () => '' };
  }
  const pkIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const pkTypes = pkIdx.map((i) => table.columns[i]!.type);
  const pks: unknown[] = new Array<unknown>(n);
  const last = new Map<unknown, number>();
  for (let i = 0; i < n; i++) {
    pks[i] = encodeKey(pkTypes, pkIdx.map((k) => columns[k]![i]));
    last.set(pks[i]!, i);
  }
  const live: number[] = [];
  for (const i of last.values()) if (ops === undefined || ops[i] === '+I' || ops[i] === '+U') live.push(i);
  live.sort((a, b) => a - b);
  return { live, superseded: new Set(last.keys()), pkOf: (i) => pks[i] };
}

interface TableRow {
  readonly key: unknown;
  readonly pk: unknown;
  readonly fileId: number | undefined;
  readonly position: number | undefined;
}

/** Rows of the table (as `req` reads it) whose first constrained column is among `firstValues`, as constraint keys. */
async function* tableRows(
  ctx: LakeContext, req: ScanRequest, table: TableMetadata, c: UniqueConstraint, firstValues: readonly unknown[],
): AsyncIterable<TableRow> {
  const keyed = isKeyed(table);
  const idx = columnIndexes(table, c);
  const types = idx.map((i) => table.columns[i]!.type);
  const pkCols = keyed ? table.primaryKey.map((k) => table.columns.find((col) => col.name === k)!) : [];
  const projection = [...new Set([...c.columns, ...pkCols.map((col) => col.name), ...(keyed ? [] : [ROW_ID_COLUMN])])];
  const filters = valueFilters(c.columns[0]!, types[0]!, firstValues);
  const plan = planScan(ctx, { ...req, projection, filters });
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      const readers = c.columns.map((name, k) => columnReaderOf(b, name, types[k]!));
      const pkReaders = pkCols.map((col) => columnReaderOf(b, col.name, col.type));
      const rowIds = keyed ? undefined : columnReaderOf(b, ROW_ID_COLUMN, { kind: 'int8' });
      for (let r = 0; r < b.numRows; r++) {
        const key = keyOf(c, types, readers.map((rd) => rd.get(r)));
        if (key === undefined) continue;
        yield {
          key,
          pk: keyed ? encodeKey(pkCols.map((col) => col.type), pkReaders.map((rd) => rd.get(r))) : undefined,
          fileId: rowIds === undefined ? undefined : Number((rowIds.get(r) as bigint) >> 32n),
          position: rowIds === undefined ? undefined : Number((rowIds.get(r) as bigint) & 0xffffffffn),
        };
      }
    }
  }
}

/**
 * Whether any data file the read would open physically holds one of the values in the
 * constraint's first column: a live row holding a value must lie in some file, so when
 * none does there is nothing to merge. This reads one column of each file, raw, instead
 * of merging every key of the table.
 */
async function filesMayHold(ctx: LakeContext, req: ScanRequest, table: TableMetadata, c: UniqueConstraint, firstValues: readonly unknown[]): Promise<boolean> {
  const col = table.columns.find((x) => x.name === c.columns[0])!;
  const wanted = new Set<unknown>();
  for (const v of firstValues) if (v !== null && v !== undefined) wanted.add(encodeKey([col.type], [v]));
  // NULLS NOT DISTINCT with a NULL among the values: NULLs are not looked for here.
  if (c.nullsNotDistinct === true && firstValues.some((v) => v === null || v === undefined)) return true;
  if (wanted.size === 0) return false;
  const filters = valueFilters(col.name, col.type, firstValues);
  const plan = planScan(ctx, { ...req, projection: [col.name], filters });
  // The filters cut rows while the column is decoded (typed selections over its buffers).
  const pick = (b: RecordBatch): Int32Array | undefined => filterSelection(b, filters, [col]);
  for (const task of plan.tasks) {
    for (const f of [...task.baseFiles, ...task.changeFiles]) {
      const source = bytesSource(await readDataFileBytes(ctx.storage, f.path));
      for (const { batch, rows } of await decodeDataFileSelected(source, f.path, [col], [], f.rowGroups, pick)) {
        const rd = columnReaderOf(batch, physicalName(col.fieldId), col.type);
        const n = rows === undefined ? batch.numRows : rows.length;
        for (let j = 0; j < n; j++) {
          const v = rd.get(rows === undefined ? j : rows[j]!);
          if (v !== null && wanted.has(encodeKey([col.type], [v]))) return true;
        }
      }
    }
  }
  return false;
}

/**
 * Few values: an IN filter (tested per value, so kept short). Many: their [min, max]
 * range, which prunes files and row groups by statistics as well and costs one
 * comparison a row; the rows are then matched by key in JS.
 */
const IN_FILTER_MAX_VALUES = 64;

function valueFilters(column: string, type: SqlType, values: readonly unknown[]): ScanFilter[] {
  if (values.some((v) => v === null || v === undefined)) return [];
  const distinct = [...new Set(values)];
  if (distinct.length <= IN_FILTER_MAX_VALUES) return [{ column, op: 'in', values: distinct }];
  const order = valueOrderOf(type);
  if (order === undefined) return [];
  let min = distinct[0];
  let max = distinct[0];
  for (const v of distinct) {
    if (order(v, min) < 0) min = v;
    if (order(v, max) > 0) max = v;
  }
  return [{ column, op: '>=', value: min }, { column, op: '<=', value: max }];
}

function columnReaderOf(b: RecordBatch, name: string, type: SqlType): { get(i: number): unknown } {
  const v = b.getChild(name);
  if (v === null) throw new FloeError(SqlState.internalError, `column "${name}" is missing from a scan batch`);
  return columnReader(v, type);
}

function columnIndexes(table: TableMetadata, c: UniqueConstraint): number[] {
  return c.columns.map((name) => {
    const i = table.columns.findIndex((col: ColumnMetadata) => col.name === name);
    if (i < 0) throw new FloeError(SqlState.undefinedColumn, `column "${name}" named in key does not exist`);
    return i;
  });
}

/** writtenValueHashes hashes `constraint NUL key` as one text value. */
const SALTED_VALUE_TYPES: readonly SqlType[] = [{ kind: 'text' }];

function slotOf(table: TableMetadata, ref: string): string {
  return `${table.id}\u0000${ref}`;
}

/** The constraint key of a row's values; undefined when a NULL makes it distinct from every other. */
function keyOf(c: UniqueConstraint, types: readonly SqlType[], values: readonly unknown[]): unknown {
  if (c.nullsNotDistinct !== true && values.some((v) => v === null || v === undefined)) return undefined;
  return encodeKey(types, values);
}

/**
 * Types whose canonical values are JS primitives equal exactly when the SQL values are
 * (numbers, bigints, strings, booleans): a one-column key of them is the value itself,
 * which spares the serialization per row. Not floats (-0, NaN), numeric ('1.0' = '1.00'),
 * bpchar (trailing blanks) or bytea.
 */
const PRIMITIVE_KEY_KINDS = new Set([
  'bool', 'int2', 'int4', 'int8', 'text', 'varchar', 'name', 'char', 'date', 'time', 'timestamp', 'timestamptz', 'timetz', 'uuid',
  'oid', 'regclass', 'regtype', 'regproc', 'regprocedure',
]);

/** A value's identity under a key of these types; serialized (key-serializer.ts) unless a one-column primitive key. */
function encodeKey(types: readonly SqlType[], values: readonly unknown[]): unknown {
  if (types.length === 1 && PRIMITIVE_KEY_KINDS.has(types[0]!.kind)) {
    const v = values[0];
    return v === undefined ? null : v;
  }
  let out = '';
  for (let k = 0; k < types.length; k++) {
    const v = values[k];
    if (v === null || v === undefined) { out += 'N;'; continue; }
    const bytes = keyValueBytes(types[k]!, v);
    out += `${bytes.length}:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')};`;
  }
  return out;
}

function violation(table: TableMetadata, c: UniqueConstraint, values: readonly unknown[]): FloeError {
  const types = c.columns.map((name) => table.columns.find((col) => col.name === name)!.type);
  return new FloeError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${c.name}"`, {
    detail: `Key (${c.columns.join(', ')})=(${values.map((v, k) => keyValueText(types[k]!, v)).join(', ')}) already exists.`,
  });
}

/**
 * Whether the table's current rows already break a new unique constraint (ALTER TABLE
 * ADD UNIQUE, CREATE UNIQUE INDEX): PostgreSQL's 23505 `could not create unique index`.
 */
export async function checkExistingUnique(ctx: LakeContext, table: TableMetadata, c: UniqueConstraint): Promise<void> {
  const idx = columnIndexes(table, c);
  const types = idx.map((i) => table.columns[i]!.type);
  const plan = planScan(ctx, { table, projection: [...c.columns] });
  const seen = new Set<unknown>();
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      const readers = c.columns.map((name, k) => columnReaderOf(b, name, types[k]!));
      for (let r = 0; r < b.numRows; r++) {
        const values = readers.map((rd) => rd.get(r));
        const key = keyOf(c, types, values);
        if (key === undefined) continue;
        if (seen.has(key)) {
          throw new FloeError(SqlState.uniqueViolation, `could not create unique index "${c.name}"`, {
            detail: `Key (${c.columns.join(', ')})=(${values.map((v, k) => keyValueText(types[k]!, v)).join(', ')}) is duplicated.`,
          });
        }
        seen.add(key);
      }
    }
  }
}
