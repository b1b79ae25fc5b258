import { read, readSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ByteSource } from './storage.js';
import { withOpenFile } from './open-files.js';

/**
 * A byte range of a local file with the Blob surface Parquet readers use. A
 * file-backed Blob (fs.openAsBlob) costs about 0.5 ms per slice read; scans read
 * one slice per column chunk (~750 for 4 columns of a 6M-row table), which made the reads
 * cost as much as the decoding. Here a slice read is a positioned read: 4 columns
 * of 23 row groups of lineitem decoded in 44–61 ms against 102–107 ms (2026-11-29).
 * Worker threads read synchronously (nothing else runs on them and it is the
 * cheapest read); the main thread reads asynchronously so other sessions are not
 * held up by a slow disk.
 */
export class FileSlice implements ByteSource {
  /** `key`: the store's name for the file, in errors. */
  constructor(readonly path: string, readonly start: number, readonly end: number, readonly key = path) {}

  get size(): number {
    return this.end - this.start;
  }

  /** Blob.slice semantics: negative offsets count from the end, bounds are clamped. */
  slice(start = 0, end = this.size): FileSlice {
    const at = (x: number): number => Math.max(0, Math.min(this.size, x < 0 ? this.size + x : x));
    const a = at(start);
    return new FileSlice(this.path, this.start + a, this.start + Math.max(a, at(end)), this.key);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const buf = new Uint8Array(this.size);
    await this.readInto(buf);
    return buf.buffer;
  }

  /** Reads the slice into `buf` (as long as the slice), so a reader can reuse its memory. */
  async readInto(buf: Uint8Array): Promise<void> {
    if (buf.length !== this.size) throw new RangeError(`a ${this.size}-byte slice read into ${buf.length} bytes`);
    await readRange(this.path, this.key, buf, this.start, true);
  }
}

/**
 * Reads `buf.length` bytes at `position` of a local file (through a descriptor kept open for
 * a data file: open-files.ts): asynchronously on the main thread, synchronously on workers
 * (see FileSlice). `exact`: a short file is an error; else the bytes read are returned
 * (Storage.getRange's contract).
 */
export async function readRange(path: string, key: string, buf: Uint8Array, position: number, exact: boolean): Promise<number> {
  try {
    return await withOpenFile(path, async (fd) => {
      let off = 0;
      while (off < buf.length) {
        const n = isMainThread ? await readAsync(fd, buf, off, buf.length - off, position + off) : readSync(fd, buf, off, buf.length - off, position + off);
        if (n === 0) {
          if (exact) throw shortRead(key);
          break;
        }
        off += n;
      }
      return off;
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== undefined && !(e instanceof FloeError)) throw missingFile(key, e);
    throw e;
  }
}

function readAsync(fd: number, buf: Uint8Array, off: number, len: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, off, len, position, (e, n) => (e === null ? resolve(n) : reject(e))));
}

/** FloeError 58030 for a data file that cannot be opened (named by its store key). */
export function missingFile(key: string, e: unknown): FloeError {
  const code = (e as NodeJS.ErrnoException).code;
  return new FloeError(SqlState.ioError, `could not open data file "${key}": ${code === 'ENOENT' ? 'file is missing' : String((e as Error).message)}`, { cause: e });
}

/** FloeError XX001 for a data file shorter than the catalog says (truncated or replaced). */
function shortRead(key: string): FloeError {
  return new FloeError(SqlState.dataCorrupted, `could not read data file "${key}": unexpected end of file`);
}
