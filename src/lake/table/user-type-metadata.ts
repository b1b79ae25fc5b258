import type { EnumType } from '../../common/sql-type.js';

/** One value of an enum type, as pg_enum holds it. */
export interface EnumLabel {
  /** pg_enum.oid. */
  readonly oid: number;
  readonly label: string;
  /** pg_enum.enumsortorder: 1, 2, 3 … as created; a value added BEFORE/AFTER takes the midpoint. */
  readonly sortOrder: number;
}

/** A user-defined type: an enum (CREATE TYPE … AS ENUM) or a shell (CREATE TYPE name). */
export interface UserTypeMetadata {
  /** pg_type oid. */
  readonly oid: number;
  /** The array type `_name`'s oid; 0 for a shell type, which has none. */
  readonly arrayOid: number;
  readonly namespace: string;
  readonly name: string;
  /** The enum's values in sort order; undefined for a shell type. */
  readonly labels?: readonly EnumLabel[];
}

/** The SqlType detail columns and expressions of this enum type carry. */
export function enumTypeOfUserType(t: UserTypeMetadata): EnumType | undefined {
  if (t.labels === undefined) return undefined;
  return { oid: t.oid, arrayOid: t.arrayOid, namespace: t.namespace, name: t.name, labels: t.labels.map((l) => l.label) };
}
