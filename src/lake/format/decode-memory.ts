/**
 * Reusable buffers for decoding Parquet in JS, by role (a column's values, its
 * offsets, a page…). A fresh ArrayBuffer per column chunk cost more than the decode:
 * the kernel zero-fills each new page on first touch, and a filtered scan spent 15% of its
 * CPU in those faults (2026-11-30). Decoded row groups are views into this memory,
 * valid until the next decode with it, so readers copy out what they keep — usually
 * only the rows a filter passes.
 */
export class DecodeMemory {
  readonly #buffers = new Map<string, ArrayBuffer>();

  /** `bytes` bytes under `role` (not zeroed), starting 8-byte aligned; a later take of the same role reuses them. */
  take(role: string, bytes: number): Uint8Array {
    let b = this.#buffers.get(role);
    if (b === undefined || b.byteLength < bytes) {
      // Grown with headroom so that a slowly growing role does not reallocate every time.
      b = new ArrayBuffer(Math.max(bytes, Math.floor((b?.byteLength ?? 0) * 1.5)));
      this.#buffers.set(role, b);
    }
    return new Uint8Array(b, 0, bytes);
  }

  /** `role`'s buffer made `bytes` long, keeping its first `kept` bytes (a growing output). */
  grow(role: string, bytes: number, kept: number): Uint8Array {
    const old = this.#buffers.get(role);
    if (old !== undefined && old.byteLength >= bytes) return new Uint8Array(old, 0, bytes);
    const b = new ArrayBuffer(Math.max(bytes, Math.floor((old?.byteLength ?? 0) * 1.5)));
    if (old !== undefined) new Uint8Array(b).set(new Uint8Array(old, 0, kept));
    this.#buffers.set(role, b);
    return new Uint8Array(b, 0, bytes);
  }
}

/**
 * Idle decode memories of this thread. A read holds one across its awaits (the main
 * thread interleaves reads of concurrent queries), so each concurrent read gets its own.
 */
const idle: DecodeMemory[] = [];
const IDLE_KEPT = 2;

export function acquireDecodeMemory(): DecodeMemory {
  return idle.pop() ?? new DecodeMemory();
}

export function releaseDecodeMemory(m: DecodeMemory): void {
  if (idle.length < IDLE_KEPT) idle.push(m);
}
