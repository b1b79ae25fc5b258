import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import {
  PUBLIC_ROLE, aclMerge, acldefault, applyGrant, applyRevoke, privilegeFromName,
} from '../lake/index.js';
import type { Acl, DefaultAclObjectType, ObjectAclRecord, SecuredObject, Warehouse } from '../lake/index.js';
import type { PrivilegeDdl, RoleRef } from '../sql/index.js';
import type { SessionIdentity } from './session-identity.js';

type DefaultsDdl = Extract<PrivilegeDdl, { kind: 'alterDefaultPrivileges' }>;
type DefaultKind = DefaultsDdl['objectKind'];

const OBJTYPE: Readonly<Record<DefaultKind, DefaultAclObjectType>> = { table: 'r', sequence: 'S', type: 'T', schema: 'n' };

function sameAcl(a: Acl, b: Acl): boolean {
  const key = (acl: Acl) => acl.map((i) => `${i.grantee}/${i.grantor}/${i.privileges}/${i.grantOptions}`).sort().join(',');
  return key(a) === key(b);
}

/**
 * ALTER DEFAULT PRIVILEGES, as PostgreSQL 15 keeps them (pg_default_acl): per role, object
 * kind and schema (or every schema). A role's global defaults start from the kind's default
 * ACL and are dropped when they come back to it; a schema's hold only what they add.
 * Changing another role's defaults needs membership in it.
 */
export function runAlterDefaultPrivileges(warehouse: Warehouse, identity: SessionIdentity, c: DefaultsDdl): string {
  const g = identity.graph();
  const me = identity.currentRole();
  const roleOf = (ref: RoleRef): number => {
    if (ref.kind === 'public') return PUBLIC_ROLE;
    const name = ref.kind === 'name' ? ref.name : ref.kind === 'session_user' ? identity.sessionUser() : identity.currentUser();
    const r = g.role(name);
    if (r === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
    return r.oid;
  };
  const targets = c.roles.length === 0 ? [me.oid] : c.roles.map(roleOf);
  for (const role of targets) {
    if (!me.superuser && !g.isMemberOf(me.oid, role)) throw new FloeError(SqlState.insufficientPrivilege, `must be member of role "${g.roleByOid(role)?.name ?? role}"`);
  }
  for (const s of c.schemas) {
    if (!warehouse.listNamespaces().includes(s)) throw new FloeError(SqlState.undefinedSchema, `schema "${s}" does not exist`);
  }
  const grantees = c.grantees.map(roleOf);
  const privileges = 'all' in c.privileges ? 'all' as const : c.privileges.map((p) => privilegeFromName(p.name === 'temp' ? 'temporary' : p.name));
  const roles = g.privilegeOracle;
  const records: ObjectAclRecord[] = [];
  const gone: SecuredObject[] = [];
  for (const role of targets) {
    for (const schema of c.schemas.length === 0 ? [null] : c.schemas) {
      const object: SecuredObject = { kind: 'defaults', role, schema, objtype: OBJTYPE[c.objectKind] };
      const stored = warehouse.privileges.get(object).acl;
      const base = acldefault(c.objectKind, role);
      const current = stored ?? (schema === null ? base : []);
      // The role acts as the objects' owner would: it holds every grant option.
      const statement = { target: { kind: c.objectKind, owner: role, acl: current, name: '' }, currentRole: role, grantees, privileges };
      const change = c.isGrant
        ? applyGrant({ ...statement, withGrantOption: c.grantOption }, roles)
        : applyRevoke({ ...statement, grantOptionFor: c.grantOption, cascade: c.cascade }, roles);
      const acl = change.acl ?? [];
      if (schema === null ? sameAcl(acl, base) : acl.length === 0) gone.push(object);
      else records.push({ object, owner: role, acl, columnAcls: {} });
    }
  }
  if (records.length > 0) warehouse.privileges.put(records);
  for (const o of gone) warehouse.privileges.forget(o);
  return 'ALTER DEFAULT PRIVILEGES';
}

/**
 * The ACL a new object of `kind` made by `owner` in `schema` starts with: the owner's
 * global defaults (or the kind's default) merged with its defaults for the schema; null
 * when that is just the kind's default, as PostgreSQL leaves relacl NULL then.
 */
export function defaultAclFor(warehouse: Warehouse, owner: number, schema: string | null, kind: DefaultKind): Acl | null {
  const objtype = OBJTYPE[kind];
  const records = warehouse.privileges.list().filter((r) => r.object.kind === 'defaults' && r.object.role === owner && r.object.objtype === objtype);
  if (records.length === 0) return null;
  const base = acldefault(kind, owner);
  const global = records.find((r) => r.object.kind === 'defaults' && r.object.schema === null)?.acl ?? base;
  const inSchema = schema === null ? [] : records.find((r) => r.object.kind === 'defaults' && r.object.schema === schema)?.acl ?? [];
  const merged = aclMerge(global, inSchema);
  return sameAcl(merged, base) ? null : merged;
}
