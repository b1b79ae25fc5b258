/**
 * Differential test of complete changelogs: the same changes run on PostgreSQL 15 and on Floe,
 * each publishing the tables; PostgreSQL's own pgoutput (read from a logical slot with
 * pg_logical_slot_get_binary_changes) and Floe's (read with pg_recvlogical) must decode to
 * the same transactions. Blind upserts of existing keys are UPDATEs on both, deletes carry the
 * key, deletes of nothing send nothing. `stock` has changelog-producer = lookup (every change
 * as it happened, a key written twice in a transaction twice); `counts` is an input table,
 * whose commits Floe sends key by key, so the script writes each of its keys once per
 * transaction. An UPDATE that changes a key is one Update carrying the old key ('K') on both,
 * on either table; a DELETE then an INSERT stays a Delete and an Insert. It runs twice: as
 * floe serve runs by default, and with every commit's rows tiered out of the log before the
 * publication reads them (no optimizer to fold them first), so each change, a key change's
 * pair too, is read back from tiered change files.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';
import { runCommand } from '../harness/run-command.js';
import { decodePgoutput, decodeRecvlogicalFile } from './pgoutput-decoder.js';
import { transactions } from './streamed-transactions.js';

const PG_RECVLOGICAL = '/usr/lib/postgresql/15/bin/pg_recvlogical';

const STOCK = 'CREATE TABLE stock (id int PRIMARY KEY, qty int, note text)';
const COUNTS = 'CREATE TABLE counts (k text, n int, total bigint, PRIMARY KEY (k, n))';

/**
 * A blind upsert: on Floe `COPY … WITH (UPSERT true)`, which writes without reading (SQL's
 * ON CONFLICT DO UPDATE reads the existing rows first); on PostgreSQL its equivalent,
 * INSERT … ON CONFLICT DO UPDATE of every column.
 */
interface BlindUpsert { readonly table: 'stock' | 'counts'; readonly rows: readonly (readonly (string | number | null)[])[] }
type Step = string | BlindUpsert;

const CONFLICT: Record<BlindUpsert['table'], string> = {
  stock: 'ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, note = EXCLUDED.note',
  counts: 'ON CONFLICT (k, n) DO UPDATE SET total = EXCLUDED.total',
};

/** Each entry is one transaction (its steps run between BEGIN and COMMIT when there are several). */
const SCRIPT: readonly (readonly Step[])[] = [
  ["INSERT INTO stock VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, NULL)", "INSERT INTO counts VALUES ('a', 1, 100), ('b', 2, 200)"],
  [{ table: 'stock', rows: [[1, 11, 'one again'], [4, 40, 'four']] }],
  [{ table: 'counts', rows: [['a', 1, 101], ['c', 3, 300]] }],
  ['DELETE FROM stock WHERE id = 2'],
  ['DELETE FROM stock WHERE id = 99'],
  ["DELETE FROM counts WHERE k = 'b' AND n = 2"],
  [
    { table: 'stock', rows: [[3, 33, 'three']] }, { table: 'stock', rows: [[3, 34, 'three twice']] },
    { table: 'stock', rows: [[2, 22, 'two is back']] }, 'DELETE FROM stock WHERE id = 4', { table: 'counts', rows: [['a', 1, 102]] },
  ],
  ['UPDATE stock SET qty = qty + 1 WHERE id = 1'],
  // SQL's ON CONFLICT on Floe updates the rows it found, then inserts the others: the found one goes first here.
  [`INSERT INTO stock VALUES (3, 35, 'read first'), (6, 60, 'six') ${CONFLICT.stock}`],
  [{ table: 'stock', rows: [[5, 50, 'five'], [1, 15, null]] }, "DELETE FROM counts WHERE k = 'c' AND n = 3"],
  ['UPDATE stock SET id = 10 WHERE id = 1'],
  ["UPDATE counts SET n = 30, total = total + 1 WHERE k = 'a' AND n = 1"],
  ['UPDATE stock SET id = 20, qty = 0 WHERE id = 10', "UPDATE stock SET note = 'same key' WHERE id = 3", "UPDATE counts SET k = 'z' WHERE n = 30"],
  ['DELETE FROM stock WHERE id = 20', "INSERT INTO stock VALUES (21, 1, 'new key')"],
];

async function runScript(c: pg.Client, floe: boolean): Promise<void> {
  for (const tx of SCRIPT) {
    if (tx.length > 1) await c.query('BEGIN');
    for (const step of tx) {
      if (typeof step === 'string') await c.query(step);
      else if (floe) {
        const csv = step.rows.map((r) => r.map((v) => (v === null ? '' : String(v))).join(',')).join('\n') + '\n';
        await pipeline(Readable.from([csv]), c.query(copyFrom(`COPY ${step.table} FROM STDIN WITH (FORMAT csv, UPSERT true)`)));
      } else {
        const width = step.rows[0]!.length;
        const values = step.rows.map((_, r) => `(${Array.from({ length: width }, (_, i) => `$${r * width + i + 1}`).join(', ')})`).join(', ');
        await c.query(`INSERT INTO ${step.table} VALUES ${values} ${CONFLICT[step.table]}`, step.rows.flat());
      }
    }
    if (tx.length > 1) await c.query('COMMIT');
  }
}

interface DifferentialRun {
  readonly floeArgs: readonly string[];
  /** Table options added to Floe's CREATE TABLEs. */
  readonly tableOptions: string;
  /** Wait until tiering has taken what it can out of the log. */
  readonly tiered: boolean;
}

/** The tables' change files at their heads: how many are in the log, and how many are Parquet. */
async function changeFiles(c: pg.Client): Promise<{ log: number; parquet: number }> {
  const { rows } = await c.query<{ log: string; parquet: string }>(
    `SELECT count(*) FILTER (WHERE file_path LIKE 'log/%') AS log, count(*) FILTER (WHERE file_path LIKE '%.parquet') AS parquet
       FROM (SELECT file_path FROM stock$files WHERE store = 'change' UNION ALL SELECT file_path FROM counts$files WHERE store = 'change') f`);
  return { log: Number(rows[0]!.log), parquet: Number(rows[0]!.parquet) };
}

/**
 * Waits until tiering has done what it will: the tables' log files stop changing for 2 s
 * (passes run every 250 ms). A log file whose transaction also wrote a Parquet file on its
 * line (staged mid-transaction) is left for the optimizer, so some may stay.
 */
async function untilTiered(c: pg.Client): Promise<void> {
  const until = Date.now() + 60_000;
  let files = await changeFiles(c);
  let steadySince = Date.now();
  while (Date.now() - steadySince < 2_000 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await changeFiles(c);
    if (now.log !== files.log) steadySince = Date.now();
    files = now;
  }
  // The script's 14 transactions write some 20 log files; those left are the few staged beside Parquet.
  assert.ok(files.parquet > 0 && files.log < 10, `tiering took the changes out of the log (${JSON.stringify(files)})`);
}

const RUNS: Record<string, DifferentialRun> = {
  'as floe serve runs by default': { floeArgs: [], tableOptions: '', tiered: false },
  'every change read back from tiered files': { floeArgs: ['--optimizer-threads', '0'], tableOptions: `, 'log.tier-interval' = '100ms'`, tiered: true },
};

for (const [label, run] of Object.entries(RUNS)) describe(`complete changelogs: Floe publishes what PostgreSQL 15 publishes for the same DML, ${label}`, () => {
  let floe: FloeServer;
  let postgres: PostgresServer;
  let floeClient: pg.Client;
  let pgClient: pg.Client;
  let dir: string;
  const slot = `floe_cl_${randomBytes(4).toString('hex')}`;

  before(async () => {
    floe = await startFloe({ args: run.floeArgs });
    postgres = await startPostgres();
    floeClient = new pg.Client({ connectionString: floe.url });
    await floeClient.connect();
    pgClient = new pg.Client({ connectionString: postgres.url });
    await pgClient.connect();
    dir = mkdtempSync(join(tmpdir(), 'floe-changelog-diff-'));
  });

  after(async () => {
    // A logical slot keeps its database from being dropped (and holds WAL): it goes first.
    await pgClient?.query('SELECT pg_drop_replication_slot($1) FROM pg_replication_slots WHERE slot_name = $1', [slot]).catch(() => undefined);
    await pgClient?.end();
    await floeClient?.end();
    await postgres?.stop();
    await floe?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('blind upserts, deletes by key and updates decode to the same transactions', async () => {
    await pgClient.query(STOCK);
    await pgClient.query(COUNTS);
    await pgClient.query('CREATE PUBLICATION p FOR TABLE stock, counts');
    await pgClient.query("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", [slot]);
    await floeClient.query(`${STOCK} WITH ("changelog-producer" = 'lookup'${run.tableOptions})`);
    await floeClient.query(run.tableOptions === '' ? COUNTS : `${COUNTS} WITH (${run.tableOptions.slice(2)})`);
    await floeClient.query('CREATE PUBLICATION p FOR TABLE stock, counts');
    const floeArgs = ['-h', floe.host, '-p', String(floe.port), '-U', floe.user, '-d', floe.database];
    const created = await runCommand(PG_RECVLOGICAL, [...floeArgs, '--slot=s', '--create-slot', '--plugin=pgoutput'], { timeoutMs: 30_000 });
    assert.equal(created.code, 0, created.stderr);

    await runScript(pgClient, false);
    await runScript(floeClient, true);
    if (run.tiered) await untilTiered(floeClient);

    const fromPostgres = (await pgClient.query(
      "SELECT data FROM pg_logical_slot_get_binary_changes($1, NULL, NULL, 'proto_version', '1', 'publication_names', 'p')", [slot],
    )).rows.map((r: { data: Buffer }) => decodePgoutput(r.data, 0).message);

    const repl = new pg.Client({ connectionString: floe.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    const endpos = String((await repl.query('IDENTIFY_SYSTEM')).rows[0].xlogpos);
    await repl.end();
    const file = join(dir, 'floe.out');
    const r = await runCommand(PG_RECVLOGICAL, [
      ...floeArgs, '--slot=s', '--start', '--no-loop', `--endpos=${endpos}`, '-o', 'proto_version=1', '-o', 'publication_names=p', '-f', file,
    ], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, `pg_recvlogical failed:\n${r.stderr}\n${floe.log().slice(-4000)}`);
    const fromFloe = decodeRecvlogicalFile(readFileSync(file));

    const want = transactions(fromPostgres).map((t) => t.changes);
    assert.ok(want.some((t) => t.some((c) => c.startsWith('update public.counts'))), 'PostgreSQL sends an input-style upsert of an existing key as an update');
    assert.ok(want.some((t) => t.includes('update public.stock 10,15,NULL old K 1,NULL,NULL')), 'PostgreSQL sends a key change as one update with the old key');
    assert.deepEqual(transactions(fromFloe).map((t) => t.changes), want);
  });
});
