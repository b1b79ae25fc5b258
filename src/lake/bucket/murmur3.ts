/** 32-bit MurmurHash3 (x86 variant), the hash Iceberg's bucket transform and Floe's bucket tree use. Returns an unsigned value. */
export function murmur3X86_32(bytes: Uint8Array, seed = 0): number {
  void bytes; void seed;
  throw new Error('not implemented');
}
