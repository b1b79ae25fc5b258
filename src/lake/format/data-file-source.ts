import { parseLogLocator } from '../log/log-locator.js';
import type { Storage } from '../storage/storage.js';
import { bytesSource, readFooter } from './parquet-io.js';
import type { ParquetSource } from './parquet-io.js';

/**
 * A data file's bytes to decode. A Parquet file is opened through the store's lazy byte
 * source when it has one (only the footer and the chunks of the columns decoded are
 * read); a log file (a locator into a log segment) is one range read of its Arrow IPC
 * stream, which has no footer to read first (its `footer` is empty).
 */
export async function openDataFileSource(storage: Storage, path: string): Promise<ParquetSource> {
  const log = parseLogLocator(path);
  if (log !== undefined) return { bytes: await storage.getRange(log.segmentKey, log.offset, log.length), footer: new Uint8Array(0) };
  const blob = storage.openBlob ? await storage.openBlob(path) : undefined;
  return blob ? { blob, footer: await readFooter(blob) } : bytesSource(await storage.get(path));
}

/** A data file's bytes, whole: a Parquet file's object, or a log file's byte range. */
export async function readDataFileBytes(storage: Storage, path: string): Promise<Uint8Array> {
  const log = parseLogLocator(path);
  return log === undefined ? storage.get(path) : storage.getRange(log.segmentKey, log.offset, log.length);
}
