import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { isTempNamespaceName } from '../common/temp-namespace.js';
import { AclRight, BOOTSTRAP_SUPERUSER_OID, aclMask, type SecuredObject, type Warehouse } from '../lake/index.js';
import type { DdlCommand, TableName } from '../sql/index.js';
import type { SessionContext } from './session-context.js';
import { findIndex } from './unique-ddl.js';
import { defaultAclFor } from './default-privileges.js';

/**
 * Who may run a DDL statement, as PostgreSQL 15 decides: CREATE needs the schema's CREATE
 * privilege (CREATE SCHEMA the database's); DROP, ALTER, COMMENT and CREATE INDEX need
 * ownership (or membership in the owning role); branch and tag DDL needs UPDATE on the
 * table; subscriptions and optimizer groups are superusers' business. Superusers pass.
 */
export function checkDdlPrivileges(ctx: SessionContext, c: DdlCommand): void {
  const p = ctx.privileges;
  if (p.isSuperuser()) return;
  const w = ctx.deps.warehouse;
  const relation = (t: TableName, kind: 'table' | 'view' | 'sequence'): SecuredObject | undefined => {
    const id = kind === 'table' ? w.getTable(t.namespace, t.name)?.id : kind === 'view' ? w.getView(t.namespace, t.name)?.id : w.getSequence(t.namespace, t.name)?.id;
    return id === undefined ? undefined : { kind: 'relation', id };
  };
  const own = (t: TableName, kind: 'table' | 'view' | 'sequence') => {
    const o = relation(t, kind);
    if (o !== undefined) p.requireOwner(o, kind, t.name);
  };
  const create = (schema: string) => {
    if (!isTempNamespaceName(schema) && schema !== 'pg_temp') p.requireSchema(schema, AclRight.create);
  };
  switch (c.kind) {
    case 'createTable': case 'createTableAs': return create(c.table.namespace);
    case 'createView':
      create(c.view.namespace);
      if (c.orReplace) own(c.view, 'view');
      return;
    case 'createSequence': return create(c.sequence.namespace);
    case 'createMaterializedView': return create(c.view.namespace);
    case 'refreshMaterializedView': case 'alterMaterializedView': {
      const o = relation(c.view, 'table');
      if (o !== undefined) p.requireOwner(o, 'materialized view', c.view.name);
      return;
    }
    case 'dropMaterializedView':
      for (const v of c.views) { const o = relation(v, 'table'); if (o !== undefined) p.requireOwner(o, 'materialized view', v.name); }
      return;
    case 'createType': return create(c.type.namespace);
    case 'createSchema': return requireDatabaseCreate(ctx);
    case 'createIndex': return own(c.table, 'table');
    case 'dropTable': for (const t of c.tables) own(t, 'table'); return;
    case 'dropView': for (const v of c.views) own(v, 'view'); return;
    case 'dropSequence': for (const s of c.sequences) own(s, 'sequence'); return;
    case 'alterSequence': return own(c.sequence, 'sequence');
    case 'dropSchema': for (const n of c.names) if (w.listNamespaces().includes(n)) p.requireOwner({ kind: 'schema', name: n }, 'schema', n); return;
    case 'dropIndex':
      for (const n of c.names) {
        const found = findIndex(w, n.schema === undefined ? ctx.searchPath() : [n.schema], n.name);
        if (found !== undefined) p.requireOwner({ kind: 'relation', id: found.owner.id }, 'index', n.name);
      }
      return;
    case 'alterTable': {
      const refsOnly = c.actions.every((a) => a.kind === 'createRef' || a.kind === 'dropRef');
      const t = w.getTable(c.table.namespace, c.table.name);
      if (t === undefined) return;
      // A branch or tag is a write to the table's history: UPDATE suffices, as for writing to a branch.
      if (refsOnly && p.relationMask(t.id, 'table', AclRight.update) !== 0) return;
      return own(c.table, 'table');
    }
    case 'alterView': own(c.view, 'view'); if (c.setSchema !== undefined) create(c.setSchema); return;
    case 'setTableSchema': own(c.table, 'table'); create(c.schema); return;
    case 'comment': {
      if (c.objectKind !== 'materialized view') return own(c.relation, c.objectKind === 'view' ? 'view' : 'table');
      const o = relation(c.relation, 'table');
      if (o !== undefined) p.requireOwner(o, 'materialized view', c.relation.name);
      return;
    }
    case 'alterType': case 'dropType': {
      const targets = c.kind === 'alterType' ? [c.target] : c.types;
      for (const t of targets) {
        const type = w.getType(t.type.namespace, t.type.name);
        if (type !== undefined) p.requireOwner({ kind: 'type', oid: type.oid }, 'type', t.written);
      }
      return;
    }
    case 'createSubscription': case 'alterSubscription': case 'dropSubscription':
      throw new FloeError(SqlState.insufficientPrivilege, `must be superuser to ${c.kind === 'createSubscription' ? 'create' : c.kind === 'alterSubscription' ? 'alter' : 'drop'} subscriptions`);
    case 'createPublication': case 'alterPublication': case 'dropPublication':
      return requireDatabaseCreate(ctx);
    case 'createOptimizerGroup': case 'alterOptimizerGroup': case 'dropOptimizerGroup':
      throw new FloeError(SqlState.insufficientPrivilege, 'must be superuser to manage optimizer groups');
    default:
      // Roles, GRANT / REVOKE and ALTER … OWNER TO make their own checks.
      return;
  }
}

/** CREATE on the database: its owner (the bootstrap superuser) and those it was granted to. */
function requireDatabaseCreate(ctx: SessionContext): void {
  const r = ctx.privileges.record({ kind: 'database' });
  const me = ctx.identity.currentRole().oid;
  if (aclMask({ kind: 'database', owner: r.owner, acl: r.acl }, me, AclRight.create, ctx.identity.graph().privilegeOracle) === 0) {
    throw new FloeError(SqlState.insufficientPrivilege, `permission denied for database ${ctx.deps.startup.database}`);
  }
}

/** An object a CREATE makes, with what its default privileges are looked up by. */
interface Created {
  readonly object: SecuredObject;
  readonly kind: 'table' | 'sequence' | 'type' | 'schema';
  readonly schema: string | null;
}

/** The objects a CREATE statement makes, if they exist now. */
function createdObjects(ctx: SessionContext, c: DdlCommand): Created[] | undefined {
  const w = ctx.deps.warehouse;
  switch (c.kind) {
    case 'createTable': case 'createTableAs': {
      const t = w.getTable(c.table.namespace, c.table.name);
      if (t === undefined) return [];
      const owned = w.listSequences().filter((s) => s.ownedBy?.tableId === t.id)
        .map((s): Created => ({ object: { kind: 'relation', id: s.id }, kind: 'sequence', schema: s.namespace }));
      return [{ object: { kind: 'relation', id: t.id }, kind: 'table', schema: t.namespace }, ...owned];
    }
    case 'createView': {
      const v = w.getView(c.view.namespace, c.view.name);
      return v === undefined ? [] : [{ object: { kind: 'relation', id: v.id }, kind: 'table', schema: v.namespace }];
    }
    case 'createMaterializedView': {
      const t = w.getTable(c.view.namespace, c.view.name);
      return t === undefined ? [] : [{ object: { kind: 'relation', id: t.id }, kind: 'table', schema: t.namespace }];
    }
    case 'createSequence': {
      const s = w.getSequence(c.sequence.namespace, c.sequence.name);
      return s === undefined ? [] : [{ object: { kind: 'relation', id: s.id }, kind: 'sequence', schema: s.namespace }];
    }
    case 'createSchema': return w.listNamespaces().includes(c.name) ? [{ object: { kind: 'schema', name: c.name }, kind: 'schema', schema: null }] : [];
    case 'createType': {
      const t = w.getType(c.type.namespace, c.type.name);
      return t === undefined ? [] : [{ object: { kind: 'type', oid: t.oid }, kind: 'type', schema: t.namespace }];
    }
    default: return undefined;
  }
}

/**
 * Runs a CREATE so that what it makes belongs to the current role, with the ACL that
 * role's default privileges give it (ALTER DEFAULT PRIVILEGES); the bootstrap superuser
 * owns whatever has no record, so its objects need one only for defaults. Objects that
 * existed before (IF NOT EXISTS, OR REPLACE) keep theirs. A serial column's sequence goes
 * with its table.
 */
export async function withNewOwner<T>(ctx: SessionContext, c: DdlCommand, run: () => Promise<T>): Promise<T> {
  const owner = ctx.identity.currentRole().oid;
  const w = ctx.deps.warehouse;
  const hasDefaults = w.privileges.list().some((r) => r.object.kind === 'defaults' && r.object.role === owner);
  const before = owner === BOOTSTRAP_SUPERUSER_OID && !hasDefaults ? undefined : createdObjects(ctx, c);
  const result = await run();
  if (before === undefined) return result;
  const key = (o: Created) => JSON.stringify(o.object);
  const existed = new Set(before.map(key));
  const made = (createdObjects(ctx, c) ?? []).filter((o) => !existed.has(key(o)));
  const records = made.map((o) => ({ ...w.privileges.get(o.object), owner, acl: defaultAclFor(w, owner, o.schema, o.kind) }))
    .filter((r) => r.owner !== BOOTSTRAP_SUPERUSER_OID || r.acl !== null);
  if (records.length > 0) w.privileges.put(records);
  return result;
}

/** An object as PostgreSQL's dependency messages name it: "table s.t", "view s.v", "schema s"; undefined when it is gone. */
export function describeObject(w: Warehouse, o: SecuredObject, database: string): string | undefined {
  switch (o.kind) {
    case 'relation': {
      const t = w.getTableById(o.id);
      if (t !== undefined) return `table ${t.namespace}.${t.name}`;
      const v = w.getViewById(o.id);
      if (v !== undefined) return `view ${v.namespace}.${v.name}`;
      const s = w.getSequenceById(o.id);
      return s === undefined ? undefined : `sequence ${s.namespace}.${s.name}`;
    }
    case 'schema': return w.listNamespaces().includes(o.name) ? `schema ${o.name}` : undefined;
    case 'type': {
      const t = w.getTypeByOid(o.oid);
      return t === undefined ? undefined : `type ${t.namespace}.${t.name}`;
    }
    case 'database': return `database ${database}`;
    case 'defaults': {
      const what = { r: 'relations', S: 'sequences', T: 'types', n: 'schemas' }[o.objtype];
      const role = w.roles.getByOid(o.role)?.name ?? String(o.role);
      return `default privileges on new ${what} belonging to role ${role}${o.schema === null ? '' : ` in schema ${o.schema}`}`;
    }
  }
}

/** Column ACLs are kept by column name: a renamed column keeps its grants, a dropped one loses them. */
export function columnAclsFollow(w: Warehouse, tableId: number, change: { kind: 'renameColumn'; from: string; to: string } | { kind: 'dropColumn'; name: string }): void {
  const r = w.privileges.get({ kind: 'relation', id: tableId });
  const from = change.kind === 'renameColumn' ? change.from : change.name;
  const acl = r.columnAcls[from];
  if (acl === undefined) return;
  const columnAcls = { ...r.columnAcls };
  delete columnAcls[from];
  if (change.kind === 'renameColumn') columnAcls[change.to] = acl;
  w.privileges.put([{ ...r, columnAcls }]);
}
