import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/**
 * numeric's canonical form is PostgreSQL's text ("-12.50"); Decimal128 storage and
 * the Iceberg hash need the unscaled integer. These two functions are the bridge.
 */
const DECIMAL_RE = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/** The unscaled value of `text` at `scale`, rounding half away from zero as PostgreSQL does. */
export function parseDecimal(text: string, scale: number, column?: string): bigint {
  const m = DECIMAL_RE.exec(text);
  if (m === null || (m[2] === '' && (m[3] === undefined || m[3] === ''))) {
    throw new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type numeric: "${text}"`, {
      detail: column === undefined ? undefined : `column "${column}"`,
    });
  }
  const negative = m[1] === '-';
  let digits = (m[2] ?? '') + (m[3] ?? '');
  // the value is digits × 10^-(fractionDigits − exponent)
  let fracDigits = (m[3] ?? '').length - (m[4] === undefined ? 0 : Number(m[4]));
  if (fracDigits < scale) {
    digits += '0'.repeat(scale - fracDigits);
    fracDigits = scale;
  }
  let unscaled: bigint;
  if (fracDigits > scale) {
    const drop = fracDigits - scale;
    const keep = digits.length - drop;
    const head = keep > 0 ? BigInt(digits.slice(0, keep)) : 0n;
    const firstDropped = keep >= 0 ? Number(digits[keep] ?? '0') : 0;
    unscaled = firstDropped >= 5 ? head + 1n : head;
  } else {
    unscaled = digits === '' ? 0n : BigInt(digits);
  }
  return negative ? -unscaled : unscaled;
}

/** PostgreSQL's text form of unscaled × 10^-scale, with exactly `scale` fraction digits. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let s = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (s.length <= scale) s = '0'.repeat(scale - s.length + 1) + s;
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  return negative ? `-${s}` : s;
}

/** The scale at which `text` is exact with no trailing fractional zeros (for unconstrained numeric). */
export function naturalScale(text: string): number {
  const m = DECIMAL_RE.exec(text);
  if (m === null) return 0;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  return Math.max(0, frac.length - exp);
}
