import type { SqlType } from '../../common/sql-type.js';
import type { CatalogUserType } from '../bind-env.js';
import type { BindContext } from './bind-context.js';
import { effectiveSearchPath } from './resolve-relation.js';
import type { UserTypeLookup } from './resolve-type-name.js';

/** The user-defined type a name finds: in its schema, or the first search_path schema that has it. */
export function findUserType(ctx: BindContext, schema: string | undefined, name: string): CatalogUserType | undefined {
  const w = ctx.env.warehouse;
  if (w.getType === undefined) return undefined;
  if (schema !== undefined) return w.getType(schema, name);
  for (const s of effectiveSearchPath(ctx)) {
    const t = w.getType(s, name);
    if (t !== undefined) return t;
  }
  return undefined;
}

/** resolveTypeName's view of the catalog's user types for this statement. */
export function userTypeLookup(ctx: BindContext): UserTypeLookup {
  return (schema, name) => {
    const t = findUserType(ctx, schema, name);
    if (t === undefined) return undefined;
    if (t.labels === undefined) return 'shell';
    const type: SqlType = {
      kind: 'text',
      enumType: { oid: t.oid, arrayOid: t.arrayOid, namespace: t.namespace, name: t.name, labels: t.labels.map((l) => l.label) },
    };
    return type;
  };
}
