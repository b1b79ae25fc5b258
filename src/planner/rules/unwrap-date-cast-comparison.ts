import { type Expr, Exprs } from '../../exec/index.js';

const MICROS_PER_DAY = 86_400_000_000n;
const flipped: Record<string, string> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * `date_expr::timestamp op timestamp_constant` as an equivalent comparison of the
 * date itself with a date constant, so a bare date column stays bare and its
 * conjunct can be pushed into the lake scan for min/max pruning (a date column against
 * date arithmetic: `l_shipdate <= date '1998-12-01' - interval '90' day`).
 *
 * A date d cast to timestamp is midnight of d. For a constant T at midnight of
 * day D, every comparison carries over as is. Strictly inside day D:
 * d < T and d <= T are d <= D; d > T and d >= T are d > D; = and <> are left alone
 * (they are constant up to NULL, which a rewrite would have to preserve).
 * Infinite timestamps are left alone.
 */
export function unwrapDateCastComparison(e: Expr): Expr | undefined {
  if (e.kind !== 'call' || e.args.length !== 2) return undefined;
  const m = /^(=|<>|<=|>=|<|>)\(timestamp,timestamp\)$/.exec(e.fn);
  if (!m) return undefined;
  const [a, b] = e.args as [Expr, Expr];
  const isDateCast = (x: Expr): x is Extract<Expr, { kind: 'cast' }> => x.kind === 'cast' && x.type.kind === 'timestamp' && x.arg.type.kind === 'date';
  const isConstant = (x: Expr): boolean => x.kind === 'literal' && typeof x.value === 'bigint';
  let op = m[1]!;
  let date: Expr;
  let micros: bigint;
  if (isDateCast(a) && isConstant(b)) {
    date = a.arg; micros = (b as { value: bigint }).value;
  } else if (isDateCast(b) && isConstant(a)) {
    date = b.arg; micros = (a as { value: bigint }).value; op = flipped[op]!;
  } else {
    return undefined;
  }
  // Infinite timestamps are the int64 extremes; leave them (and anything near them) alone.
  if (micros <= -(2n ** 62n) || micros >= 2n ** 62n) return undefined;
  // Floor division: the day that contains T, also for instants before 1970.
  let day = micros / MICROS_PER_DAY;
  if (micros % MICROS_PER_DAY !== 0n && micros < 0n) day -= 1n;
  const atMidnight = day * MICROS_PER_DAY === micros;
  if (!atMidnight) {
    if (op === '=' || op === '<>') return undefined;
    op = op === '<' || op === '<=' ? '<=' : '>';
  }
  const lit = Exprs.literal(Number(day), { kind: 'date' });
  return { kind: 'call', fn: `${op}(date,date)`, args: [date, lit], type: e.type };
}
