/**
 * `fn` over `items` with at most `lanes` calls in flight, results in the items' order.
 * After a failure no item is started; the calls in flight finish, and the first failure
 * is thrown.
 */
export async function mapInLanes<T, R>(items: readonly T[], lanes: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(items.length, Math.floor(lanes))) }, lane));
  if (failure !== undefined) throw failure.error;
  return results;
}
