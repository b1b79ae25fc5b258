import type { Acl, AclItem } from '../security/acl.js';
import { defaultObjectAcl, securedObjectKey } from '../security/object-acl.js';
import type { DefaultAclObjectType, ObjectAclRecord, PrivilegeCatalog, SecuredObject } from '../security/object-acl.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Owners and ACLs (table `object_acls`): one row per object that has left its defaults,
 * keyed by kind and key (a relation's id, a schema's name, '' for the database). ACLs are
 * JSON arrays of [grantee, grantor, privileges, grant options] by role oid, so renaming a
 * role changes nothing here.
 */
interface AclRow { object_kind: string; object_key: string; owner_oid: bigint; acl: string | null; column_acls: string }

type StoredItem = [number, number, number, number];

const toJson = (acl: Acl): StoredItem[] => acl.map((i) => [i.grantee, i.grantor, i.privileges, i.grantOptions]);
const fromJson = (items: StoredItem[]): AclItem[] => items.map(([grantee, grantor, privileges, grantOptions]) => ({ grantee, grantor, privileges, grantOptions }));

function objectOf(r: AclRow): SecuredObject {
  switch (r.object_kind) {
    case 'relation': return { kind: 'relation', id: Number(r.object_key) };
    case 'schema': return { kind: 'schema', name: r.object_key };
    case 'type': return { kind: 'type', oid: Number(r.object_key) };
    case 'defaults': {
      const [role, schema, objtype] = JSON.parse(r.object_key) as [number, string | null, DefaultAclObjectType];
      return { kind: 'defaults', role, schema, objtype };
    }
    default: return { kind: 'database' };
  }
}

function toRecord(r: AclRow): ObjectAclRecord {
  const columns = JSON.parse(r.column_acls) as Record<string, StoredItem[]>;
  return {
    object: objectOf(r), owner: Number(r.owner_oid),
    acl: r.acl === null ? null : fromJson(JSON.parse(r.acl) as StoredItem[]),
    columnAcls: Object.fromEntries(Object.entries(columns).map(([name, items]) => [name, fromJson(items)])),
  };
}

export class SqlPrivileges implements PrivilegeCatalog {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  list(): ObjectAclRecord[] {
    return this.#c.cached('object acls', () => (this.#c.sql('SELECT * FROM object_acls ORDER BY object_kind, object_key').all() as AclRow[]).map(toRecord));
  }

  get(object: SecuredObject): ObjectAclRecord {
    const key = securedObjectKey(object);
    return this.list().find((r) => r.object.kind === object.kind && securedObjectKey(r.object) === key) ?? defaultObjectAcl(object);
  }

  put(records: readonly ObjectAclRecord[]): void {
    this.#c.immediate(() => {
      for (const record of records) {
        const columns = Object.fromEntries(Object.entries(record.columnAcls).map(([name, acl]) => [name, toJson(acl)]));
        this.#c.sql(`INSERT INTO object_acls VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (object_kind, object_key) DO UPDATE SET owner_oid = excluded.owner_oid, acl = excluded.acl, column_acls = excluded.column_acls`)
          .run(record.object.kind, securedObjectKey(record.object), record.owner, record.acl === null ? null : JSON.stringify(toJson(record.acl)), JSON.stringify(columns));
      }
    });
  }

  forget(object: SecuredObject): void {
    this.#c.immediate(() => {
      this.#c.sql('DELETE FROM object_acls WHERE object_kind = ? AND object_key = ?').run(object.kind, securedObjectKey(object));
    });
  }
}
