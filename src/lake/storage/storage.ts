/** The narrow storage interface data files go through; keys are '/'-separated relative paths. */
export interface Storage {
  /** Durable when the promise resolves. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** FloeError 58030 naming the key when the object is missing. */
  get(key: string): Promise<Uint8Array>;
  getRange(key: string, offset: number, length: number): Promise<Uint8Array>;
  /**
   * The object as a Blob whose bytes are read only when sliced (a file-backed
   * Blob), so a reader that needs a footer and a few column chunks reads just
   * those. Optional: stores without it are read whole with `get`.
   */
  openBlob?(key: string): Promise<Blob>;
  /** Keys under a prefix, with modification times (microseconds), for orphan cleanup. */
  list(prefix: string): Promise<{ key: string; size: number; modifiedMicros: bigint }[]>;
  /** Missing objects are not an error. */
  delete(key: string): Promise<void>;
}
