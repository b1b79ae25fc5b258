import type { Storage } from './storage.js';

/** Deletes in flight at once: an object store answers each in tens of milliseconds, so one at a time would make a drop of thousands of files take minutes. */
const DELETES_IN_FLIGHT = 16;

/**
 * Deletes every key, several at a time. Each key is tried once whatever the others do;
 * the first failure is thrown after all have been tried, so a retry deletes only what is left.
 */
export async function deleteKeys(storage: Storage, keys: readonly string[]): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      try {
        await storage.delete(key);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, keys.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
