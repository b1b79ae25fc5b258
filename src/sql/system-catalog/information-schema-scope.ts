import { AclRight } from '../../lake/index.js';
import type { Acl } from '../../lake/index.js';
import { catalogAcls, catalogColumnAcl, type AclRelationFacts, type CatalogAcls } from './catalog-acls.js';
import { catalogShapes } from './catalog-shapes.js';
import type { CatalogView } from './catalog-view.js';

/**
 * What information_schema shows the current user, by PostgreSQL 15's rules: a schema when
 * the user has its owner's privileges or any privilege on it; a table or view when the user
 * has its owner's privileges or any privilege on it or on one of its columns; a column when
 * the user has the owner's privileges or a column privilege on it (directly or through the
 * table); a sequence when the user has the owner's privileges or any sequence privilege.
 * Superusers see everything.
 */
export interface InformationSchemaScope {
  schema(name: string): boolean;
  /** A table, view or catalog relation, by schema and name. */
  relation(schema: string, name: string): boolean;
  column(schema: string, table: string, column: string): boolean;
  sequence(schema: string, name: string): boolean;
}

const R = AclRight;
const TABLE_RIGHTS = R.select | R.insert | R.update | R.delete | R.truncate | R.references | R.trigger;
const COLUMN_RIGHTS = R.select | R.insert | R.update | R.references;
const SEQUENCE_RIGHTS = R.select | R.update | R.usage;

interface ScopedRelation extends AclRelationFacts {
  readonly columnAcl: (column: string) => Acl | null;
  readonly columns: readonly string[];
}

const everything: InformationSchemaScope = { schema: () => true, relation: () => true, column: () => true, sequence: () => true };
const catalogKinds = new Map(catalogShapes.map((c) => [`${c.schema}.${c.name}`, c.relkind]));
const FIRST_UNPINNED_OBJECT_ID = 12000;

class ScopeImpl implements InformationSchemaScope {
  readonly #acls: CatalogAcls;
  /** The current user's oid; a role that is gone sees what PUBLIC may. */
  readonly #me: number;
  readonly #relations = new Map<string, ScopedRelation>();
  readonly #sequences = new Map<string, ScopedRelation>();
  readonly #relationListed = new Map<string, boolean>();

  constructor(v: CatalogView, acls: CatalogAcls) {
    this.#acls = acls;
    this.#me = acls.currentRole ?? -1;
    const lake = (id: number, relkind: string, columns: readonly string[]): ScopedRelation => {
      const r = acls.relation(id);
      return { relkind, owner: r.owner, acl: r.acl, columns, columnAcl: (c) => r.columnAcls[c] ?? null };
    };
    for (const t of v.tables) this.#relations.set(`${t.namespace}.${t.name}`, lake(t.id, 'r', t.columns.map((c) => c.name)));
    for (const view of v.views) this.#relations.set(`${view.namespace}.${view.name}`, lake(view.id, 'v', view.columns.map((c) => c.name)));
    for (const s of v.sequences) this.#sequences.set(`${s.namespace}.${s.name}`, lake(s.id, 'S', []));
    for (const vt of v.virtualTables) {
      const { owner, acl } = acls.catalogRelation(vt.schema, vt.name);
      const relkind = catalogKinds.get(`${vt.schema}.${vt.name}`) === 'r' ? 'r' : 'v';
      this.#relations.set(`${vt.schema}.${vt.name}`, {
        relkind, owner, acl, systemCatalog: relkind === 'r' && vt.oid < FIRST_UNPINNED_OBJECT_ID,
        columns: vt.columns.filter((c) => c.system !== true).map((c) => c.name),
        columnAcl: (c) => catalogColumnAcl(vt.schema, vt.name, c) ?? null,
      });
    }
  }

  schema(name: string): boolean {
    return this.#acls.hasPrivilegesOf(this.#me, this.#acls.schema(name).owner) || this.#acls.schemaMask(this.#me, name, R.create | R.usage) !== 0;
  }

  relation(schema: string, name: string): boolean {
    const key = `${schema}.${name}`;
    let listed = this.#relationListed.get(key);
    if (listed === undefined) {
      const rel = this.#relations.get(key);
      listed = rel !== undefined && (this.#acls.hasPrivilegesOf(this.#me, rel.owner) || this.#acls.relationMask(this.#me, rel, TABLE_RIGHTS) !== 0
        || rel.columns.some((c) => this.#acls.columnMask(this.#me, rel.owner, rel.columnAcl(c), COLUMN_RIGHTS) !== 0));
      this.#relationListed.set(key, listed);
    }
    return listed;
  }

  column(schema: string, table: string, column: string): boolean {
    if (!this.relation(schema, table)) return false;
    const rel = this.#relations.get(`${schema}.${table}`)!;
    return this.#acls.hasPrivilegesOf(this.#me, rel.owner) || this.#acls.columnMask(this.#me, rel.owner, rel.columnAcl(column), COLUMN_RIGHTS) !== 0
      || this.#acls.relationMask(this.#me, rel, COLUMN_RIGHTS) !== 0;
  }

  sequence(schema: string, name: string): boolean {
    const rel = this.#sequences.get(`${schema}.${name}`);
    return rel !== undefined && (this.#acls.hasPrivilegesOf(this.#me, rel.owner) || this.#acls.relationMask(this.#me, rel, SEQUENCE_RIGHTS) !== 0);
  }
}

export function informationSchemaScope(v: CatalogView): InformationSchemaScope {
  const acls = catalogAcls(v.ctx);
  if (acls.currentRole !== undefined && acls.graph.isSuperuser(acls.currentRole)) return everything;
  return new ScopeImpl(v, acls);
}
