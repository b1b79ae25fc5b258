import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { chCopyText } from './tpcc-generator.js';
import type { ChBatch, TpccGenerator } from './tpcc-generator.js';
import { CH_TABLES, chTable, createChTableSql } from './tpcc-schema.js';
import type { ChTableName } from './tpcc-schema.js';

export interface ChLoadResult {
  readonly rows: ReadonlyMap<ChTableName, number>;
  readonly seconds: number;
}

/**
 * Creates the 12 keyed tables through the wire (with `properties` as table properties,
 * e.g. self-optimizing.enabled = false) and loads the generator's rows with COPY FROM
 * STDIN, one COPY (one commit) per batch. `onBatch` sees every batch too, so a peer can
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
    for (const batch of gen.batches()) {
      const cols = chTable(batch.table).columns.map((c) => c.name).join(', ');
      await pipeline(Readable.from([chCopyText(batch)]), client.query(copyFrom(`COPY ${batch.table} (${cols}) FROM STDIN`)));
      await opts.onBatch?.(batch);
      const n = (rows.get(batch.table) ?? 0) + batch.rows.length;
      rows.set(batch.table, n);
      opts.log?.(`  ${batch.table}: ${n.toLocaleString('en-US')} rows`);
    }
  } finally {
    await client.end();
  }
  return { rows, seconds: (performance.now() - t0) / 1000 };
}
