import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { ByteSource, Storage } from './storage.js';

/**
 * A byte range of an S3 object with the Blob surface Parquet readers use: slicing is free,
 * and only the bytes of a slice that is read are fetched (one ranged GET, or the local
 * range cache), so a scan reads the footer and the chunks of the columns it decodes.
 */
export class S3ByteSource implements ByteSource {
  constructor(readonly storage: Storage, readonly key: string, readonly start: number, readonly end: number) {}

  get size(): number {
    return this.end - this.start;
  }

  /** Blob.slice semantics: negative offsets count from the end, bounds are clamped. */
  slice(start = 0, end = this.size): S3ByteSource {
    const at = (x: number): number => Math.max(0, Math.min(this.size, x < 0 ? this.size + x : x));
    const a = at(start);
    return new S3ByteSource(this.storage, this.key, this.start + a, this.start + Math.max(a, at(end)));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#read();
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer as ArrayBuffer
      : bytes.slice().buffer as ArrayBuffer;
  }

  async readInto(target: Uint8Array): Promise<void> {
    if (target.length !== this.size) throw new RangeError(`a ${this.size}-byte slice read into ${target.length} bytes`);
    target.set(await this.#read());
  }

  async #read(): Promise<Uint8Array> {
    if (this.size === 0) return new Uint8Array(0);
    const bytes = await this.storage.getRange(this.key, this.start, this.size);
    if (bytes.length !== this.size) {
      throw new FloeError(SqlState.dataCorrupted, `could not read data file "${this.key}": unexpected end of file`);
    }
    return bytes;
  }
}
