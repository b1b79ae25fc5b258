import type { RecordBatch } from 'apache-arrow';
import { FloeError, isFloeError } from '../../common/floe-error.js';
import { mergeEngineOf, mergesRows } from '../merge/merge-engine.js';
import { SqlState } from '../../common/sqlstate.js';
import { buildBatch } from '../arrow/batch-builder.js';
import { columnReader } from '../arrow/column-reader.js';
import { encodeKeyAccessors } from '../bucket/key-encoding.js';
import { HEAD_MOVED } from '../catalog/catalog.js';
import type { NewFileRecord, TableRecord } from '../catalog/catalog.js';
import { encodeDataFile, fileColumns, storeDataFile } from '../format/data-file-writer.js';
import { withOptimizerRegistration } from '../optimize/optimizer-registration.js';
import { executeScanTask } from '../scan/execute-scan-task.js';
import { keyBitmapOf } from '../bucket/key-bitmap.js';
import { planScan } from '../scan/plan-scan.js';
import { checkExistingUnique } from '../txn/check-unique.js';
import { gather, routeRows } from '../txn/route-rows.js';
import type { LakeContext } from '../warehouse/lake-context.js';
import { nowMicros, toTableMetadata } from '../warehouse/lake-context.js';
import { keyTypesOf } from './table-layout.js';
import type { ColumnMetadata, TableMetadata } from './table-metadata.js';

/** PostgreSQL's default name of a table's primary key, which Floe's is always. */
export function primaryKeyName(table: { readonly name: string }): string {
  return `${table.name}_pkey`;
}

/**
 * ALTER TABLE … ADD PRIMARY KEY (`primaryKey` non-empty) or the primary key's removal
 * (DROP CONSTRAINT t_pkey, DROP COLUMN of a key column): a keyed table and an append
 * table lay their files out differently, so the live rows of main are read, checked and
 * written again in the new layout, and one catalog transaction swaps the files and the
 * table's key (Catalog.rewriteTable). A failure anywhere before that commit leaves the
 * table as it was (the files written are orphans, and the registration that kept orphan
 * cleanup off them ends). Earlier snapshots hold files of the old layout: they are
 * expired by the same commit, so time travel before it is 22023. Branches and tags would
 * keep such files readable, so a table with any is refused. The rows are held in memory.
 */
export async function rewriteTableLayout(ctx: LakeContext, t: TableRecord, primaryKey: readonly string[]): Promise<TableRecord> {
  // A commit that lands meanwhile (a writer, the self-optimizing service) moves main's head: read again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await rewriteOnce(ctx, ctx.catalog.getTableById(t.id) ?? t, primaryKey);
    } catch (e) {
      if (!(isFloeError(e) && e.detail === HEAD_MOVED) || attempt >= MAX_ATTEMPTS) throw e;
    }
  }
}

const MAX_ATTEMPTS = 5;

async function rewriteOnce(ctx: LakeContext, t: TableRecord, primaryKey: readonly string[]): Promise<TableRecord> {
  // rows were combined by the merge engine, by the old key: another key would recombine nothing
  if (mergesRows(mergeEngineOf(t))) {
    throw new FloeError(SqlState.featureNotSupported, `cannot ${primaryKey.length > 0 ? 'change' : 'drop'} the primary key of table "${t.name}" (merge-engine ${mergeEngineOf(t).kind})`, {
      hint: 'Its rows were combined by key: copy them into a new table with INSERT … SELECT.',
    });
  }
  const refs = ctx.catalog.listRefs(t.id).filter((r) => r.name !== 'main');
  if (refs.length > 0) {
    throw new FloeError(SqlState.featureNotSupported, `cannot ${primaryKey.length > 0 ? 'add' : 'drop'} the primary key of table "${t.name}" while it has branches or tags`, {
      hint: `Changing the primary key rewrites the table; drop ${refs.map((r) => `${r.kind} "${r.name}"`).join(', ')} first.`,
    });
  }
  const current = toTableMetadata(t);
  const head = ctx.catalog.getRef(t.id, 'main')!.snapshotId;
  const columns = t.columns.map((c) => (primaryKey.includes(c.name) ? { ...c, nullable: false } : c));
  const target: TableMetadata = { ...current, columns, primaryKey };
  if (primaryKey.length > 0) {
    // PostgreSQL builds the index first (23505), then checks NOT NULL (23502).
    await checkExistingUnique(ctx, current, { kind: 'unique', name: primaryKeyName(t), columns: primaryKey });
  }
  const values = await readLiveRows(ctx, current, head);
  for (const k of primaryKey) {
    const i = t.columns.findIndex((c) => c.name === k);
    if (values[i]!.some((v) => v === null || v === undefined)) {
      throw new FloeError(SqlState.notNullViolation, `column "${k}" of relation "${t.name}" contains null values`);
    }
  }
  return withOptimizerRegistration(ctx, async (txnId, seq) => {
    const addFiles = await writeRows(ctx, target, values, seq);
    const removeFileIds = ctx.catalog.visibleFiles(t.id, head).map((f) => f.fileId);
    return ctx.catalog.rewriteTable(t.id, { primaryKey: [...primaryKey], columns }, {
      tableId: t.id, branch: 'main', operation: 'rewrite', expectHead: head, schemaId: t.schemaId,
      summary: { 'added-files': String(addFiles.length), 'added-rows': String(values[0]?.length ?? 0), seq: String(seq), 'primary-key': primaryKey.join(',') },
      addFiles, removeFileIds,
    }, txnId, nowMicros());
  }, 'rewrite');
}

/** Every live row of main's head, one array of canonical values per column. */
async function readLiveRows(ctx: LakeContext, table: TableMetadata, head: bigint): Promise<unknown[][]> {
  const out: unknown[][] = table.columns.map(() => []);
  const plan = planScan(ctx, { table, at: { kind: 'snapshot', id: head }, projection: table.columns.map((c) => c.name) });
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) appendBatch(out, b, table.columns);
  }
  return out;
}

function appendBatch(out: unknown[][], b: RecordBatch, columns: readonly ColumnMetadata[]): void {
  columns.forEach((c, i) => {
    const v = b.getChild(c.name);
    if (v === null) throw new FloeError(SqlState.internalError, `column "${c.name}" is missing from a scan batch`);
    const reader = columnReader(v, c.type);
    const column = out[i]!;
    for (let r = 0; r < b.numRows; r++) column.push(reader.get(r));
  });
}

/** The rows as files of `table`'s layout: +I change files at each partition's root node (keyed), or base files (append). */
async function writeRows(ctx: LakeContext, table: TableMetadata, values: readonly (readonly unknown[])[], seq: bigint): Promise<NewFileRecord[]> {
  const n = values[0]?.length ?? 0;
  if (n === 0) return [];
  const keyed = table.primaryKey.length > 0;
  const keyIdx = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const keyTypes = keyTypesOf(table);
  const hashes = keyed ? encodeKeyAccessors(keyTypes, keyIdx.map((k) => ({ get: (i: number) => values[k]![i] })), n, table.primaryKey).hashes : undefined;
  const groups = routeRows(table, values, n, keyed ? keyIdx : undefined, keyTypes, () => undefined, hashes);
  const fcols = fileColumns(table.columns, table.primaryKey, keyed ? 'change' : 'append');
  const files: NewFileRecord[] = [];
  let offset = 0;
  for (const g of groups) {
    const vals = gather(values, g.rows);
    const rows = g.rows?.length ?? n;
    if (keyed) vals.push(new Array<string>(rows).fill('+I'));
    const file = encodeDataFile(buildBatch(fcols, vals), table.columns);
    const keyBitmap = hashes === undefined ? undefined : keyBitmapOf(g.rows === undefined ? hashes : Uint32Array.from(g.rows, (i) => hashes[i]!));
    const rec = await storeDataFile(ctx.storage, table.id, keyBitmap === undefined ? file : { ...file, keyBitmap }, g.placement, keyed ? 'change' : 'base', seq, offset);
    offset += rows;
    files.push(rec);
  }
  return files;
}
