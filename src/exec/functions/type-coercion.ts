import type { SqlType } from '../../common/sql-type.js';

/** PostgreSQL's type categories (pg_type.typcategory). */
export type TypeCategory = 'B' | 'N' | 'S' | 'D' | 'T' | 'U' | 'A' | 'X';

export function typeCategory(t: SqlType): TypeCategory {
  switch (t.kind) {
    case 'bool': return 'B';
    case 'int2': case 'int4': case 'int8': case 'float4': case 'float8': case 'numeric':
    case 'oid': case 'regclass': case 'regtype': case 'regproc': case 'regprocedure':
      return 'N';
    case 'text': case 'varchar': case 'bpchar': case 'name': case 'char':
      return 'S';
    case 'date': case 'time': case 'timestamp': case 'timestamptz': case 'timetz':
      return 'D';
    case 'interval': return 'T';
    case 'array': return 'A';
    case 'unknown': return 'X';
    default: return 'U';
  }
}

/** The category's preferred type (float8, text, timestamptz, interval, bool, oid). */
export function isPreferredType(t: SqlType): boolean {
  return t.kind === 'float8' || t.kind === 'text' || t.kind === 'timestamptz' || t.kind === 'interval' || t.kind === 'bool' || t.kind === 'oid';
}

/** Same type ignoring typmods (varchar(10) ≡ varchar). */
export function sameType(a: SqlType, b: SqlType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'array' && b.kind === 'array') return sameType(a.element, b.element);
  return true;
}

const numericRank: Partial<Record<SqlType['kind'], number>> = { int2: 1, int4: 2, int8: 3, numeric: 4, float4: 5, float8: 6 };
const oidLike = new Set<SqlType['kind']>(['oid', 'regclass', 'regtype', 'regproc', 'regprocedure']);
const stringLike = new Set<SqlType['kind']>(['text', 'varchar', 'bpchar', 'name']);

export type CoercionContext = 'implicit' | 'assignment' | 'explicit';

/**
 * Whether a value of `from` may be converted to `to` in the given context,
 * following pg_cast's castcontext: implicit (i) casts apply in expressions,
 * assignment (a) ones also in INSERT/UPDATE targets, everything else needs CAST.
 */
export function canCoerce(from: SqlType, to: SqlType, context: CoercionContext): boolean {
  if (sameType(from, to)) return true;
  if (from.kind === 'unknown') return true;
  if (context === 'explicit') return canCastExplicitly(from, to);
  const fr = numericRank[from.kind];
  const tr = numericRank[to.kind];
  if (fr !== undefined && tr !== undefined) {
    if (fr < tr) return true;
    return context === 'assignment';
  }
  if (stringLike.has(from.kind) && stringLike.has(to.kind)) return true;
  if (from.kind === 'char' && stringLike.has(to.kind)) return context === 'assignment' || to.kind === 'text';
  if ((from.kind === 'int2' || from.kind === 'int4' || from.kind === 'int8') && oidLike.has(to.kind)) return true;
  if (oidLike.has(from.kind) && oidLike.has(to.kind)) return true;
  if (oidLike.has(from.kind) && (to.kind === 'int4' || to.kind === 'int8')) return context === 'assignment' || to.kind === 'int8';
  if (from.kind === 'date' && (to.kind === 'timestamp' || to.kind === 'timestamptz')) return true;
  if (from.kind === 'timestamp' && to.kind === 'timestamptz') return true;
  if (from.kind === 'timestamptz' && to.kind === 'timestamp') return context === 'assignment';
  if ((from.kind === 'timestamp' || from.kind === 'timestamptz') && (to.kind === 'date' || to.kind === 'time')) return context === 'assignment';
  if (from.kind === 'time' && to.kind === 'interval') return true;
  if (from.kind === 'time' && to.kind === 'timetz') return true;
  if ((from.kind === 'timetz' && to.kind === 'time') || (from.kind === 'timestamptz' && to.kind === 'timetz')) return context === 'assignment';
  if (from.kind === 'json' && to.kind === 'jsonb') return context === 'assignment';
  if (from.kind === 'jsonb' && to.kind === 'json') return context === 'assignment';
  // Any type to a string type is an assignment cast (I/O conversion) in PostgreSQL.
  if (stringLike.has(to.kind) && context === 'assignment') return true;
  if (from.kind === 'array' && to.kind === 'array') return canCoerce(from.element, to.element, context);
  return false;
}

function canCastExplicitly(from: SqlType, to: SqlType): boolean {
  if (from.kind === 'array' && to.kind === 'array') return canCastExplicitly(from.element, to.element);
  // Every type has text I/O, so string ↔ anything works explicitly.
  if (typeCategory(from) === 'S' || typeCategory(to) === 'S') return true;
  if (from.kind === 'array' || to.kind === 'array') return false;
  if (typeCategory(from) === 'N' && typeCategory(to) === 'N') return true;
  if (from.kind === 'bool' && (to.kind === 'int4')) return true;
  if (from.kind === 'int4' && to.kind === 'bool') return true;
  // pg_cast has only time ↔ timetz and timestamptz → timetz for time with time zone.
  if (from.kind === 'timetz' || to.kind === 'timetz') return canCoerce(from, to, 'assignment');
  if (typeCategory(from) === 'D' && typeCategory(to) === 'D') {
    if (from.kind === 'time' && to.kind !== 'time') return false;
    if (to.kind === 'time' && from.kind === 'date') return false;
    return true;
  }
  if ((from.kind === 'time' || from.kind === 'interval') && (to.kind === 'interval' || to.kind === 'time')) return true;
  if ((from.kind === 'json' || from.kind === 'jsonb') && (to.kind === 'json' || to.kind === 'jsonb')) return true;
  if (from.kind === 'jsonb' && (typeCategory(to) === 'N' || to.kind === 'bool')) return true;
  return canCoerce(from, to, 'assignment');
}
