import type { NewFileRecord } from '../catalog/catalog.js';
import type { FilePlacement } from '../format/data-file-writer.js';
import type { StorageConfig } from '../storage/storage-config.js';
import type { ColumnMetadata } from '../table/table-metadata.js';

/**
 * One group of an append table's data files rewritten as one file: the kept rows of
 * every input, in input order, written under the table's current columns. Plain data
 * (structured-clonable), so it can run on an optimizer worker thread; it reads no catalog.
 * The keyed variant is lakeopt's; NodeRewriteTask is the union of both, told apart by `kind`.
 */
export interface AppendFilesRewriteTask {
  readonly kind: 'append-files';
  readonly storage: StorageConfig;
  readonly tableId: number;
  readonly columns: readonly ColumnMetadata[];
  readonly inputs: readonly AppendRewriteInput[];
  readonly placement: FilePlacement;
  /** Written as the output's file seq (the newest input's). */
  readonly seq: bigint;
}

export interface AppendRewriteInput {
  readonly path: string;
  readonly rowCount: number;
  /** Ascending positions to leave out (the file's deletion vector when the optimizer read it). */
  readonly deleted: Uint32Array;
}

export interface AppendFilesRewriteResult {
  readonly kind: 'append-files';
  /** The stored output (durable, not yet committed); undefined when every row was deleted. */
  readonly file: NewFileRecord | undefined;
  /** Per input, the rows it kept (so the committer knows each input's offset in the output). */
  readonly keptRows: readonly number[];
  readonly rowsIn: number;
}
