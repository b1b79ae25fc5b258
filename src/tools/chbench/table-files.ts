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
  /** Where the read amplification came from: the service's own view when the gateway has it. */
  readonly source: 'floe_optimizing' | 't$buckets';
  /** The service's status and health score for the table (floe_optimizing), when present. */
  readonly status?: string;
  readonly healthScore?: number;
  /** Change rows a scan merges over the base (floe_optimizing), when present. */
  readonly pendingChangeRows?: number;
}

const DEFAULT_READ_AMPLIFICATION_MAX = Number(OPTIMIZING_PROPERTIES['self-optimizing.read-amplification.max']!.defaultText);

/**
 * Files and read amplification of every CH table, read through the wire: files from
 * `t$files`; read amplification and its target from the service's `floe_optimizing` view
 * when the gateway has one, else from `t$buckets` and SHOW TBLPROPERTIES.
 */
export async function readTableFiles(url: string): Promise<TableFiles[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const service = await serviceRows(client);
    const out: TableFiles[] = [];
    for (const t of CH_TABLES) {
      const files = await client.query<{ store: string; n: string }>(`SELECT store, count(*) AS n FROM "${t.name}$files" GROUP BY store`);
      const count = (store: string) => Number(files.rows.find((r) => r.store === store)?.n ?? 0);
      const nodes = await client.query<{ m: string | null }>(`SELECT max(pending_change_files) AS m FROM "${t.name}$buckets" WHERE is_frontier`);
      const props = await client.query<{ key: string; value: string }>(`SHOW TBLPROPERTIES ${t.name}`);
      const max = props.rows.find((r) => r.key === 'self-optimizing.read-amplification.max')?.value;
      const own = service?.get(t.name);
      out.push({
        table: t.name,
        baseFiles: count('base'),
        changeFiles: count('change'),
        readAmplification: own?.readAmplification ?? Number(nodes.rows[0]?.m ?? 0),
        readAmplificationMax: own?.readAmplificationMax ?? (max === undefined ? DEFAULT_READ_AMPLIFICATION_MAX : Number(max)),
        source: own?.readAmplification === undefined ? 't$buckets' : 'floe_optimizing',
        status: own?.status,
        healthScore: own?.healthScore,
        pendingChangeRows: own?.pendingChangeRows,
      });
    }
    return out;
  } finally {
    await client.end();
  }
}

interface ServiceRow {
  readonly readAmplification?: number;
  readonly readAmplificationMax?: number;
  readonly status?: string;
  readonly healthScore?: number;
  readonly pendingChangeRows?: number;
}

/** floe_optimizing's rows by table name, or undefined when the gateway has no such view (its columns in snake_case). */
async function serviceRows(client: pg.Client): Promise<Map<string, ServiceRow> | undefined> {
  let rows: Record<string, unknown>[];
  try {
    rows = (await client.query<Record<string, unknown>>('SELECT * FROM floe_optimizing')).rows;
  } catch {
    return undefined;
  }
  const n = (v: unknown) => (v === null || v === undefined || Number.isNaN(Number(v)) ? undefined : Number(v));
  const out = new Map<string, ServiceRow>();
  for (const r of rows) {
    const name = r.table_name ?? r.table ?? r.name;
    if (typeof name !== 'string') continue;
    out.set(name, {
      readAmplification: n(r.read_amplification),
      readAmplificationMax: n(r.read_amplification_max),
      status: typeof r.status === 'string' ? r.status : undefined,
      healthScore: n(r.health_score),
      pendingChangeRows: n(r.pending_change_rows),
    });
  }
  return out;
}
