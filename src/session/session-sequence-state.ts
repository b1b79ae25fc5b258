import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import type { SessionSequences } from '../exec/index.js';
import { AclRight, type SequenceMetadata, type Warehouse } from '../lake/index.js';

/** Refuses (42501) unless the current role holds one of `anyOf` on the sequence. */
export type SequencePrivilegeCheck = (sequence: SequenceMetadata, anyOf: number) => void;

/**
 * One session's view of sequences: currval per sequence and lastval, as PostgreSQL keeps
 * them per backend. Values themselves come from the warehouse, which reserves them in the
 * catalog; nothing here is undone by ROLLBACK.
 */
export class SessionSequenceState implements SessionSequences {
  readonly #warehouse: Warehouse;
  readonly #current = new Map<number, bigint>();
  #lastUsed: number | undefined;
  readonly #check: SequencePrivilegeCheck | undefined;

  /** `check` refuses a call the current role lacks every one of `anyOf` (AclRight bits) for. */
  constructor(warehouse: Warehouse, check?: SequencePrivilegeCheck) {
    this.#warehouse = warehouse;
    this.#check = check;
  }

  /**
   * PostgreSQL's rights per call: nextval USAGE or UPDATE, currval and lastval SELECT or
   * USAGE, setval UPDATE. An identity column's sequence needs none (its table's INSERT is
   * the permission), unlike a serial column's, as in PostgreSQL.
   */
  #allow(s: SequenceMetadata, anyOf: number): void {
    if (this.#check === undefined) return;
    const owner = s.ownedBy === undefined ? undefined : this.#warehouse.getTableById(s.ownedBy.tableId);
    if (owner?.columns.some((c) => c.identity?.sequenceId === s.id) === true) return;
    this.#check(s, anyOf);
  }

  #sequence(oid: number): SequenceMetadata {
    const s = this.#warehouse.getSequenceById(oid);
    if (s !== undefined) return s;
    const t = this.#warehouse.getTableById(oid);
    if (t !== undefined) throw new FloeError(SqlState.wrongObjectType, `"${t.name}" is not a sequence`);
    throw new FloeError(SqlState.undefinedTable, `could not open relation with OID ${oid}`);
  }

  nextval(oid: number): bigint {
    this.#allow(this.#sequence(oid), AclRight.usage | AclRight.update);
    const v = this.#warehouse.nextSequenceValue(oid);
    this.#current.set(oid, v);
    this.#lastUsed = oid;
    return v;
  }

  currval(oid: number): bigint {
    const s = this.#sequence(oid);
    this.#allow(s, AclRight.select | AclRight.usage);
    const v = this.#current.get(oid);
    if (v === undefined) throw new FloeError(SqlState.objectNotInPrerequisiteState, `currval of sequence "${s.name}" is not yet defined in this session`);
    return v;
  }

  setval(oid: number, value: bigint, isCalled: boolean): bigint {
    this.#allow(this.#sequence(oid), AclRight.update);
    this.#warehouse.setSequenceValue(oid, value, isCalled);
    if (isCalled) this.#current.set(oid, value);
    return value;
  }

  lastval(): bigint {
    const oid = this.#lastUsed;
    if (oid === undefined || this.#warehouse.getSequenceById(oid) === undefined) {
      throw new FloeError(SqlState.objectNotInPrerequisiteState, 'lastval is not yet defined in this session');
    }
    this.#allow(this.#sequence(oid), AclRight.select | AclRight.usage);
    return this.#current.get(oid)!;
  }
}
