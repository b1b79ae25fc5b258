import type { RecordBatch } from 'apache-arrow';
import { columnReader } from '../arrow/column-reader.js';
import type { ColumnAccessor } from '../bucket/column-accessor.js';
import { encodeKeyAccessors } from '../bucket/key-encoding.js';
import { KeySet } from '../bucket/key-set.js';
import type { NewFileRecord } from '../catalog/catalog.js';
import type { Storage } from '../storage/storage.js';
import type { FrontierNode } from '../table/frontier.js';
import { keyTypesOf, physicalName } from '../table/table-layout.js';
import type { TableMetadata } from '../table/table-metadata.js';
import { candidatesFor } from './check-unique-keys.js';
import { KeyRangeFilter } from './key-range-filter.js';
import { KeyWinners, offerFileRows } from './key-winners.js';
import { partitionOf } from './route-rows.js';

/** What the transaction can see of a table: its pinned snapshot's files, its own staged files, the frontier. */
export interface LookupFiles {
  readonly visible: readonly NewFileRecord[];
  readonly staged: readonly NewFileRecord[];
  readonly frontier: ReadonlyMap<string, readonly FrontierNode[]>;
}

/** A blind statement's rows as the lookup changelog producer stores them. */
export interface ChangelogRows {
  /** One array per table column. */
  readonly columns: unknown[][];
  readonly ops: string[];
  /** The statement row each stored row came from (a -U/+U pair both name theirs). */
  readonly sources: number[];
}

/**
 * The lookup changelog producer at write time (docs/design-notes.md, "Complete changelogs"):
 * a blind statement's rows — upserts (`ops` undefined) or deletes by key (`ops` all '-D', the
 * other columns null) — become the changes they make, each key's row before them found
 * through the point-read structures (the same files, bitmaps and row-group ranges as the
 * primary-key check, every column decoded of the files that hold a key):
 * - an upsert of a live key: -U with the row it replaces, then +U; of an absent key: +I;
 * - a delete of a live key: -D with the whole deleted row; of an absent key: nothing.
 * Earlier rows of the statement count, so a key written twice gives two changes. A key whose
 * winner has a higher seq than this transaction (a younger one already wrote it, and the
 * merge rule hides this write) gives nothing: the write could never be seen.
 */
export async function lookupChangelogRows(
  storage: Storage, table: TableMetadata, files: LookupFiles, columns: readonly (readonly unknown[])[], ops: readonly string[] | undefined, seq: bigint,
): Promise<ChangelogRows> {
  const n = columns[0]?.length ?? 0;
  const keyIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const keys = encodeKeyAccessors(keyTypesOf(table), keyIdx.map((k) => ({ get: (i: number) => columns[k]![i] })), n, table.primaryKey);
  const set = new KeySet(keys);
  const winners = new KeyWinners(n);
  const found = new Map<number, { batch: RecordBatch; row: number }>();
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const partition = table.partitionBy.length === 0 ? () => '[]' : (r: number) => partitionOf(table, (c) => columns[c]![r]).key;
  const range = KeyRangeFilter.of(table.columns[keyIdx[0]!]!.type, columns[keyIdx[0]!]!);
  const candidates = candidatesFor({ keys, partitionOf: partition }, all, files.visible, files.staged, files.frontier).map((c) => ({ ...c, range }));
  await offerFileRows(storage, table, candidates, set, winners, (m, batch, row) => found.set(m, { batch, row }));

  const before = rowValues(table, found);
  const out: ChangelogRows = { columns: table.columns.map(() => []), ops: [], sources: [] };
  let source = 0;
  const emit = (op: string, row: readonly unknown[]): void => {
    for (let c = 0; c < row.length; c++) out.columns[c]!.push(row[c]);
    out.ops.push(op);
    out.sources.push(source);
  };
  // Each key's row after the statement's rows so far (null: absent); a hidden key is skipped throughout.
  const current = new Map<number, readonly unknown[] | null>();
  const mySeq = Number(seq);
  for (let r = 0; r < n; r++) {
    source = r;
    const m = set.indexOf(keys, r);
    if (winners.has(m) && winners.seq[m]! > mySeq) continue;
    const was = current.has(m) ? current.get(m)! : winners.live[m] === 1 ? before.get(m)! : null;
    const row = columns.map((c) => c[r]);
    if (ops?.[r] === '-D') {
      if (was !== null) emit('-D', was);
      current.set(m, null);
    } else {
      if (was === null) emit('+I', row);
      else { emit('-U', was); emit('+U', row); }
      current.set(m, row);
    }
  }
  return out;
}

/** The winning rows' values, one array per member in table column order. */
function rowValues(table: TableMetadata, found: ReadonlyMap<number, { batch: RecordBatch; row: number }>): Map<number, unknown[]> {
  const readers = new Map<RecordBatch, ColumnAccessor[]>();
  const out = new Map<number, unknown[]>();
  for (const [m, { batch, row }] of found) {
    let rs = readers.get(batch);
    if (rs === undefined) {
      rs = table.columns.map((c) => columnReader(batch.getChild(physicalName(c.fieldId))!, c.type));
      readers.set(batch, rs);
    }
    out.set(m, rs.map((r) => r.get(row)));
  }
  return out;
}
