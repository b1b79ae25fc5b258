/**
 * numeric's canonical text (src/common/sql-type.ts) from a scaled safe integer:
 * shared by the lake (Decimal128 columns, statistics) and the executor (kernels).
 */
const POW10: readonly number[] = Array.from({ length: 16 }, (_, i) => 10 ** i);
const ZEROS: string[] = Array.from({ length: 32 }, (_, i) => '0'.repeat(i));
const MAX_SPLIT = 2 ** 52 - 1;

/** PostgreSQL's numeric text of unscaled / 10^scale, without BigInt; `unscaled` must be a safe integer. Never prints -0. */
export function formatScaled(unscaled: number, scale: number): string {
  // Safe integers print as plain digits (exponent form starts at 1e21); a scale below
  // zero prints the unscaled digits, as numeric text has no negative display scale.
  if (scale <= 0) return unscaled === 0 ? '0' : String(unscaled);
  const neg = unscaled < 0;
  const abs = neg ? -unscaled : unscaled;
  if (scale <= 15 && abs <= MAX_SPLIT) {
    // Split arithmetically: cheaper than slicing the digit string. Below 2^52,
    // ip * p stays exact; a quotient rounded up to the next integer shows as a
    // negative remainder and is corrected.
    const p = POW10[scale]!;
    let ip = Math.floor(abs / p);
    let fp = abs - ip * p;
    if (fp < 0) { ip -= 1; fp += p; }
    const fs = String(fp);
    const pad = scale - fs.length;
    const body = `${ip}.${pad > 0 ? ZEROS[pad]! : ''}${fs}`;
    return neg ? `-${body}` : body;
  }
  const s = String(abs);
  const len = s.length;
  let body: string;
  if (len > scale) body = `${s.slice(0, len - scale)}.${s.slice(len - scale)}`;
  else {
    const pad = scale - len;
    body = `0.${pad < ZEROS.length ? ZEROS[pad]! : '0'.repeat(pad)}${s}`;
  }
  return neg ? `-${body}` : body;
}

