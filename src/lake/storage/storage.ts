/** The narrow storage interface data files go through; keys are '/'-separated relative paths. */
export interface Storage {
  /** Durable when the promise resolves. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** FloeError 58030 naming the key when the object is missing. */
  get(key: string): Promise<Uint8Array>;
  getRange(key: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * The object as a Blob-shaped source whose bytes are read only when sliced, so a
   * reader that needs a footer and a few column chunks reads just those. Optional:
   * stores without it are read whole with `get`.
   */
  openBlob?(key: string): Promise<ByteSource>;
  /** Keys under a prefix, with modification times (microseconds), for orphan cleanup. */
  list(prefix: string): Promise<{ key: string; size: number; modifiedMicros: bigint }[]>;
  /** Missing objects are not an error. */
  delete(key: string): Promise<void>;
  /** Fails (58030) when the store cannot be reached; local disk, which always can, leaves it out. */
  checkReachable?(): Promise<void>;
}

/**
 * The part of the Blob interface Parquet readers use (parquet-wasm's ParquetFile
 * calls only these): a Blob satisfies it, and so does a cheaper positioned reader.
 */
export interface ByteSource {
  readonly size: number;
  slice(start?: number, end?: number): ByteSource;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Reads the bytes into `target` (exactly `size` long) instead of new memory; sources that cannot leave it out. */
  readInto?(target: Uint8Array): Promise<void>;
}
