import type pg from 'pg';
import { parseValue } from '../../exec/index.js';
import type { SubscriptionMetadata, SubscriptionTable, TableMetadata, Warehouse } from '../../lake/index.js';
import { parseLsn } from '../../common/pg-lsn.js';
import { closeSource, connectSource, quoteIdent, quoteLiteral, sourceError } from './source-connection.js';
import { qualifiedName } from './source-tables.js';

/** Rows fetched from the source per round trip of the copy. */
const COPY_FETCH_ROWS = 10_000;

const TEXT_IO = { timeZone: 'UTC' } as const;

/** Hands node-postgres's values over as the source's text, untouched. */
const RAW_TEXT = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/**
 * The initial copy of tables not yet synchronized, as PostgreSQL's table sync does it: a
 * temporary slot exports a snapshot at its consistent point, the tables are read at that
 * snapshot, and one Floe commit holds every row together with the tables' new state
 * (ready, sync LSN = the consistent point). Streaming then skips, per table, source
 * transactions that committed below its sync LSN: they are in the copy. A crash before the
 * commit leaves nothing; the temporary slot goes with its connection, and the copy runs
 * again.
 */
export async function copyTables(warehouse: Warehouse, sub: SubscriptionMetadata, tables: readonly SubscriptionTable[], signal: AbortSignal): Promise<number> {
  const repl = await connectSource(sub.conninfo, { replication: true, applicationName: `${sub.name}_sync` });
  let conn: pg.Client | undefined;
  let copied = 0;
  try {
    const slot = `floe_${sub.id}_sync_${process.pid}_${Date.now()}`;
    let created: { consistent_point: string; snapshot_name: string };
    try {
      created = (await repl.query(`CREATE_REPLICATION_SLOT ${quoteIdent(slot)} TEMPORARY LOGICAL pgoutput EXPORT_SNAPSHOT`)).rows[0];
    } catch (e) {
      throw sourceError(e, `could not create replication slot "${slot}"`);
    }
    const lsn = parseLsn(created.consistent_point)!;
    conn = await connectSource(sub.conninfo, { applicationName: `${sub.name}_sync` });
    await conn.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await conn.query(`SET TRANSACTION SNAPSHOT ${quoteLiteral(created.snapshot_name)}`);
    const txn = await warehouse.begin();
    try {
      for (const t of tables) {
        if (signal.aborted) throw signal.reason;
        const target = warehouse.getTableById(t.tableId);
        if (target === undefined) throw sourceError(new Error(`table ${t.tableId} was dropped`), `logical replication target relation of ${qualifiedName({ schema: t.sourceSchema, name: t.sourceName })}`);
        copied += await copyTable(conn, target, t, signal, async (columns) => txn.upsert(target, 'main', columns));
      }
      txn.recordSubscriptionProgress({ subscriptionId: sub.id, synced: { lsn, tables: tables.map((t) => ({ schema: t.sourceSchema, name: t.sourceName })) } });
      await txn.commit();
    } catch (e) {
      if (txn.state === 'open') await txn.abort().catch(() => undefined);
      throw e;
    }
    await conn.query('COMMIT');
    return copied;
  } finally {
    if (conn !== undefined) await closeSource(conn);
    await closeSource(repl);
  }
}

/** Reads one table at the transaction's snapshot in chunks; each chunk becomes Floe columns. */
async function copyTable(
  conn: pg.Client, target: TableMetadata, t: SubscriptionTable, signal: AbortSignal, write: (columns: unknown[][]) => Promise<void>,
): Promise<number> {
  const sourceCols = await conn.query<{ attname: string }>({
    text: `SELECT a.attname::text AS attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0
      AND NOT a.attisdropped AND a.attgenerated = ''`,
    values: [qualifiedName({ schema: t.sourceSchema, name: t.sourceName })],
  });
  const present = new Set(sourceCols.rows.map((r) => r.attname));
  // The Floe columns the source has, in Floe's order; the others stay NULL.
  const mapped = target.columns.map((c, i) => ({ c, i })).filter((x) => present.has(x.c.name));
  const cursor = 'floe_copy';
  await conn.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${mapped.map((x) => quoteIdent(x.c.name)).join(', ')} FROM ONLY ${qualifiedName({ schema: t.sourceSchema, name: t.sourceName })}`);
  let total = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const chunk = await conn.query<unknown[]>({ text: `FETCH FORWARD ${COPY_FETCH_ROWS} FROM ${cursor}`, rowMode: 'array', types: RAW_TEXT });
    if (chunk.rows.length === 0) break;
    const columns: unknown[][] = target.columns.map(() => new Array<unknown>(chunk.rows.length).fill(null));
    mapped.forEach((x, j) => {
      const out = columns[x.i]!;
      for (let r = 0; r < chunk.rows.length; r++) {
        const v = chunk.rows[r]![j] as string | null;
        out[r] = v === null ? null : parseValue(v, x.c.type, TEXT_IO);
      }
    });
    await write(columns);
    total += chunk.rows.length;
  }
  await conn.query(`CLOSE ${cursor}`);
  return total;
}
