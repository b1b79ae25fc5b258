import type { SqlType } from '../../common/sql-type.js';

/**
 * A canonical value as PostgreSQL prints it in a constraint error's DETAIL
 * (`Key (email)=(a@x) already exists.`): its text output form, with NULL spelled `null`.
 */
export function keyValueText(type: SqlType, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (type.kind) {
    case 'bool': return v === true ? 't' : 'f';
    case 'date': return typeof v === 'number' ? dateText(v) : String(v);
    case 'timestamp': case 'timestamptz': {
      if (typeof v !== 'bigint') return String(v);
      const text = timestampText(v);
      return type.kind === 'timestamptz' ? `${text}+00` : text;
    }
    case 'bytea': return v instanceof Uint8Array ? `\\x${Buffer.from(v).toString('hex')}` : String(v);
    default: return String(v);
  }
}

function dateText(days: number): string {
  if (days === Infinity) return 'infinity';
  if (days === -Infinity) return '-infinity';
  return isoDate(new Date(days * 86_400_000));
}

function timestampText(micros: bigint): string {
  const ms = micros / 1000n;
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const d = new Date(Number(ms - (ms % 1000n + 1000n) % 1000n));
  const hms = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const f = frac === 0n ? '' : `.${frac.toString().padStart(6, '0').replace(/0+$/, '')}`;
  return `${isoDate(d)} ${hms}${f}`;
}

function isoDate(d: Date): string {
  const y = d.getUTCFullYear();
  const year = y <= 0 ? `${String(1 - y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}${y <= 0 ? ' BC' : ''}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
