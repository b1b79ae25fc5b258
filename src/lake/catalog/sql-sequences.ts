import type { CatalogStatement } from './catalog-database.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { followingValues } from '../sequence/sequence-parameters.js';
import type { SequenceDataType } from '../sequence/sequence-metadata.js';
import type { NewSequence, SequencePatch, SequenceRecord } from './catalog.js';

/**
 * The sequences table of the catalog. `last_value` / `is_called` are PostgreSQL's
 * on-disk state, except that a value counts as used once a process has reserved it
 * (reserve): a crash then loses the rest of that process's block, as PostgreSQL loses the
 * values it logged ahead, and never repeats one. `generation` moves on setval, RESTART
 * and option changes, telling other processes their blocks are stale.
 */
interface SequenceRow {
  seq_id: bigint; namespace: string; name: string; data_type: string; increment: bigint; min_value: bigint;
  max_value: bigint; start: bigint; cache: bigint; cycle: bigint; last_value: bigint; is_called: bigint;
  owner_table: bigint | null; owner_field: bigint | null; generation: bigint;
}

function toRecord(r: SequenceRow): SequenceRecord {
  return {
    id: Number(r.seq_id), namespace: r.namespace, name: r.name, dataType: r.data_type as SequenceDataType,
    increment: BigInt(r.increment), minValue: BigInt(r.min_value), maxValue: BigInt(r.max_value), start: BigInt(r.start),
    cache: BigInt(r.cache), cycle: Number(r.cycle) !== 0, lastValue: BigInt(r.last_value), isCalled: Number(r.is_called) !== 0,
    ownedBy: r.owner_table === null || r.owner_field === null ? undefined : { tableId: Number(r.owner_table), fieldId: Number(r.owner_field) },
    generation: Number(r.generation),
  };
}

/** What the sequences code borrows from SqlCatalog: its prepared statements, read cache and write transactions. */
export interface SqlCatalogAccess {
  sql(q: string): CatalogStatement;
  cached<T>(key: string, read: () => T): T;
  immediate<T>(fn: () => T): T;
  /** A write transaction without the fsync, for state whose loss on an OS crash is harmless. */
  immediateNormal<T>(fn: () => T): T;
  nextId(): number;
  tableExists(namespace: string, name: string): boolean;
}

export class SqlSequences {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  get(namespace: string, name: string): SequenceRecord | undefined {
    return this.#c.cached(`sequence ${JSON.stringify([namespace, name])}`, () => {
      const r = this.#c.sql('SELECT * FROM sequences WHERE namespace = ? AND name = ?').get(namespace, name) as SequenceRow | undefined;
      return r === undefined ? undefined : toRecord(r);
    });
  }

  getById(id: number): SequenceRecord | undefined {
    return this.#c.cached(`sequence ${id}`, () => {
      const r = this.#c.sql('SELECT * FROM sequences WHERE seq_id = ?').get(id) as SequenceRow | undefined;
      return r === undefined ? undefined : toRecord(r);
    });
  }

  list(namespace?: string): SequenceRecord[] {
    return this.#c.cached(`sequences ${namespace ?? ''}`, () => {
      const rows = (namespace === undefined
        ? this.#c.sql('SELECT * FROM sequences ORDER BY seq_id').all()
        : this.#c.sql('SELECT * FROM sequences WHERE namespace = ? ORDER BY seq_id').all(namespace)) as SequenceRow[];
      return rows.map(toRecord);
    });
  }

  /** `<base>_<label>`, or with a number after the label, whichever names no relation yet (PostgreSQL's ChooseRelationName). */
  freeName(namespace: string, base: string, label: string, alsoTaken: readonly string[]): string {
    for (let pass = 0; ; pass++) {
      const suffix = `_${label}${pass === 0 ? '' : pass}`;
      const name = `${base.slice(0, 63 - suffix.length)}${suffix}`;
      if (!alsoTaken.includes(name) && !this.#c.tableExists(namespace, name) && this.get(namespace, name) === undefined) return name;
    }
  }

  create(s: NewSequence, ifNotExists: boolean): { sequence: SequenceRecord | undefined; created: boolean } {
    const existing = this.get(s.namespace, s.name);
    if (existing !== undefined || this.#c.tableExists(s.namespace, s.name)) {
      if (ifNotExists) return { sequence: existing, created: false };
      throw new FloeError(SqlState.duplicateTable, `relation "${s.name}" already exists`);
    }
    const id = this.#c.nextId();
    this.insert(id, s);
    return { sequence: this.getById(id)!, created: true };
  }

  insert(id: number, s: NewSequence): void {
    const p = s.params;
    this.#c.sql(`INSERT INTO sequences (seq_id, namespace, name, data_type, increment, min_value, max_value, start, cache, cycle,
      last_value, is_called, owner_table, owner_field) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`)
      .run(id, s.namespace, s.name, p.dataType, p.increment, p.minValue, p.maxValue, p.start, p.cache, p.cycle ? 1 : 0,
        p.start, s.ownedBy?.tableId ?? null, s.ownedBy?.fieldId ?? null);
  }

  update(id: number, patch: SequencePatch): SequenceRecord {
    return this.#c.immediate(() => {
      const cur = this.getById(id);
      if (cur === undefined) throw new FloeError(SqlState.undefinedTable, `sequence ${id} does not exist`);
      if (patch.name !== undefined && patch.name !== cur.name) {
        if (this.get(cur.namespace, patch.name) !== undefined || this.#c.tableExists(cur.namespace, patch.name)) {
          throw new FloeError(SqlState.duplicateTable, `relation "${patch.name}" already exists`);
        }
        this.#c.sql('UPDATE sequences SET name = ? WHERE seq_id = ?').run(patch.name, id);
      }
      if (patch.params !== undefined) {
        const p = patch.params;
        this.#c.sql(`UPDATE sequences SET data_type = ?, increment = ?, min_value = ?, max_value = ?, start = ?, cache = ?, cycle = ?,
          generation = generation + 1 WHERE seq_id = ?`)
          .run(p.dataType, p.increment, p.minValue, p.maxValue, p.start, p.cache, p.cycle ? 1 : 0, id);
      }
      if (patch.restartAt !== undefined) {
        this.#c.sql('UPDATE sequences SET last_value = ?, is_called = 0, generation = generation + 1 WHERE seq_id = ?').run(patch.restartAt, id);
      }
      if (patch.ownedBy !== undefined) {
        this.#c.sql('UPDATE sequences SET owner_table = ?, owner_field = ? WHERE seq_id = ?')
          .run(patch.ownedBy?.tableId ?? null, patch.ownedBy?.fieldId ?? null, id);
      }
      return this.getById(id)!;
    });
  }

  drop(id: number): void {
    this.#c.sql('DELETE FROM sequences WHERE seq_id = ?').run(id);
    this.#c.sql("DELETE FROM object_acls WHERE object_kind = 'relation' AND object_key = ?").run(String(id));
  }

  reserve(id: number, count: number): { values: bigint[]; generation: number } {
    return this.#c.immediate(() => {
      const r = this.#c.sql('SELECT * FROM sequences WHERE seq_id = ?').get(id) as SequenceRow | undefined;
      if (r === undefined) throw new FloeError(SqlState.undefinedTable, `could not open relation with OID ${id}`);
      const s = toRecord(r);
      const values = followingValues(s.name, s, s.lastValue, s.isCalled, count);
      this.#c.sql('UPDATE sequences SET last_value = ?, is_called = 1 WHERE seq_id = ?').run(values[values.length - 1]!, id);
      return { values, generation: s.generation };
    });
  }

  setValue(id: number, value: bigint, isCalled: boolean): void {
    this.#c.sql('UPDATE sequences SET last_value = ?, is_called = ?, generation = generation + 1 WHERE seq_id = ?').run(value, isCalled ? 1 : 0, id);
  }

  release(id: number, generation: number, reservedLast: bigint, lastValue: bigint, isCalled: boolean): boolean {
    return this.#c.sql(`UPDATE sequences SET last_value = ?, is_called = ? WHERE seq_id = ? AND generation = ? AND last_value = ? AND is_called = 1`)
      .run(lastValue, isCalled ? 1 : 0, id, generation, reservedLast).changes > 0;
  }
}
