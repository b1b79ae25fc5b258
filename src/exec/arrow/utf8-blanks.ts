/**
 * The end of bytes[start, end) without its trailing blanks (0x20): bpchar's
 * comparison form, read on UTF-8 bytes. Callers test the last byte first and
 * call this only when it is a blank, which keeps the common case out of a loop.
 */
export function endWithoutTrailingBlanks(bytes: Uint8Array, start: number, end: number): number {
  while (end > start && bytes[end - 1] === 32) end--;
  return end;
}
