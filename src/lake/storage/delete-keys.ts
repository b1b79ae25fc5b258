import { mapInLanes } from '../../common/map-in-lanes.js';
import type { Storage } from './storage.js';

/** Deletes in flight at once: an object store answers each in tens of milliseconds, so one at a time would make a drop of thousands of files take minutes. */
const DELETES_IN_FLIGHT = 16;

/**
 * Deletes every key, several at a time. Each key is tried once whatever the others do;
 * the first failure is thrown after all have been tried, so a retry deletes only what is left.
 */
export async function deleteKeys(storage: Storage, keys: readonly string[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  // Each call settles without throwing, so mapInLanes goes on past a failed key.
  await mapInLanes(keys, DELETES_IN_FLIGHT, (key) => storage.delete(key).then(() => undefined, (error: unknown) => { failure ??= { error }; }));
  if (failure !== undefined) throw failure.error;
}
