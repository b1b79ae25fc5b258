import { Prng } from './prng.js';
import type { Feature } from './features.js';
import type { Outcome } from './outcome.js';
import type { Statement } from './statement.js';
import type { ColumnModel, ColumnType, TableModel } from './schema-model.js';
import { columnSqlType, isIntegral, keyColumns, nonKeyColumns } from './schema-model.js';
import { NULL_VALUE, copyField, randomValue } from './values.js';
import type { Value } from './values.js';
import { PredicateGenerator } from './predicate.js';
import { buildTlpQueries } from './tlp.js';
import type { Row } from './tlp.js';

/** A table's contents as PostgreSQL last showed them: column names and rows as text. */
export interface TableSnapshot {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}

/** Features that make values which must be refused; keys and predicates use values without them. */
const INVALID_VALUE_FEATURES: readonly Feature[] = ['intOverflow', 'invalidDates', 'varcharOverflow'];

/**
 * Makes one random schema and history, statement by statement. It follows
 * PostgreSQL's outcome of each statement (`observe`) to know the schema, the
 * transaction state and (through the snapshots it is given) the keys present,
 * so that it can choose fresh or duplicate keys on purpose.
 */
export class HistoryGenerator {
  readonly tables: TableModel[] = [];
  private readonly rng: Prng;
  private readonly validOnly: ReadonlySet<Feature>;
  private inTransaction = false;
  /** The statement being made already holds a value or key meant to fail. */
  private risky = false;
  private aborted = false;
  private savepoints: string[] = [];
  private savepointCounter = 0;
  private columnCounter = 0;
  private shiftCounter = 0;
  private readonly modelChanges = new WeakMap<Statement, () => void>();

  constructor(seed: number, private readonly features: ReadonlySet<Feature>, private readonly prefix: string) {
    this.rng = new Prng(seed);
    this.validOnly = new Set([...features].filter((f) => !INVALID_VALUE_FEATURES.includes(f)));
  }

  private has(f: Feature): boolean {
    return this.features.has(f);
  }

  /** CREATE TABLE statements for a fresh schema of two to four tables. */
  createTables(): Statement[] {
    const kinds: ('single' | 'composite' | 'append')[] = [];
    if (this.has('keyedTables')) kinds.push('single', 'single');
    if (this.has('keyedTables') && this.has('compositeKeys')) kinds.push('composite');
    if (this.has('appendTables')) kinds.push('append');
    if (kinds.length === 0) throw new Error('no table kind is enabled');
    const n = this.rng.int(2, 4);
    const out: Statement[] = [];
    for (let i = 0; i < n; i++) out.push(this.createTable(`${this.prefix}t${i}`, this.rng.pick(kinds)));
    return out;
  }

  private createTable(name: string, kind: 'single' | 'composite' | 'append'): Statement {
    const r = this.rng;
    const keyTypes: ColumnType[] = ['int', 'int', 'bigint', 'text', 'date'];
    const columns: ColumnModel[] = [];
    let key: string[] = [];
    if (kind === 'single') {
      columns.push({ name: 'id', type: r.pick(keyTypes), notNull: true });
      key = ['id'];
    } else if (kind === 'composite') {
      columns.push({ name: 'k1', type: r.pick(keyTypes), notNull: true }, { name: 'k2', type: r.pick(keyTypes), notNull: true });
      key = ['k1', 'k2'];
    }
    for (let i = 0, n = r.int(1, 3); i < n; i++) columns.push(this.newColumn(kind === 'append' && i === 0 ? 'int' : undefined));
    let partitionColumn: string | undefined;
    let partitionClause = '';
    if (this.has('partitionedTables') && r.chance(0.35)) {
      // Floe requires a keyed table's partition columns to be part of its key.
      const candidates = kind === 'append' ? columns : keyColumns({ name, columns, key });
      const col = r.pick(candidates);
      partitionColumn = col.name;
      partitionClause = isIntegral(col) && r.chance(0.5) ? ` PARTITION BY (bucket(${r.int(2, 8)}, ${col.name}))` : ` PARTITION BY (${col.name})`;
    }
    const table: TableModel = { name, columns, key, ...(partitionColumn !== undefined ? { partitionColumn } : {}) };
    this.tables.push(table);
    const inlineKey = key.length === 1 && r.chance(0.5);
    const defs = columns.map((c) => `${c.name} ${columnSqlType(c)}${inlineKey && key[0] === c.name ? ' PRIMARY KEY' : c.notNull && !key.includes(c.name) ? ' NOT NULL' : ''}`);
    if (key.length > 0 && !inlineKey) defs.push(`PRIMARY KEY (${key.join(', ')})`);
    const sql = `CREATE TABLE ${name} (${defs.join(', ')})`;
    return { sql, shape: 'create-table', tables: [name], ...(partitionClause !== '' ? { floeSql: sql + partitionClause } : {}) };
  }

  private newColumn(type?: ColumnType): ColumnModel {
    const r = this.rng;
    const t = type ?? r.pick<ColumnType>(['int', 'bigint', 'text', 'date', 'varchar', 'text', 'int']);
    const c: ColumnModel = { name: `c${this.columnCounter++}`, type: t, notNull: this.has('notNullColumns') && r.chance(0.15) };
    if (t === 'varchar') c.length = r.int(3, 8);
    return c;
  }

  /** The statements that end the history cleanly (an open transaction is rolled back). */
  closing(): Statement[] {
    return this.inTransaction ? [{ sql: 'ROLLBACK', shape: 'rollback', tables: this.tables.map((t) => t.name) }] : [];
  }

  /** Follows PostgreSQL's outcome of a statement this generator made. */
  observe(stmt: Statement, pg: Outcome): void {
    const shape = stmt.shape;
    if (shape === 'begin') {
      if (pg.ok) this.inTransaction = true;
      return;
    }
    if (shape === 'commit' || shape === 'rollback') {
      this.inTransaction = false;
      this.aborted = false;
      this.savepoints = [];
      return;
    }
    if (shape === 'savepoint' && pg.ok) {
      this.savepoints.push(stmt.sql.split(' ')[1]!);
      return;
    }
    if (shape === 'rollback-to' && pg.ok) {
      const name = stmt.sql.split(' ').at(-1)!;
      this.savepoints = this.savepoints.slice(0, this.savepoints.indexOf(name) + 1);
      this.aborted = false;
      return;
    }
    if (shape === 'release' && pg.ok) {
      const name = stmt.sql.split(' ').at(-1)!;
      this.savepoints = this.savepoints.slice(0, this.savepoints.indexOf(name));
      return;
    }
    if (!pg.ok && this.inTransaction) this.aborted = true;
    if (pg.ok) this.modelChanges.get(stmt)?.();
  }

  /**
   * A value for a column. One statement gets at most one value meant to fail
   * (invalid, or NULL for a NOT NULL column) and none beside duplicate keys:
   * which of two errors a statement reports depends on evaluation order, which
   * SQL leaves open, so a second one would make the comparison meaningless.
   */
  private value(c: ColumnModel, allowNull: boolean): Value {
    const v = randomValue(this.rng, c, this.risky ? this.validOnly : this.features, { allowNull });
    if (v.invalid === true || (v.text === null && c.notNull)) this.risky = true;
    return v;
  }

  /** The next statement, given the tables' contents as PostgreSQL last showed them. */
  next(snapshots: ReadonlyMap<string, TableSnapshot>): Statement {
    this.risky = false;
    const r = this.rng;
    const all = this.tables.map((t) => t.name);
    if (this.inTransaction) {
      if (this.aborted && r.chance(0.6)) {
        if (this.has('savepoints') && this.savepoints.length > 0 && r.chance(0.6)) {
          return { sql: `ROLLBACK TO SAVEPOINT ${r.pick(this.savepoints)}`, shape: 'rollback-to', tables: all };
        }
        return r.chance(0.5) ? { sql: 'ROLLBACK', shape: 'rollback', tables: all } : { sql: 'COMMIT', shape: 'commit', tables: all };
      }
      const x = r.next();
      if (x < 0.1) return r.chance(0.6) ? { sql: 'COMMIT', shape: 'commit', tables: all } : { sql: 'ROLLBACK', shape: 'rollback', tables: all };
      if (this.has('savepoints')) {
        if (x < 0.16) return { sql: `SAVEPOINT s${this.savepointCounter++}`, shape: 'savepoint', tables: [] };
        if (x < 0.22 && this.savepoints.length > 0) {
          const name = r.pick(this.savepoints);
          return r.chance(0.5)
            ? { sql: `ROLLBACK TO SAVEPOINT ${name}`, shape: 'rollback-to', tables: all }
            : { sql: `RELEASE SAVEPOINT ${name}`, shape: 'release', tables: all };
        }
      }
      if (this.has('abortedTransactions') && x < 0.25) return { sql: 'SELECT 1 / 0', shape: 'error', tables: [] };
    } else if (this.has('transactions') && r.chance(0.07)) {
      return { sql: r.pick(['BEGIN', 'BEGIN', 'START TRANSACTION']), shape: 'begin', tables: [] };
    }
    const writable = this.inTransaction && !this.has('appendWritesInTransaction') ? this.tables.filter((t) => t.key.length > 0) : this.tables;
    const table = r.pick(writable.length > 0 ? writable : this.tables);
    if (table.key.length === 0 && this.inTransaction && !this.has('appendWritesInTransaction')) return this.tlpOrSelect(table);
    const snap = snapshots.get(table.name) ?? { columns: table.columns.map((c) => c.name), rows: [] };
    const keyed = table.key.length > 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      const x = r.int(0, 99);
      let s: Statement | undefined;
      if (x < 22) s = this.insert(table, snap);
      else if (x < 32) s = keyed && (this.has('upsertDoUpdate') || this.has('upsertDoNothing')) ? this.upsert(table, snap) : undefined;
      else if (x < 46) s = this.has('update') ? this.update(table, snap) : undefined;
      else if (x < 56) s = this.has('delete') ? this.delete(table, snap) : undefined;
      else if (x < 64) s = this.has('merge') ? this.merge(table, snap) : undefined;
      else if (x < 70) s = this.has('copy') ? this.copy(table, snap) : undefined;
      else if (x < 94) s = this.has('tlp') ? this.tlp(table) : undefined;
      else s = this.inTransaction ? undefined : this.alter(table);
      if (s !== undefined) return s;
    }
    return this.tlpOrSelect(table);
  }

  private tlpOrSelect(table: TableModel): Statement {
    return this.has('tlp') ? this.tlp(table) : { sql: `SELECT count(*) FROM ${table.name}`, shape: 'select', tables: [] };
  }

  // ── keys ────────────────────────────────────────────────────────────────

  private keyTuple(table: TableModel, snap: TableSnapshot, row: Row): string {
    return JSON.stringify(table.key.map((k) => row[snap.columns.indexOf(k)] ?? null));
  }

  private existingKeys(table: TableModel, snap: TableSnapshot): Value[][] {
    const cols = keyColumns(table);
    return snap.rows.map((row) => cols.map((c) => {
      const v = row[snap.columns.indexOf(c.name)] ?? null;
      return v === null ? NULL_VALUE : { sql: literalOf(c, v), text: v };
    }));
  }

  /** A key not in the table and not in `taken`; undefined when none was found quickly. */
  private freshKey(table: TableModel, snap: TableSnapshot, taken: Set<string>): Value[] | undefined {
    const present = new Set(snap.rows.map((row) => this.keyTuple(table, snap, row)));
    for (let i = 0; i < 30; i++) {
      const key = keyColumns(table).map((c) => randomValue(this.rng, c, this.validOnly, { allowNull: false }));
      const tuple = JSON.stringify(key.map((v) => v.text));
      if (!present.has(tuple) && !taken.has(tuple)) {
        taken.add(tuple);
        return key;
      }
    }
    return undefined;
  }

  /** Rows for INSERT/COPY/MERGE sources: keys fresh, or (with `duplicates`) sometimes existing or repeated. */
  private rowsFor(table: TableModel, snap: TableSnapshot, count: number, columns: readonly ColumnModel[], duplicates: { existing: boolean; repeated: boolean }): Value[][] | undefined {
    const taken = new Set<string>();
    const existing = this.existingKeys(table, snap);
    const made: Value[][] = [];
    for (let i = 0; i < count; i++) {
      let key: Value[] | undefined;
      if (table.key.length > 0) {
        const old = duplicates.existing && existing.length > 0 && this.rng.chance(0.4) ? this.rng.pick(existing) : undefined;
        const oldTuple = old === undefined ? '' : JSON.stringify(old.map((v) => v.text));
        if (old !== undefined && !taken.has(oldTuple)) {
          key = old;
          taken.add(oldTuple);
        } else if (duplicates.repeated && made.length > 0 && this.rng.chance(0.3)) {
          const again = this.rng.pick(made);
          key = columns.flatMap((c, j) => (table.key.includes(c.name) ? [again[j]!] : []));
        } else {
          key = this.freshKey(table, snap, taken);
        }
        if (key === undefined) return undefined;
        if (this.has('insertNullKey') && !this.risky && this.rng.chance(0.03)) {
          key = key.map((v, j) => (j === 0 ? NULL_VALUE : v));
          this.risky = true;
        }
      }
      const row = columns.map((c) => {
        const k = table.key.indexOf(c.name);
        if (k >= 0) return key![k]!;
        return this.value(c, !c.notNull || (!this.risky && this.rng.chance(0.05)));
      });
      made.push(row);
    }
    return made;
  }

  /** Key columns first (rowsFor relies on it), then some or all of the others. */
  private insertColumns(table: TableModel): ColumnModel[] {
    const rest = nonKeyColumns(table).filter((c) => c.notNull || this.rng.chance(0.8));
    return [...keyColumns(table), ...rest];
  }

  // ── writes ──────────────────────────────────────────────────────────────

  private insert(table: TableModel, snap: TableSnapshot): Statement | undefined {
    if (!this.has('insert')) return undefined;
    const cols = this.insertColumns(table);
    const n = this.has('multiRowInsert') && this.rng.chance(0.5) ? this.rng.int(2, 6) : 1;
    const dup = this.has('insertDuplicateKey') && this.rng.chance(0.3);
    if (dup) this.risky = true;
    const rows = this.rowsFor(table, snap, n, cols, { existing: dup, repeated: dup });
    if (rows === undefined) return undefined;
    const named = this.rng.chance(0.8) || cols.length !== table.columns.length;
    const sql = `INSERT INTO ${table.name}${named ? ` (${cols.map((c) => c.name).join(', ')})` : ''} VALUES ${rows.map((r) => `(${r.map((v) => v.sql).join(', ')})`).join(', ')}`;
    return { sql, shape: dup ? 'insert-dup' : 'insert', tables: [table.name] };
  }

  private upsert(table: TableModel, snap: TableSnapshot): Statement | undefined {
    const doUpdate = this.has('upsertDoUpdate') && (!this.has('upsertDoNothing') || this.rng.chance(0.65));
    const cols = this.insertColumns(table);
    const n = this.has('multiRowInsert') && this.rng.chance(0.5) ? this.rng.int(2, 5) : 1;
    const twice = this.has('upsertSameKeyTwice') && this.rng.chance(0.2);
    if (twice) this.risky = true;
    const rows = this.rowsFor(table, snap, n, cols, { existing: true, repeated: twice });
    if (rows === undefined) return undefined;
    const values = `INSERT INTO ${table.name} (${cols.map((c) => c.name).join(', ')}) VALUES ${rows.map((r) => `(${r.map((v) => v.sql).join(', ')})`).join(', ')}`;
    const settable = cols.filter((c) => !table.key.includes(c.name));
    if (doUpdate && settable.length > 0) {
      const set = settable.filter((_, i) => i === 0 || this.rng.chance(0.6)).map((c) => `${c.name} = EXCLUDED.${c.name}`);
      return { sql: `${values} ON CONFLICT (${table.key.join(', ')}) DO UPDATE SET ${set.join(', ')}`, shape: 'upsert-update', tables: [table.name] };
    }
    if (!this.has('upsertDoNothing')) return undefined;
    const target = this.rng.chance(0.7) ? ` (${table.key.join(', ')})` : '';
    return { sql: `${values} ON CONFLICT${target} DO NOTHING`, shape: 'upsert-nothing', tables: [table.name] };
  }

  private update(table: TableModel, snap: TableSnapshot): Statement | undefined {
    const r = this.rng;
    const where = this.whereClause(table, snap);
    if (this.has('pkUpdate') && table.key.length > 0 && r.chance(0.3)) {
      const k = r.pick(keyColumns(table));
      const set = r.chance(0.5) ? this.keyShift(k, snap) : randomValue(r, k, this.validOnly, { allowNull: false }).sql;
      return { sql: `UPDATE ${table.name} SET ${k.name} = ${set}${r.chance(0.5) ? '' : where}`, shape: 'update-pk', tables: [table.name] };
    }
    const candidates = table.columns.filter((c) => !table.key.includes(c.name));
    if (candidates.length === 0) return undefined;
    const targets = candidates.filter((_, i) => i === 0 || r.chance(0.4));
    const sets = targets.map((c) => `${c.name} = ${this.newValueExpr(c)}`);
    return { sql: `UPDATE ${table.name} SET ${sets.join(', ')}${r.chance(0.15) ? '' : where}`, shape: 'update', tables: [table.name] };
  }

  /**
   * A key shift whose new keys miss every key present. PostgreSQL checks a
   * non-deferrable key per row, the SQL standard (and Floe) at the end of the
   * statement; they agree unless a new key meets an old one of a row not yet
   * moved (`SET id = id + 1` over 1, 2, 3). Such shifts are `pkShiftOverlap`.
   */
  private keyShift(k: ColumnModel, snap: TableSnapshot): string {
    const r = this.rng;
    if (this.has('pkShiftOverlap') && r.chance(0.5)) return k.type === 'text' || k.type === 'varchar' ? `${k.name} || 'x'` : `${k.name} + 1`;
    const present = snap.rows.map((row) => row[snap.columns.indexOf(k.name)]).filter((v): v is string => v !== null && v !== undefined);
    if (k.type === 'text' || k.type === 'varchar') return `${k.name} || '#${this.shiftCounter++}'`;
    if (k.type === 'date') {
      const days = present.map((d) => Date.parse(`${d}T00:00:00Z`) / 86_400_000);
      const span = days.length === 0 ? 0 : Math.max(...days) - Math.min(...days);
      return `${k.name} + ${span + r.int(1, 5)}`;
    }
    const ints = present.map((v) => BigInt(v));
    const span = ints.length === 0 ? 0n : ints.reduce((a, b) => (a > b ? a : b)) - ints.reduce((a, b) => (a < b ? a : b));
    return `${k.name} + ${span + BigInt(r.int(1, 5))}`;
  }

  private newValueExpr(c: ColumnModel): string {
    const r = this.rng;
    const x = r.next();
    if (x < 0.25 && isIntegral(c)) return this.has('intOverflow') || !this.has('boundaryInts') ? `${c.name} + 1` : `${c.name} / 2`;
    if (x < 0.25 && c.type === 'text') return `${c.name} || '${r.pick(['-', ' x', "'"])}'`;
    if (x < 0.25 && c.type === 'date') return `${c.name} + ${r.int(1, 40)}`;
    if (x < 0.35 && !c.notNull) return 'NULL';
    return this.value(c, !c.notNull).sql;
  }

  private whereClause(table: TableModel, snap: TableSnapshot): string {
    const r = this.rng;
    if (table.key.length > 0 && r.chance(0.5)) {
      const existing = this.existingKeys(table, snap);
      const key = existing.length > 0 && r.chance(0.8) ? r.pick(existing) : keyColumns(table).map((c) => randomValue(r, c, this.validOnly, { allowNull: false }));
      return ` WHERE ${table.key.map((k, i) => `${k} = ${key[i]!.sql}`).join(' AND ')}`;
    }
    return ` WHERE ${new PredicateGenerator(r, table, this.validOnly).predicate(1)}`;
  }

  private delete(table: TableModel, snap: TableSnapshot): Statement {
    const where = this.rng.chance(0.05) ? '' : this.whereClause(table, snap);
    return { sql: `DELETE FROM ${table.name}${where}`, shape: 'delete', tables: [table.name] };
  }

  private merge(table: TableModel, snap: TableSnapshot): Statement | undefined {
    const r = this.rng;
    const on = table.key.length > 0 ? keyColumns(table) : [table.columns[0]!];
    const cols = table.key.length > 0 ? this.insertColumns(table) : table.columns;
    let rows: Value[][] | undefined;
    if (table.key.length > 0) {
      rows = this.rowsFor(table, snap, r.int(1, 4), cols, { existing: true, repeated: false });
    } else {
      // An append table joined on its first column: the source must not match one target row twice.
      const seen = new Set<string>();
      rows = [];
      for (let i = 0, n = r.int(1, 4); i < n; i++) {
        const row = cols.map((c, j) => (j === 0 ? randomValue(r, c, this.validOnly, { allowNull: false }) : this.value(c, !c.notNull)));
        const k = JSON.stringify(row[0]!.text);
        if (row[0]!.text === null || seen.has(k)) continue;
        seen.add(k);
        rows.push(row);
      }
      if (rows.length === 0) return undefined;
    }
    if (rows === undefined) return undefined;
    // varchar(n) sources are text: an explicit cast to varchar(n) would truncate instead of failing.
    const sourceType = (c: ColumnModel) => (c.type === 'varchar' ? 'text' : c.type);
    // Every source value is cast: PostgreSQL types a VALUES column by all its rows (an out-of-range
    // literal makes it numeric), so an uncast one would only fail on the rows MERGE inserts.
    const values = rows.map((row) => `(${row.map((v, i) => `CAST(${v.sql} AS ${sourceType(cols[i]!)})`).join(', ')})`).join(', ');
    const names = cols.map((c) => c.name);
    const cond = on.map((c) => `${table.name}.${c.name} = s.${c.name}`).join(' AND ');
    const settable = cols.filter((c) => !table.key.includes(c.name) && !on.includes(c));
    const matched: string[] = [];
    if (settable.length > 0 && r.chance(0.4)) {
      const c = r.pick(settable);
      matched.push(`WHEN MATCHED AND s.${c.name} IS NULL THEN ${r.chance(0.5) ? 'DELETE' : 'DO NOTHING'}`);
    }
    const m = r.int(0, 3);
    if (m <= 1 && settable.length > 0) matched.push(`WHEN MATCHED THEN UPDATE SET ${settable.filter((_, i) => i === 0 || r.chance(0.5)).map((c) => `${c.name} = s.${c.name}`).join(', ')}`);
    else if (m === 2) matched.push('WHEN MATCHED THEN DELETE');
    const notMatched = r.chance(0.8) ? `WHEN NOT MATCHED THEN INSERT (${names.join(', ')}) VALUES (${names.map((n) => `s.${n}`).join(', ')})` : 'WHEN NOT MATCHED THEN DO NOTHING';
    const sql = `MERGE INTO ${table.name} USING (VALUES ${values}) AS s(${names.join(', ')}) ON ${cond} ${[...matched, notMatched].join(' ')}`;
    return { sql, shape: 'merge', tables: [table.name] };
  }

  private copy(table: TableModel, snap: TableSnapshot): Statement | undefined {
    const cols = this.insertColumns(table);
    const dup = this.has('copyDuplicateKey') && this.rng.chance(0.3);
    if (dup) this.risky = true;
    const rows = this.rowsFor(table, snap, this.rng.int(1, 8), cols, { existing: dup, repeated: dup });
    if (rows === undefined) return undefined;
    return {
      sql: `COPY ${table.name} (${cols.map((c) => c.name).join(', ')}) FROM STDIN`,
      shape: dup ? 'copy-dup' : 'copy',
      tables: [table.name],
      copyData: rows.map((row) => `${row.map(copyField).join('\t')}\n`).join(''),
    };
  }

  private tlp(table: TableModel): Statement {
    const predicate = new PredicateGenerator(this.rng, table, this.validOnly).predicate(2);
    const tlp = buildTlpQueries(table.name, predicate);
    return { sql: tlp.whole, shape: 'tlp', tables: [], tlp };
  }

  // ── schema evolution ────────────────────────────────────────────────────

  private alter(table: TableModel): Statement | undefined {
    const r = this.rng;
    const options: (() => Statement | undefined)[] = [];
    if (this.has('addColumn')) options.push(() => this.addColumn(table));
    if (this.has('dropColumn')) options.push(() => this.dropColumn(table));
    if (this.has('alterColumnType')) options.push(() => this.alterColumnType(table));
    if (options.length === 0) return undefined;
    const s = r.pick(options)();
    return s;
  }

  private addColumn(table: TableModel): Statement | undefined {
    if (table.columns.length >= 8) return undefined;
    const r = this.rng;
    const c = this.newColumn();
    c.notNull = false;
    let extra = '';
    if (this.has('addColumnDefault') && r.chance(0.5)) {
      const v = randomValue(r, c, this.validOnly, { allowNull: false });
      extra = ` DEFAULT ${v.sql}`;
      if (r.chance(0.4)) {
        extra += ' NOT NULL';
        c.notNull = true;
      }
    } else if (this.has('addColumnNotNull') && r.chance(0.2)) {
      extra = ' NOT NULL';
      c.notNull = true;
    }
    const s: Statement = { sql: `ALTER TABLE ${table.name} ADD COLUMN ${c.name} ${columnSqlType(c)}${extra}`, shape: extra === '' ? 'add-column' : 'add-column-default', tables: [table.name] };
    this.modelChanges.set(s, () => table.columns.push(c));
    return s;
  }

  private dropColumn(table: TableModel): Statement | undefined {
    const candidates = nonKeyColumns(table).filter((c) => c.name !== table.partitionColumn);
    if (candidates.length === 0 || table.columns.length <= 2) return undefined;
    const c = this.rng.pick(candidates);
    const s: Statement = { sql: `ALTER TABLE ${table.name} DROP COLUMN ${c.name}`, shape: 'drop-column', tables: [table.name] };
    this.modelChanges.set(s, () => {
      table.columns = table.columns.filter((x) => x !== c);
    });
    return s;
  }

  private alterColumnType(table: TableModel): Statement | undefined {
    const candidates = table.columns.filter((c) => (c.type === 'int' || c.type === 'varchar') && c.name !== table.partitionColumn);
    if (candidates.length === 0) return undefined;
    const c = this.rng.pick(candidates);
    const to: ColumnModel = c.type === 'int' ? { ...c, type: 'bigint' } : this.rng.chance(0.5) ? { ...c, type: 'text' } : { ...c, length: (c.length ?? 8) + this.rng.int(1, 5) };
    const s: Statement = { sql: `ALTER TABLE ${table.name} ALTER COLUMN ${c.name} TYPE ${columnSqlType(to)}`, shape: 'alter-column-type', tables: [table.name] };
    this.modelChanges.set(s, () => {
      Object.assign(c, to);
    });
    return s;
  }
}

/** A SQL literal for a value PostgreSQL printed as text. */
function literalOf(c: ColumnModel, text: string): string {
  if (isIntegral(c)) return text.startsWith('-') ? `(${text})` : text;
  if (c.type === 'date') return `DATE '${text}'`;
  return `'${text.replace(/'/g, "''")}'`;
}
