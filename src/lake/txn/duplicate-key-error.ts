import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatTimetz } from '../../common/timetz.js';
import type { TableMetadata } from '../table/table-metadata.js';

/** PostgreSQL's 23505 for a primary key: `Key (a, b)=(1, x) already exists.` */
export function duplicateKeyError(table: TableMetadata, keyValues: readonly unknown[]): FloeError {
  const types = table.primaryKey.map((k) => table.columns.find((c) => c.name === k)!.type);
  return new FloeError(SqlState.uniqueViolation, `duplicate key value violates unique constraint "${primaryKeyName(table)}"`, {
    detail: `Key (${table.primaryKey.join(', ')})=(${keyValues.map((v, i) => keyValueText(v, types[i]!)).join(', ')}) already exists.`,
  });
}

/** The primary key's constraint name: PostgreSQL's default `<table>_pkey`. */
function primaryKeyName(table: TableMetadata): string {
  return `${table.name}_pkey`;
}

/** A key value's text as PostgreSQL prints it in a DETAIL (DateStyle ISO, UTC for timestamptz). */
export function keyValueText(v: unknown, t: SqlType): string {
  if (v === null || v === undefined) return 'null';
  switch (t.kind) {
    case 'bool': return v ? 't' : 'f';
    case 'bytea': return `\\x${Buffer.from(v as Uint8Array).toString('hex')}`;
    case 'date': return Number.isFinite(v as number) ? dateText(v as number) : ((v as number) > 0 ? 'infinity' : '-infinity');
    case 'time': return timeText(v as bigint);
    case 'timetz': return formatTimetz(v as bigint);
    case 'timestamp': case 'timestamptz': {
      const us = v as bigint;
      if (us === 9223372036854775807n) return 'infinity';
      if (us === -9223372036854775808n) return '-infinity';
      const day = us >= 0n ? us / 86_400_000_000n : -((-us + 86_399_999_999n) / 86_400_000_000n);
      const text = `${dateText(Number(day))} ${timeText(us - day * 86_400_000_000n)}`;
      return t.kind === 'timestamptz' ? `${text}+00` : text;
    }
    default: return String(v);
  }
}

function dateText(days: number): string {
  const d = new Date(days * 86_400_000);
  const y = d.getUTCFullYear();
  const ymd = `${String(y > 0 ? y : 1 - y).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
  return y > 0 ? ymd : `${ymd} BC`;
}

function timeText(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const hms = [s / 3600n, (s / 60n) % 60n, s % 60n].map((x) => String(x).padStart(2, '0')).join(':');
  return frac === 0n ? hms : `${hms}.${String(frac).padStart(6, '0').replace(/0+$/, '')}`;
}
