/** The crash test's row model, shared by the writer child and the checker. */
export const SHARED = 13;

export function uniqueKey(i: number): bigint {
  return 1_000_000n + BigInt(i);
}

/** Expected table contents once commits 0..last (inclusive) are committed. */
export function expectedRows(last: number): Map<bigint, string> {
  const rows = new Map<bigint, string>();
  for (let i = 0; i <= last; i++) {
    rows.set(uniqueKey(i), `u${i}`);
    rows.set(BigInt(i % SHARED), `s${i}`);
    if (i % 7 === 0 && i >= 10) rows.delete(uniqueKey(i - 10));
  }
  return rows;
}
