/**
 * Structural equality of plan fragments (bigints included), as equal JSON texts
 * would say, but compared in place: the rules ask it of whole plans every pass,
 * and building two JSON texts each time cost an eight-table query about 4 ms of binding a run.
 * Properties that are undefined or functions do not count (JSON leaves them
 * out); objects with a toJSON (dates) compare by their JSON.
 */
export function exprEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a !== a && b !== b;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!exprEquals(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (typeof (a as { toJSON?: unknown }).toJSON === 'function' || typeof (b as { toJSON?: unknown }).toJSON === 'function') return jsonKey(a) === jsonKey(b);
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let counted = 0;
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v === undefined || typeof v === 'function') continue;
    counted++;
    if (!exprEquals(v, y[k])) return false;
  }
  for (const k of Object.keys(y)) {
    const v = y[k];
    if (v === undefined || typeof v === 'function') continue;
    counted--;
  }
  return counted === 0;
}

function jsonKey(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}
