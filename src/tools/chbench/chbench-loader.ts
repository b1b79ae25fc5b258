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
    let next = batches.next();
    while (next.done !== true) {
      const table = next.value.table;
      const cols = chTable(table).columns.map((c) => c.name).join(', ');
      let n = 0;
      const text = async function* (): AsyncGenerator<string> {
        while (next.done !== true && next.value.table === table) {
          const batch = next.value;
          await opts.onBatch?.(batch);
          n += batch.rows.length;
          yield chCopyText(batch);
          next = batches.next();
        }
      };
      await pipeline(Readable.from(text()), client.query(copyFrom(`COPY ${table} (${cols}) FROM STDIN`)));
      rows.set(table, n);
      opts.log?.(`  ${table}: ${n.toLocaleString('en-US')} rows`);
    }
  } finally {
    await client.end();
  }
  return { rows, seconds: (performance.now() - t0) / 1000 };
}
