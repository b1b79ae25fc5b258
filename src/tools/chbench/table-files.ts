import pg from 'pg';
import { OPTIMIZING_PROPERTIES } from '../../lake/index.js';
import { CH_TABLES } from './tpcc-schema.js';
import type { ChTableName } from './tpcc-schema.js';

/** A table's files at one moment, and its read amplification beside its target. */
export interface TableFiles {
  readonly table: ChTableName;
  readonly baseFiles: number;
  readonly changeFiles: number;
  /**
   * The most change files a scan merges for one frontier bucket node (the node's pending
   * change files from `t$buckets`) — what `self-optimizing.read-amplification.max` bounds.
   */
  readonly readAmplification: number;
  readonly readAmplificationMax: number;
}

const DEFAULT_READ_AMPLIFICATION_MAX = Number(OPTIMIZING_PROPERTIES['self-optimizing.read-amplification.max']!.defaultText);

/** Files and read amplification of every CH table, read through the wire from `t$files`, `t$buckets` and SHOW TBLPROPERTIES. */
export async function readTableFiles(url: string): Promise<TableFiles[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: TableFiles[] = [];
    for (const t of CH_TABLES) {
      const files = await client.query<{ store: string; n: string }>(`SELECT store, count(*) AS n FROM "${t.name}$files" GROUP BY store`);
      const count = (store: string) => Number(files.rows.find((r) => r.store === store)?.n ?? 0);
      const nodes = await client.query<{ m: string | null }>(`SELECT max(pending_change_files) AS m FROM "${t.name}$buckets" WHERE is_frontier`);
      const props = await client.query<{ key: string; value: string }>(`SHOW TBLPROPERTIES ${t.name}`);
      const max = props.rows.find((r) => r.key === 'self-optimizing.read-amplification.max')?.value;
      out.push({
        table: t.name,
        baseFiles: count('base'),
        changeFiles: count('change'),
        readAmplification: Number(nodes.rows[0]?.m ?? 0),
        readAmplificationMax: max === undefined ? DEFAULT_READ_AMPLIFICATION_MAX : Number(max),
      });
    }
    return out;
  } finally {
    await client.end();
  }
}
