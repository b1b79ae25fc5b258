import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyText } from '../../src/tools/tpch/copy-text.js';
import type { TpchBatch } from '../../src/tools/tpch/tpch-generator.js';
import { createTableSql, TPCH_TABLES, tpchTable } from '../../src/tools/tpch/tpch-schema.js';

/** The eight tables in PostgreSQL, with their primary keys (upserts use ON CONFLICT on them). */
export async function createPostgresTables(client: pg.Client): Promise<void> {
  for (const t of TPCH_TABLES) await client.query(createTableSql(t));
}

async function copyInto(client: pg.Client, table: string, batch: TpchBatch): Promise<void> {
  const sink = client.query(copyFrom(`COPY ${table} FROM STDIN`));
  await pipeline(Readable.from([copyText(batch)]), sink);
}

export async function copyBatchesToPostgres(client: pg.Client, batches: Iterable<TpchBatch>): Promise<void> {
  for (const b of batches) await copyInto(client, b.table, b);
  await client.query('ANALYZE');
}

/** The same changes as Floe's upserts: COPY into a staging table, then INSERT … ON CONFLICT DO UPDATE. */
export async function upsertBatchesToPostgres(client: pg.Client, batches: Iterable<TpchBatch>): Promise<void> {
  for (const b of batches) {
    const t = tpchTable(b.table);
    const stage = `stage_${t.name}`;
    await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${t.name})`);
    await client.query(`TRUNCATE ${stage}`);
    await copyInto(client, stage, b);
    const set = t.columns.filter((c) => !t.primaryKey.includes(c.name)).map((c) => `${c.name} = EXCLUDED.${c.name}`).join(', ');
    await client.query(`INSERT INTO ${t.name} SELECT * FROM ${stage} ON CONFLICT (${t.primaryKey.join(', ')}) DO UPDATE SET ${set}`);
  }
  await client.query('ANALYZE');
}
