/**
 * Delta debugging (Zeller's ddmin, complement steps): removes chunks of
 * `items` while `stillFails` holds, halving the chunk size down to single
 * items, so that no single item of the result can be dropped. `keepLast`
 * pins the final item (the diverging statement) in place. Stops early, with
 * the smallest failing list found so far, when `deadline` (ms since epoch) passes.
 */
export async function shrink<T>(
  items: readonly T[],
  stillFails: (candidate: readonly T[]) => Promise<boolean>,
  opts: { keepLast?: boolean; deadline?: number } = {},
): Promise<T[]> {
  const pinned = opts.keepLast === true && items.length > 0 ? [items.at(-1)!] : [];
  let current = opts.keepLast === true ? items.slice(0, -1) : items.slice();
  const test = (c: readonly T[]) => stillFails([...c, ...pinned]);
  let chunks = 2;
  while (current.length > 0) {
    if (opts.deadline !== undefined && Date.now() > opts.deadline) break;
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let start = 0; start < current.length; start += size) {
      if (opts.deadline !== undefined && Date.now() > opts.deadline) break;
      const complement = [...current.slice(0, start), ...current.slice(start + size)];
      if (await test(complement)) {
        current = complement;
        chunks = Math.max(chunks - 1, 2);
        reduced = true;
        break;
      }
    }
    if (reduced) continue;
    if (size === 1) break;
    chunks = Math.min(chunks * 2, current.length);
  }
  return [...current, ...pinned];
}
