import type { PrivilegeCatalog } from '../../lake/index.js';
import { catalogAcls } from './catalog-acls.js';
import { namespaceOid } from './catalog-oids.js';
import type { CatalogView } from './catalog-view.js';

/** Oids for pg_default_acl rows: PostgreSQL gives each one; these are stable per row and clear of every other oid range used. */
const DEFAULT_ACL_OID_BASE = 0x58000000;

/** pg_default_acl: ALTER DEFAULT PRIVILEGES as recorded (defaclnamespace 0: every schema). */
export function pgDefaultAclRows(v: CatalogView): Record<string, unknown>[] {
  const privileges = (v.ctx.warehouse as { readonly privileges?: PrivilegeCatalog } | undefined)?.privileges;
  const acls = catalogAcls(v.ctx);
  return (privileges?.list() ?? []).flatMap((r, i) => (r.object.kind !== 'defaults' ? [] : [{
    oid: DEFAULT_ACL_OID_BASE + i, defaclrole: r.object.role, defaclnamespace: r.object.schema === null ? 0 : namespaceOid(r.object.schema),
    defaclobjtype: r.object.objtype, defaclacl: acls.aclText(r.acl),
  }]));
}
