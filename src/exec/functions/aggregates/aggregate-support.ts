import type { Decimal } from '../../types/numeric.js';
import type { AggregateImpl } from '../function-registry.js';

export const ZERO: Decimal = { unscaled: 0n, scale: 0 };

/** Running doubles fold into an exact sum past this; one more addend of at most SAFE keeps them below 2^53, still exact. */
export const SAFE = 2 ** 52;

/** A row-form aggregate from its four functions. */
export function simple(init: () => unknown, step: (s: unknown, a: unknown[]) => unknown, combine: (a: unknown, b: unknown) => unknown, final: (s: unknown) => unknown): AggregateImpl {
  return { init, step, combine, final };
}

/** A batch step built from a one-row update of a mutable state. */
export function batchOf(update: (st: never, v: never) => void): NonNullable<AggregateImpl['batchStep']> {
  return (states, groups, args, sel, n) => {
    const col = args[0]!;
    if (sel) for (let k = 0; k < n; k++) { const r = sel[k]!; update(states[groups[r]!] as never, col[r] as never); }
    else for (let r = 0; r < n; r++) update(states[groups[r]!] as never, col[r] as never);
  };
}
