/** What a bounded text ends with when it was cut. */
export const CUT_MARK = '…';

/**
 * `text` when its UTF-8 form is at most `maxBytes` long; otherwise its longest prefix of
 * whole characters that fits in `maxBytes` less the cut mark's three bytes, then the mark.
 */
export function boundedText(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most three UTF-8 bytes: short texts need no measuring.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes - Buffer.byteLength(CUT_MARK));
  // Back off continuation bytes (10xxxxxx) to the start of the character the limit fell in.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + CUT_MARK;
}

/** The UTF-8 length of `text`. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
