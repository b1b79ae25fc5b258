/**
 * The two's-complement integer in words[off .. off+bw) (little-endian 32-bit
 * words) as a double when it is a safe integer, NaN otherwise: the high words
 * must be pure sign extension and the second word must keep |v| < 2^53.
 */
export function smallDecimalWords(words: Uint32Array, off: number, bw: number): number {
  if (bw < 2) return bw === 1 ? words[off]! | 0 : NaN;
  const hi = words[off + 1]! | 0;
  const ext = hi < 0 ? 0xffffffff : 0;
  for (let w = 2; w < bw; w++) if (words[off + w] !== ext) return NaN;
  if (hi >= 0x200000 || hi < -0x200000) return NaN;
  const v = hi * 4294967296 + words[off]!;
  return v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER ? NaN : v;
}
