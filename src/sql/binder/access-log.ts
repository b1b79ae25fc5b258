import { AclRight } from '../../lake/index.js';
import type { RelationAccess, StatementAccesses, SuperuserOnlyAccess } from '../relation-access.js';

interface MutableAccess {
  id: number;
  kind: RelationAccess['kind'];
  namespace: string;
  name: string;
  rights: number;
  selectColumns: Set<number>;
  insertColumns: Set<number>;
  updateColumns: Set<number>;
  throughView?: number;
}

/** The statement's relation accesses, collected while binding (relation-access.ts says what they are for). */
export class AccessLog {
  readonly #byKey = new Map<string, MutableAccess>();
  readonly #superuserOnly: SuperuserOnlyAccess[] = [];

  /** Records that the statement needs `rights` on the relation; `throughView`: named by that view's query. */
  relation(r: { id: number; kind: RelationAccess['kind']; namespace: string; name: string }, rights: number, throughView?: number): void {
    const a = this.#entry(r, throughView);
    a.rights |= rights;
  }

  /** A column of a relation read (an expression referenced it): SELECT on it, even in an UPDATE's WHERE or a RETURNING list. */
  read(id: number, columnNumber: number): void {
    for (const a of this.#byKey.values()) {
      if (a.id !== id) continue;
      a.selectColumns.add(columnNumber);
      a.rights |= AclRight.select;
    }
  }

  /** Whether the statement reads any column of the relation (through any view). */
  readsColumnsOf(id: number): boolean {
    for (const a of this.#byKey.values()) if (a.id === id && a.selectColumns.size > 0) return true;
    return false;
  }

  /**
   * CREATE VIEW's query: the relations it names need no right now (each use of the view
   * checks them, as its owner), only USAGE on their schemas, as in PostgreSQL.
   */
  keepOnlySchemaUsage(): void {
    for (const a of this.#byKey.values()) {
      a.rights = 0;
      a.selectColumns.clear();
    }
  }

  inserted(id: number, columnNumber: number): void {
    for (const a of this.#byKey.values()) if (a.id === id) a.insertColumns.add(columnNumber);
  }

  updated(id: number, columnNumber: number): void {
    for (const a of this.#byKey.values()) if (a.id === id) a.updateColumns.add(columnNumber);
  }

  superuserOnly(access: SuperuserOnlyAccess): void {
    if (!this.#superuserOnly.some((s) => s.name === access.name)) this.#superuserOnly.push(access);
  }

  #entry(r: { id: number; kind: RelationAccess['kind']; namespace: string; name: string }, throughView: number | undefined): MutableAccess {
    const key = `${r.id}/${throughView ?? ''}`;
    let a = this.#byKey.get(key);
    if (a === undefined) {
      a = { ...r, rights: 0, selectColumns: new Set(), insertColumns: new Set(), updateColumns: new Set(), ...(throughView === undefined ? {} : { throughView }) };
      this.#byKey.set(key, a);
    }
    return a;
  }

  list(): StatementAccesses {
    return { relations: [...this.#byKey.values()], superuserOnly: [...this.#superuserOnly] };
  }
}
