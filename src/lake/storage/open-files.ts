import { close, closeSync, open, openSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/**
 * Open descriptors of immutable data files, kept between reads. A scan reads a footer and
 * then one range per column chunk, and opening and closing the file around each read cost
 * more than the reads themselves on small files (a profile of many small statements spent
 * 23 s in open and 11 s in close against 12 s reading). Only files whose bytes never change
 * under their name are kept (`isImmutableKey`): Parquet data files, each written once under a
 * fresh name. A kept descriptor of a file deleted meanwhile still reads the same bytes; the
 * space is freed when it leaves the cache, and `forgetOpenFile` closes it at once for a
 * delete made through this thread's storage. One cache per thread, bounded by count; a
 * descriptor in use is never closed under its reader.
 */
const MAX_OPEN = 32;

interface OpenFile {
  readonly fd: number;
  users: number;
  /** Evicted or forgotten while in use: closed when the last user lets go. */
  closing: boolean;
}

/** Most recently used last (Map keeps insertion order). */
const files = new Map<string, OpenFile>();

export function isImmutableKey(key: string): boolean {
  return key.endsWith('.parquet');
}

function closeFd(fd: number): void {
  if (isMainThread) close(fd, () => undefined);
  else closeSync(fd);
}

function openFd(path: string): Promise<number> | number {
  if (!isMainThread) return openSync(path, 'r');
  return new Promise((resolve, reject) => open(path, 'r', (e, fd) => (e === null ? resolve(fd) : reject(e))));
}

function evictBeyondBound(): void {
  for (const [path, f] of files) {
    if (files.size <= MAX_OPEN) return;
    files.delete(path);
    if (f.users === 0) closeFd(f.fd);
    else f.closing = true;
  }
}

/**
 * Runs `read` with an open descriptor of `path`: kept open afterwards for an immutable file,
 * else closed again. Errors of the open (a missing file) are thrown as they are, for the
 * caller to name.
 */
export async function withOpenFile<T>(path: string, read: (fd: number) => Promise<T> | T): Promise<T> {
  if (!isImmutableKey(path)) {
    const fd = await openFd(path);
    try {
      return await read(fd);
    } finally {
      closeFd(fd);
    }
  }
  let f = files.get(path);
  if (f === undefined) {
    const fd = await openFd(path);
    // Another read of the same path may have opened it while this one waited.
    const raced = files.get(path);
    if (raced !== undefined) {
      closeFd(fd);
      f = raced;
    } else {
      f = { fd, users: 0, closing: false };
      files.set(path, f);
      evictBeyondBound();
    }
  } else {
    files.delete(path);
    files.set(path, f);
  }
  f.users++;
  try {
    return await read(f.fd);
  } finally {
    f.users--;
    if (f.closing && f.users === 0) closeFd(f.fd);
  }
}

/** The file was deleted (or will be): its descriptor is closed once no read holds it. */
export function forgetOpenFile(path: string): void {
  const f = files.get(path);
  if (f === undefined) return;
  files.delete(path);
  if (f.users === 0) closeFd(f.fd);
  else f.closing = true;
}

/** How many descriptors this thread keeps (tests). */
export function openFileCount(): number {
  return files.size;
}
