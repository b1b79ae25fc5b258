/**
 * The tie-break of PostgreSQL's array_cmp once the elements (row-major) and their count agree:
 * fewer dimensions first, then shorter dimensions, outermost first.
 */
export function compareArrayShapes(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return a[d]! - b[d]!;
  return 0;
}
