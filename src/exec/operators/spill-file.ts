import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { decodeBatch, encodeBatch } from '../arrow/columnar-batch.js';
import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import { valuesColumn } from '../arrow/column-source.js';
import type { OutputColumn } from '../plan/physical-plan.js';

/** Bytes every query of this process has written to spill files since it started (a metric). */
let spilledBytesTotal = 0;

export function spilledBytes(): number {
  return spilledBytesTotal;
}

/**
 * A query's spill directory: created on first use under the OS temp dir (or
 * FLOE_SPILL_DIR), removed with everything in it when the query ends, whether
 * it finished, failed or was cancelled.
 */
export class SpillDirectory {
  #path: string | undefined;
  #next = 0;

  newFile(prefix: string): string {
    this.#path ??= mkdtempSync(join(process.env.FLOE_SPILL_DIR ?? tmpdir(), 'floe-spill-'));
    return join(this.#path, `${prefix}-${this.#next++}.arrows`);
  }

  remove(): void {
    if (this.#path !== undefined) rmSync(this.#path, { recursive: true, force: true });
    this.#path = undefined;
  }
}

/**
 * A sequence of batches written to a temporary file: each batch is one Arrow
 * IPC stream behind a 4-byte length, so a reader holds one batch at a time.
 * Spill files live no longer than the query and need no fsync.
 */
export class SpillWriter {
  readonly #file: FileHandle;
  readonly #columns: readonly OutputColumn[];

  private constructor(file: FileHandle, columns: readonly OutputColumn[]) {
    this.#file = file;
    this.#columns = columns;
  }

  static async create(path: string, columns: readonly OutputColumn[]): Promise<SpillWriter> {
    return new SpillWriter(await open(path, 'w'), columns);
  }

  async write(values: readonly (readonly unknown[])[], numRows: number): Promise<void> {
    const ipc = tableToIPC(new Table([encodeBatch(this.#columns, values.map(valuesColumn), numRows)]), 'stream');
    const header = Buffer.alloc(4);
    header.writeUInt32LE(ipc.byteLength);
    await this.#file.write(header);
    await this.#file.write(ipc);
    spilledBytesTotal += header.byteLength + ipc.byteLength;
  }

  async close(): Promise<void> {
    await this.#file.close();
  }
}

/** Reads back the batches of a SpillWriter's file, in order. */
export async function* readSpillFile(path: string, columns: readonly OutputColumn[]): AsyncGenerator<ColumnarBatch> {
  const types = columns.map((c) => c.type);
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(4);
    let at = 0;
    for (;;) {
      const { bytesRead } = await file.read(header, 0, 4, at);
      if (bytesRead === 0) return;
      const length = header.readUInt32LE(0);
      const body = Buffer.alloc(length);
      await file.read(body, 0, length, at + 4);
      at += 4 + length;
      for (const batch of tableFromIPC(body).batches) yield decodeBatch(batch, types);
    }
  } finally {
    await file.close();
  }
}
