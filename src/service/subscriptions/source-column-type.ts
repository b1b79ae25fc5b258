import type { SqlType, SqlTypeKind } from '../../common/sql-type.js';
import { typeOids } from '../../common/sql-type.js';

type ScalarKind = Exclude<SqlTypeKind, 'array'>;

/** Built-in types by OID, and array types by their array OID (pseudo and catalog-only types left out). */
const BY_OID = new Map<number, ScalarKind>();
const BY_ARRAY_OID = new Map<number, ScalarKind>();
for (const [kind, o] of Object.entries(typeOids) as [ScalarKind, { oid: number; arrayOid: number }][]) {
  if (kind === 'unknown' || kind === 'void') continue;
  BY_OID.set(o.oid, kind);
  if (o.arrayOid !== 0) BY_ARRAY_OID.set(o.arrayOid, kind);
}

/**
 * The Floe type of a source column from its type OID and typmod, as pg_attribute and
 * pgoutput's Relation message give them: numeric(p,s) and varchar(n)/char(n) keep their
 * modifiers; a type Floe does not have (an enum, a domain, a range, …) arrives as its
 * text form and is kept as text.
 */
export function sourceColumnType(typeOid: number, typmod: number): SqlType {
  const scalar = BY_OID.get(typeOid);
  if (scalar !== undefined) return withModifier(scalar, typmod);
  const element = BY_ARRAY_OID.get(typeOid);
  if (element !== undefined) return { kind: 'array', element: withModifier(element, typmod) };
  return { kind: 'text' };
}

function withModifier(kind: ScalarKind, typmod: number): SqlType {
  if (kind === 'numeric' && typmod >= 4) {
    const t = typmod - 4;
    return { kind: 'numeric', precision: (t >> 16) & 0xffff, scale: t & 0xffff };
  }
  if ((kind === 'varchar' || kind === 'bpchar') && typmod >= 4) return { kind, length: typmod - 4 };
  return { kind } as SqlType;
}
