import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { chCopyText } from './tpcc-generator.js';
import type { ChBatch, TpccGenerator } from './tpcc-generator.js';
import { CH_TABLES, chTable, createChTableSql } from './tpcc-schema.js';
import { CH_VIEWS } from './ch-queries.js';
import type { ChTableName } from './tpcc-schema.js';

export interface ChLoadResult {
  readonly rows: ReadonlyMap<ChTableName, number>;
  readonly seconds: number;
}

/**
 * Creates the 12 keyed tables through the wire (with `properties` as table properties,
 * e.g. self-optimizing.enabled = false) and loads the generator's rows with COPY FROM
 * STDIN, one COPY (one commit) per table. `onBatch` sees every batch too, so a peer can
 * load the very same rows.
 */
export async function loadChBenchmark(
  url: string,
  gen: TpccGenerator,
  opts: { readonly properties?: Readonly<Record<string, string>>; readonly onBatch?: (b: ChBatch) => Promise<void> | void; readonly log?: (line: string) => void } = {},
): Promise<ChLoadResult> {
  const t0 = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows = new Map<ChTableName, number>();
  try {
    for (const t of CH_TABLES) await client.query(createChTableSql(t, opts.properties));
    for (const v of CH_VIEWS) await client.query(v);
    // One COPY per table (one commit, so each table starts as one change file per node, not one per batch).
    const batches = gen.batches()[Symbol.iterator]();
    const cursor: ChBatchCursor = { batches, next: batches.next(), rows: 0 };
    while (cursor.next.done !== true) {
      const table = cursor.next.value.table;
      const cols = chTable(table).columns.map((c) => c.name).join(', ');
      cursor.rows = 0;
      await pipeline(Readable.from(tableCopyText(cursor, table, opts.onBatch)), client.query(copyFrom(`COPY ${table} (${cols}) FROM STDIN`)));
      rows.set(table, cursor.rows);
      opts.log?.(`  ${table}: ${cursor.rows.toLocaleString('en-US')} rows`);
    }
  } finally {
    await client.end();
  }
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

/** The generator's batches, read one ahead: `next` is the batch not yet copied; `rows` counts the rows of the table being copied. */
interface ChBatchCursor {
  readonly batches: Iterator<ChBatch>;
  next: IteratorResult<ChBatch>;
  rows: number;
}

/** COPY text of the cursor's batches while they are of `table`, each shown to `onBatch` first. */
async function* tableCopyText(cursor: ChBatchCursor, table: ChTableName, onBatch: ((b: ChBatch) => Promise<void> | void) | undefined): AsyncGenerator<string> {
  while (cursor.next.done !== true && cursor.next.value.table === table) {
    const batch = cursor.next.value;
    await onBatch?.(batch);
    cursor.rows += batch.rows.length;
    yield chCopyText(batch);
    cursor.next = cursor.batches.next();
  }
}
