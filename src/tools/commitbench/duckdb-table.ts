import { cpus } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { loadedRow } from './bench-rows.js';

/** The DuckDB peer: an in-memory database with the same keyed table (a PRIMARY KEY), in this process. */
export class DuckDbTable {
  readonly #conn: DuckDBConnection;
  readonly table: string;
  #pointRead: DuckDBPreparedStatement | undefined;

  private constructor(conn: DuckDBConnection, table: string) {
    this.#conn = conn;
    this.table = table;
  }

  static async create(table: string): Promise<DuckDbTable> {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run(`SET threads = ${cpus().length}`);
    await conn.run(`CREATE TABLE ${table} (id BIGINT PRIMARY KEY, v BIGINT, s VARCHAR)`);
    return new DuckDbTable(conn, table);
  }

  /** Appends the loaded rows for keys [from, to). */
  async load(from: number, to: number): Promise<void> {
    const app = await this.#conn.createAppender(this.table);
    for (let id = from; id < to; id++) {
      const r = loadedRow(id);
      app.appendBigInt(BigInt(r.id));
      app.appendBigInt(BigInt(r.v));
      app.appendVarchar(r.s);
      app.endRow();
    }
    app.closeSync();
  }

  async run(sql: string): Promise<void> {
    await this.#conn.run(sql);
  }

  /** Rows as text, so answers compare with the wire's. */
  async query(sql: string): Promise<(string | null)[][]> {
    const reader = await this.#conn.runAndReadAll(sql);
    return reader.getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
  }

  /** A prepared `SELECT id, v, s … WHERE id = $1`, prepared once. */
  async pointRead(id: number): Promise<(string | null)[][]> {
    this.#pointRead ??= await this.#conn.prepare(`SELECT id, v, s FROM ${this.table} WHERE id = $1`);
    this.#pointRead.bindBigInt(1, BigInt(id));
    const reader = await this.#pointRead.runAndReadAll();
    return reader.getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
  }

  close(): void {
    this.#conn.closeSync();
  }
}
