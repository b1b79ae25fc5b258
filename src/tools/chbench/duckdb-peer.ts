import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { chCopyText } from './tpcc-generator.js';
import type { ChBatch } from './tpcc-generator.js';
import { CH_TABLES, chTable, createChTableSql } from './tpcc-schema.js';
import { CH_VIEWS } from './ch-queries.js';

/**
 * The peer: an in-memory DuckDB database with the same keyed tables, loaded with the very
 * rows Floe was loaded with, then given every committed transaction's writes in commit
 * order (a replay of the run's log, after the run, so DuckDB never competes with the
 * gateway for the CPU), then asked the same queries.
 */
export class DuckDbPeer {
  readonly #conn: DuckDBConnection;
  readonly #dir = mkdtempSync(join(tmpdir(), 'floe-chbench-duck-'));
  #files = 0;

  private constructor(conn: DuckDBConnection) {
    this.#conn = conn;
  }

  static async create(): Promise<DuckDbPeer> {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run(`SET threads = ${cpus().length}`);
    for (const t of CH_TABLES) await conn.run(createChTableSql(t));
    for (const v of CH_VIEWS) await conn.run(v);
    return new DuckDbPeer(conn);
  }

  /**
   * Appends a generated batch (through a COPY-text file). DuckDB's CHAR is VARCHAR, so the
   * blank padding of char(n) values is dropped here, as PostgreSQL's char comparison ignores it.
   */
  async load(batch: ChBatch): Promise<void> {
    const file = join(this.#dir, `batch-${this.#files++}.tsv`);
    const padded = chTable(batch.table).columns.map((c) => c.type.startsWith('char('));
    const rows = batch.rows.map((r) => r.map((v, i) => (padded[i] === true && typeof v === 'string' ? v.trimEnd() : v)));
    writeFileSync(file, chCopyText({ table: batch.table, rows }));
    try {
      await this.#conn.run(`COPY ${batch.table} FROM '${file}' (FORMAT csv, DELIMITER '\t', NULL '\\N', HEADER false, QUOTE '', ESCAPE '')`);
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Applies one committed transaction's write statements atomically. */
  async apply(writes: readonly string[]): Promise<void> {
    if (writes.length === 0) return;
    await this.#conn.run('BEGIN');
    try {
      for (const sql of writes) await this.#conn.run(sql);
      await this.#conn.run('COMMIT');
    } catch (e) {
      await this.#conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** Runs a query; rows as text, so answers compare with Floe's text output. */
  async query(sql: string): Promise<{ readonly ms: number; readonly rows: readonly (readonly (string | null)[])[] }> {
    const t0 = performance.now();
    const reader = await this.#conn.runAndReadAll(sql);
    const ms = performance.now() - t0;
    const rows = reader.getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
    return { ms, rows };
  }

  close(): void {
    this.#conn.closeSync();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
