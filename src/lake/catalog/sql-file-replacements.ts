import type { CatalogStatement } from './catalog-database.js';
import type { FileReplacement } from './catalog.js';

/**
 * The file_replacements table of the catalog: for each append-table file a
 * compaction rewrote, where its rows went (catalog.ts, FileReplacement). A file rewritten
 * on two branches has two rows. Rows are written by the compaction's own commit, so a
 * writer that sees the compaction's snapshot also sees the mapping.
 */
interface ReplacementRow { file_id: bigint; output_id: bigint; output_offset: bigint; dropped: Buffer }

type Sql = (q: string) => CatalogStatement;

/** Inserts a commit's replacements; `addedIds[i]` is the id the commit gave its i-th added file. */
export function insertFileReplacements(sql: Sql, tableId: number, replacements: readonly FileReplacement[], addedIds: readonly bigint[]): void {
  const ins = sql(`INSERT INTO file_replacements VALUES (?, ?, ?, ?, ?) ON CONFLICT (file_id, output_id)
    DO UPDATE SET table_id = excluded.table_id, output_offset = excluded.output_offset, dropped = excluded.dropped`);
  for (const r of replacements) {
    const output = r.outputFileId < 0 ? addedIds[-1 - r.outputFileId] : BigInt(r.outputFileId);
    if (output === undefined) throw new Error(`file replacement names staged file ${r.outputFileId}, which the commit does not add`);
    ins.run(r.fileId, tableId, output, r.outputOffset, Buffer.from(r.dropped.buffer, r.dropped.byteOffset, r.dropped.byteLength));
  }
}

export function selectFileReplacements(sql: Sql, tableId: number, fileIds: readonly number[]): FileReplacement[] {
  if (fileIds.length === 0) return [];
  return (sql('SELECT * FROM file_replacements WHERE table_id = ? AND file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, output_id')
    .all(tableId, JSON.stringify(fileIds)) as ReplacementRow[]).map((r) => ({
    fileId: Number(r.file_id), outputFileId: Number(r.output_id), outputOffset: Number(r.output_offset),
    dropped: new Uint32Array(r.dropped.buffer.slice(r.dropped.byteOffset, r.dropped.byteOffset + r.dropped.byteLength)),
  }));
}

/**
 * Drops replacements nobody can need: a row id of file F can only be held by a
 * transaction whose snapshot sees F, and expiry keeps every snapshot an open transaction
 * reads, so once F's file row is gone its row ids are gone too, unless a replacement of
 * an older file still leads into F (a chain A → F → G): those stay until A's go.
 */
export function pruneFileReplacements(sql: Sql, tableId: number): void {
  const prune = sql(`DELETE FROM file_replacements WHERE table_id = ?
    AND file_id NOT IN (SELECT file_id FROM files WHERE table_id = ?)
    AND file_id NOT IN (SELECT output_id FROM file_replacements WHERE table_id = ?)`);
  while (prune.run(tableId, tableId, tableId).changes > 0) { /* one link of each chain per pass */ }
}
