import { parseDecimal, formatDecimal, pow10 } from '../types/numeric.js';

/** PostgreSQL 15's units: below each limit the size prints in that unit, rounded half away from zero past bytes. */
const UNITS = [
  { name: 'bytes', limit: 10n * 1024n, round: false, bits: 0 },
  { name: 'kB', limit: 20n * 1024n - 1n, round: true, bits: 10 },
  { name: 'MB', limit: 20n * 1024n - 1n, round: true, bits: 20 },
  { name: 'GB', limit: 20n * 1024n - 1n, round: true, bits: 30 },
  { name: 'TB', limit: 20n * 1024n - 1n, round: true, bits: 40 },
  { name: 'PB', limit: 20n * 1024n - 1n, round: true, bits: 50 },
] as const;

function halfRounded(x: bigint): bigint {
  return (x + (x < 0n ? -1n : 1n)) / 2n;
}

/**
 * pg_size_pretty: each step divides (truncating, like C) by 2^(bits to the
 * next unit), keeping one extra bit while the next unit rounds by halves.
 */
export function pgSizePretty(size: bigint): string {
  let s = size;
  for (let u = 0; u < UNITS.length; u++) {
    const unit = UNITS[u]!;
    const nextUnit = UNITS[u + 1];
    if (nextUnit === undefined || (s < 0n ? -s : s) < unit.limit) {
      return `${unit.round ? halfRounded(s) : s} ${unit.name}`;
    }
    const bits = nextUnit.bits - unit.bits - (nextUnit.round ? 1 : 0) + (unit.round ? 1 : 0);
    s /= 1n << BigInt(bits);
  }
  throw new Error('unreachable');
}

/** pg_size_pretty(numeric): a fractional byte count prints as is; larger ones truncate like the bigint form. */
export function pgSizePrettyNumeric(text: string): string {
  const d = parseDecimal(text);
  const whole = d.scale <= 0 ? d.unscaled * pow10(-d.scale) : d.unscaled / pow10(d.scale);
  const abs = whole < 0n ? -whole : whole;
  if (abs < UNITS[0].limit) return `${formatDecimal(d)} bytes`;
  return pgSizePretty(whole);
}
