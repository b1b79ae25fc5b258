import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EnumLabel, UserTypeMetadata } from '../table/user-type-metadata.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * User-defined types in the catalog: enums and shell types. A row holds the type's
 * oid, its array type's oid and, for an enum, its labels with their sort orders and oids
 * (JSON, in sort order). Oids come from the relations' id counter, so no pg_class or
 * pg_type oid meets another.
 */
interface TypeRow { type_oid: bigint; array_oid: bigint; namespace: string; name: string; labels: string | null }

function toType(r: TypeRow): UserTypeMetadata {
  return {
    oid: Number(r.type_oid), arrayOid: Number(r.array_oid), namespace: r.namespace, name: r.name,
    ...(r.labels === null ? {} : { labels: JSON.parse(r.labels) as EnumLabel[] }),
  };
}

/** PostgreSQL's limit on an enum label (NAMEDATALEN - 1 bytes). */
const MAX_LABEL_BYTES = 63;

export function checkEnumLabel(label: string): void {
  if (Buffer.byteLength(label, 'utf8') > MAX_LABEL_BYTES) {
    throw new FloeError(SqlState.invalidName, `invalid enum label "${label}"`, { detail: 'Labels must be 63 bytes or less.' });
  }
}

export class SqlTypes {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  get(namespace: string, name: string): UserTypeMetadata | undefined {
    return this.#c.cached(`type ${JSON.stringify([namespace, name])}`, () => {
      const r = this.#c.sql('SELECT * FROM user_types WHERE namespace = ? AND name = ?').get(namespace, name) as TypeRow | undefined;
      return r === undefined ? undefined : toType(r);
    });
  }

  getByOid(oid: number): UserTypeMetadata | undefined {
    return this.list().find((t) => t.oid === oid);
  }

  list(): UserTypeMetadata[] {
    return this.#c.cached('types', () => (this.#c.sql('SELECT * FROM user_types ORDER BY type_oid').all() as TypeRow[]).map(toType));
  }

  /** A new type; the caller checked the schema and the name. Labels undefined: a shell type. */
  create(namespace: string, name: string, labels: readonly string[] | undefined): UserTypeMetadata {
    // PostgreSQL makes the array type first: its oid is one below the type's.
    const arrayOid = labels === undefined ? 0 : this.#c.nextId();
    const oid = this.#c.nextId();
    const seen = new Set<string>();
    for (const l of labels ?? []) {
      checkEnumLabel(l);
      if (seen.has(l)) throw new FloeError(SqlState.uniqueViolation, 'duplicate key value violates unique constraint "pg_enum_typid_label_index"', { detail: `Key (enumtypid, enumlabel)=(${oid}, ${l}) already exists.` });
      seen.add(l);
    }
    const rows = labels?.map((label, i): EnumLabel => ({ oid: this.#c.nextId(), label, sortOrder: i + 1 }));
    this.#c.sql('INSERT INTO user_types VALUES (?, ?, ?, ?, ?)')
      .run(oid, arrayOid, namespace, name, rows === undefined ? null : JSON.stringify(rows));
    return this.getByOid(oid)!;
  }

  setLabels(oid: number, labels: readonly EnumLabel[]): void {
    this.#c.sql('UPDATE user_types SET labels = ? WHERE type_oid = ?').run(JSON.stringify(labels), oid);
  }

  newLabelOid(): number {
    return this.#c.nextId();
  }

  move(oid: number, to: { namespace: string; name: string }): void {
    this.#c.sql('UPDATE user_types SET namespace = ?, name = ? WHERE type_oid = ?').run(to.namespace, to.name, oid);
  }

  drop(oid: number): void {
    this.#c.sql('DELETE FROM user_types WHERE type_oid = ?').run(oid);
  }

  dropInNamespace(namespace: string): void {
    this.#c.sql('DELETE FROM user_types WHERE namespace = ?').run(namespace);
  }
}
