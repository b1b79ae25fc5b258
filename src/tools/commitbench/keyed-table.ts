import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { copyText, createTableSql, loadedRow, upsertedRow } from './bench-rows.js';
import type { BenchRow } from './bench-rows.js';
import type { DuckDbTable } from './duckdb-table.js';
import { connect, describeFiles, floeTableFiles } from './sql-target.js';
import type { FloeTableFiles, SqlTarget } from './sql-target.js';

export const KEYED_TABLE = 'point_t';
/** Rows per COPY statement when loading (one commit each). */
const COPY_CHUNK = 100_000;

/**
 * The large keyed table of measures 4 and 5, the same rows in Floe, PostgreSQL and DuckDB,
 * and what was done to it, so any engine's answer can be checked against the rows written.
 */
export class KeyedTable {
  readonly rows: number;
  readonly floe: SqlTarget;
  readonly postgres: SqlTarget | undefined;
  readonly duck: DuckDbTable | undefined;
  /** Keys whose row was replaced by upsertedRow. */
  #upserted: (id: number) => boolean = () => false;
  /** Keys whose v was raised by one. */
  #bumped: (id: number) => boolean = () => false;

  constructor(rows: number, floe: SqlTarget, postgres: SqlTarget | undefined, duck: DuckDbTable | undefined) {
    this.rows = rows;
    this.floe = floe;
    this.postgres = postgres;
    this.duck = duck;
  }

  /** Every wire engine this run has. */
  targets(): SqlTarget[] {
    return this.postgres === undefined ? [this.floe] : [this.floe, this.postgres];
  }

  expected(id: number): BenchRow {
    const r = this.#upserted(id) ? upsertedRow(id) : loadedRow(id);
    return this.#bumped(id) ? { ...r, v: r.v + 1 } : r;
  }

  /** count(*) and sum(v) over the table as it should read now. */
  expectedCountAndSum(): { count: number; sum: bigint } {
    let sum = 0n;
    let chunk = 0;
    for (let id = 0; id < this.rows; id++) {
      chunk += this.expected(id).v;
      if ((id & 0xffff) === 0xffff) { sum += BigInt(chunk); chunk = 0; }
    }
    return { count: this.rows, sum: sum + BigInt(chunk) };
  }

  /** Creates the table everywhere and loads keys 0..rows-1 (COPY in chunks through the wire; DuckDB's appender). */
  async load(floeProperties: Readonly<Record<string, string>>, log: (l: string) => void): Promise<Map<string, number>> {
    const seconds = new Map<string, number>();
    for (const t of this.targets()) {
      const c = await connect(t);
      try {
        await c.query(createTableSql(KEYED_TABLE, t.engine === 'floe' ? floeProperties : {}));
        const t0 = performance.now();
        for (let from = 0; from < this.rows; from += COPY_CHUNK) {
          const to = Math.min(this.rows, from + COPY_CHUNK);
          await pipeline(Readable.from([copyText(from, to)]), c.query(copyFrom(`COPY ${KEYED_TABLE} (id, v, s) FROM STDIN`)));
        }
        seconds.set(t.engine, (performance.now() - t0) / 1000);
        log(`  ${t.engine}: loaded ${this.rows.toLocaleString('en-US')} rows in ${seconds.get(t.engine)!.toFixed(1)} s`);
      } finally {
        await c.end();
      }
    }
    if (this.duck !== undefined) {
      const t0 = performance.now();
      for (let from = 0; from < this.rows; from += COPY_CHUNK) await this.duck.load(from, Math.min(this.rows, from + COPY_CHUNK));
      seconds.set('duckdb', (performance.now() - t0) / 1000);
    }
    return seconds;
  }

  /** `CALL optimize(...)` on Floe; seconds taken. */
  async optimizeFloe(): Promise<number> {
    const c = await connect(this.floe);
    try {
      const t0 = performance.now();
      await c.query(`CALL optimize('${KEYED_TABLE}')`);
      return (performance.now() - t0) / 1000;
    } finally {
      await c.end();
    }
  }

  async floeFiles(): Promise<FloeTableFiles> {
    const c = await connect(this.floe);
    try {
      return await floeTableFiles(c, KEYED_TABLE);
    } finally {
      await c.end();
    }
  }

  async describeFloeFiles(): Promise<string> {
    return describeFiles(await this.floeFiles());
  }

  /** Runs one write statement on every engine, in the same order. */
  async applyEverywhere(statements: readonly string[]): Promise<void> {
    for (const t of this.targets()) {
      const c = await connect(t);
      try {
        for (const sql of statements) await c.query(sql);
      } finally {
        await c.end();
      }
    }
    if (this.duck !== undefined) for (const sql of statements) await this.duck.run(sql);
  }

  /** Records a change applied by applyEverywhere, for expected(). */
  markUpserted(pred: (id: number) => boolean): void {
    const before = this.#upserted;
    this.#upserted = (id) => before(id) || pred(id);
  }

  markBumped(pred: (id: number) => boolean): void {
    const before = this.#bumped;
    this.#bumped = (id) => before(id) || pred(id);
  }
}
