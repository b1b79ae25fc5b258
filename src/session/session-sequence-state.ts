import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SessionSequences } from '../exec/index.js';
import type { SequenceMetadata, Warehouse } from '../lake/index.js';

/**
 * One session's view of sequences: currval per sequence and lastval, as PostgreSQL keeps
 * them per backend. Values themselves come from the warehouse, which reserves them in the
 * catalog; nothing here is undone by ROLLBACK.
 */
export class SessionSequenceState implements SessionSequences {
  readonly #warehouse: Warehouse;
  readonly #current = new Map<number, bigint>();
  #lastUsed: number | undefined;

  constructor(warehouse: Warehouse) {
    this.#warehouse = warehouse;
  }

  #sequence(oid: number): SequenceMetadata {
    const s = this.#warehouse.getSequenceById(oid);
    if (s !== undefined) return s;
    const t = this.#warehouse.getTableById(oid);
    if (t !== undefined) throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a sequence`);
    throw new FloeError(SqlState.undefinedTable, `could not open relation with OID ${oid}`);
  }

  nextval(oid: number): bigint {
    this.#sequence(oid);
    const v = this.#warehouse.nextSequenceValue(oid);
    this.#current.set(oid, v);
    this.#lastUsed = oid;
    return v;
  }

  currval(oid: number): bigint {
    const s = this.#sequence(oid);
    const v = this.#current.get(oid);
    if (v === undefined) throw new FloeError(SqlState.objectNotInPrerequisiteState, `currval of sequence "${s.name}" is not yet defined in this session`);
    return v;
  }

  setval(oid: number, value: bigint, isCalled: boolean): bigint {
    this.#sequence(oid);
    this.#warehouse.setSequenceValue(oid, value, isCalled);
    if (isCalled) this.#current.set(oid, value);
    return value;
  }

  lastval(): bigint {
    const oid = this.#lastUsed;
    if (oid === undefined || this.#warehouse.getSequenceById(oid) === undefined) {
      throw new FloeError(SqlState.objectNotInPrerequisiteState, 'lastval is not yet defined in this session');
    }
    return this.#current.get(oid)!;
  }
}
