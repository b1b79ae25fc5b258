import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { registerSetFunction } from '../../exec/index.js';
import { registerCatalogFunction } from './register-catalog-function.js';
import type { EvalContext } from '../../exec/index.js';
import { AclRight, aclItem, acldefault, aclRightLetters, formatAclItem, parseAclItem } from '../../lake/index.js';
import type { Acl, AclItem, AclObjectKind } from '../../lake/index.js';
import { catalogAcls, type CatalogAcls } from './catalog-acls.js';

/*
 * The aclitem functions catalog queries call: acldefault (pg_dump compares every ACL with
 * it), aclexplode (information_schema's way of reading an ACL) and makeaclitem. Floe's
 * aclitem[] columns are text[] whose elements print as aclitem does, so these read and
 * write that text.
 */

const TEXT: SqlType = { kind: 'text' };
const OID: SqlType = { kind: 'oid' };
const BOOL: SqlType = { kind: 'bool' };
const CHAR: SqlType = { kind: 'char' };

/** acldefault's object-type letters (PostgreSQL's acldefault_sql). */
const ACL_DEFAULT_KINDS: Readonly<Record<string, AclObjectKind>> = {
  c: 'column', r: 'table', s: 'sequence', d: 'database', f: 'function', l: 'language', L: 'largeobject', n: 'schema',
  p: 'parameter', t: 'tablespace', F: 'foreign-data-wrapper', S: 'foreign-server', T: 'type',
};

/** acldefault(kind, owner): the ACL a NULL ACL of that kind stands for. */
export function aclDefaultFor(letter: string, owner: number): Acl {
  const kind = ACL_DEFAULT_KINDS[letter];
  if (kind === undefined) throw new FloeError(SqlState.internalError, `unrecognized objtype abbreviation: ${letter}`);
  return acldefault(kind, owner);
}

/** aclexplode's privilege_type: each bit's name, as PostgreSQL's convert_aclright_to_string spells it. */
const RIGHT_NAMES = [
  'INSERT', 'SELECT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER', 'EXECUTE', 'USAGE', 'CREATE', 'TEMPORARY',
  'CONNECT', 'SET', 'ALTER SYSTEM',
] as const;

export interface ExplodedAclItem {
  readonly grantor: number;
  readonly grantee: number;
  readonly privilegeType: string;
  readonly isGrantable: boolean;
  /** The privilege's bit. */
  readonly right: number;
}

/** aclexplode: one row per item and privilege, items in order and privileges in bit order. */
export function explodeAcl(acl: Acl): ExplodedAclItem[] {
  const out: ExplodedAclItem[] = [];
  for (const item of acl) {
    for (let i = 0; i < aclRightLetters.length; i++) {
      const right = 1 << i;
      if ((item.privileges & right) === 0) continue;
      out.push({ grantor: item.grantor, grantee: item.grantee, privilegeType: RIGHT_NAMES[i]!, isGrantable: (item.grantOptions & right) !== 0, right });
    }
  }
  return out;
}

/** An aclitem's text back as an item; a role printed as its oid (it was dropped) reads back as that oid. */
function readItem(acls: CatalogAcls, text: string): AclItem {
  return parseAclItem(text, (name) => acls.graph.role(name)?.oid ?? (/^\d+$/.test(name) ? Number(name) : undefined));
}

const MAKEACLITEM_NAMES: Readonly<Record<string, number>> = {
  SELECT: AclRight.select, INSERT: AclRight.insert, UPDATE: AclRight.update, DELETE: AclRight.delete, TRUNCATE: AclRight.truncate,
  REFERENCES: AclRight.references, TRIGGER: AclRight.trigger, EXECUTE: AclRight.execute, USAGE: AclRight.usage, CREATE: AclRight.create,
  TEMP: AclRight.temporary, TEMPORARY: AclRight.temporary, CONNECT: AclRight.connect, SET: AclRight.set, 'ALTER SYSTEM': AclRight.alterSystem,
  RULE: 0,
};

function nameOf(acls: CatalogAcls): (oid: number) => string | undefined {
  return (oid) => acls.roleName(oid);
}

/** aclexplode's rows: grantor, grantee, privilege_type, is_grantable per privilege of the ACL. */
function* aclexplodeRows(acl: readonly (string | null)[], ctx: EvalContext): Generator<unknown[]> {
  const acls = catalogAcls(ctx);
  const items = acl.map((text) => {
    if (text === null) throw new FloeError(SqlState.nullValueNotAllowed, 'ACL arrays must not contain null values');
    return readItem(acls, text);
  });
  for (const e of explodeAcl(items)) yield [e.grantor, e.grantee, e.privilegeType, e.isGrantable];
}

export function registerAclFunctions(): void {
  registerCatalogFunction({
    name: 'acldefault', args: [CHAR, OID], returns: { kind: 'array', element: TEXT },
    impl: (a, ctx: EvalContext) => {
      const acls = catalogAcls(ctx);
      return aclDefaultFor(String(a[0]), Number(a[1])).map((item) => formatAclItem(item, nameOf(acls)));
    },
  });
  registerSetFunction({
    name: 'aclexplode', args: [{ kind: 'array', element: TEXT }], returns: TEXT,
    columns: [{ name: 'grantor', type: OID }, { name: 'grantee', type: OID }, { name: 'privilege_type', type: TEXT }, { name: 'is_grantable', type: BOOL }],
    impl: ([acl], ctx) => aclexplodeRows(acl as (string | null)[], ctx),
  });
  // PostgreSQL 15 takes one privilege name here (16 takes a list).
  registerCatalogFunction({
    name: 'makeaclitem', args: [OID, OID, TEXT, BOOL], returns: TEXT,
    impl: (a, ctx) => {
      const name = String(a[2]);
      const right = MAKEACLITEM_NAMES[name.toUpperCase()];
      if (right === undefined) throw new FloeError(SqlState.invalidParameterValue, `unrecognized privilege type: "${name}"`);
      const item = aclItem(Number(a[0]), Number(a[1]), right, a[3] === true ? right : 0);
      return formatAclItem(item, nameOf(catalogAcls(ctx)));
    },
  });
}
