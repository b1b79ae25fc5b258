import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { formatScaled as formatDecimalNumber } from '../../common/numeric-text.js';

/**
 * numeric's canonical form is PostgreSQL's text ("-12.50"); Decimal128 storage and
 * the Iceberg hash need the unscaled integer. These two functions are the bridge.
 */
const DECIMAL_RE = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * The unscaled value of plain decimal text (optional sign, digits, optional point and
 * digits: what PostgreSQL prints and the benchmarks' data generators make) at `scale` as a JS
 * number, rounding half away from zero; undefined when the text is in any other form
 * (exponent, blanks, NaN, bad syntax) or the result would pass Number.MAX_SAFE_INTEGER,
 * so callers fall back to the exact BigInt path. One char loop, no allocation.
 */
export function parseDecimalNumber(text: string, scale: number): number | undefined {
  const n = text.length;
  let i = 0;
  let negative = false;
  if (n > 0) {
    const c0 = text.charCodeAt(0);
    if (c0 === 45) { negative = true; i = 1; } else if (c0 === 43) i = 1;
  }
  let v = 0;
  let frac = 0;
  let dot = false;
  let any = false;
  let roundUp = false;
  let dropping = false;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      any = true;
      if (dot) {
        if (dropping) continue;
        if (frac === scale) {
          // only the first dropped digit decides half-away-from-zero rounding
          roundUp = c >= 53;
          dropping = true;
          continue;
        }
        frac++;
      }
      v = v * 10 + (c - 48);
      // a true value above 2^53 - 1 can never round down to it, so this bound check is exact
      if (v > Number.MAX_SAFE_INTEGER) return undefined;
    } else if (c === 46 && !dot) {
      dot = true;
    } else {
      return undefined;
    }
  }
  if (!any) return undefined;
  for (; frac < scale; frac++) {
    v *= 10;
    if (v > Number.MAX_SAFE_INTEGER) return undefined;
  }
  if (roundUp && ++v > Number.MAX_SAFE_INTEGER) return undefined;
  return negative && v !== 0 ? -v : v;
}

/** The unscaled value of `text` at `scale`, rounding half away from zero as PostgreSQL does. */
export function parseDecimal(text: string, scale: number, column?: string): bigint {
  const fast = parseDecimalNumber(text, scale);
  if (fast !== undefined) return BigInt(fast);
  return parseDecimalExact(text, scale, column);
}

/** parseDecimal without the number fast path: the reference the fast path is tested against. */
export function parseDecimalExact(text: string, scale: number, column?: string): bigint {
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
  if (unscaled >= -MAX_SAFE_BIG && unscaled <= MAX_SAFE_BIG) return formatDecimalNumber(Number(unscaled), scale);
  return formatDecimalExact(unscaled, scale);
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** formatDecimal of a safe-integer unscaled value, without BigInt (the executor prints with the same function). */
export { formatDecimalNumber };

/** formatDecimal through BigInt only: the reference for the number path. */
export function formatDecimalExact(unscaled: bigint, scale: number): string {
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
  // plain text: count fraction digits up to the last non-zero one; anything else takes the regex
  const n = text.length;
  let i = 0;
  if (n > 0) {
    const c0 = text.charCodeAt(0);
    if (c0 === 45 || c0 === 43) i = 1;
  }
  let dot = -1;
  let lastNonZero = -1;
  let plain = i < n;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (dot >= 0 && c !== 48) lastNonZero = i;
    } else if (c === 46 && dot < 0) {
      dot = i;
    } else {
      plain = false;
      break;
    }
  }
  if (plain) {
    return dot < 0 || lastNonZero < 0 ? 0 : lastNonZero - dot;
  }
  return naturalScaleExact(text);
}

/** naturalScale through the regex: the reference for the char loop. */
export function naturalScaleExact(text: string): number {
  const m = DECIMAL_RE.exec(text);
  if (m === null) return 0;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  return Math.max(0, frac.length - exp);
}
