/**
 * Values' identity within a batch: one string per list of canonical values, equal exactly
 * when the values are (typed: bigint and bytes are not JSON, nor NaN and the infinities;
 * an object's fields in any order, as an interval's). NULLs are equal, as in a key and in
 * PostgreSQL's comparison of REPLICA IDENTITY FULL rows.
 */
export function keyString(values: readonly unknown[]): string {
  return JSON.stringify(values, (_k, v: unknown) => {
    if (typeof v === 'bigint') return { n: v.toString() };
    if (typeof v === 'number' && !Number.isFinite(v)) return { f: String(v) };
    if (v instanceof Uint8Array) return { x: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
