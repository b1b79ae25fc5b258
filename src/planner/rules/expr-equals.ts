/** Structural equality of plan fragments (bigints included). */
export function exprEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return key(a) === key(b);
}

function key(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}
