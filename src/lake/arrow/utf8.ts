/** UTF-8 encode/decode with fast paths for the short ASCII strings that dominate keys. */
const encoder = new TextEncoder();

/** UTF-8 encodes s at bytes[pos…]; an inline loop for ASCII beats encodeInto's call overhead on short keys. */
export function encodeInto(s: string, bytes: Uint8Array, pos: number): number {
  const len = s.length;
  if (len < 32) {
    let i = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      bytes[pos + i] = c;
    }
    if (i === len) return len;
  }
  return encoder.encodeInto(s, bytes.subarray(pos)).written;
}

const decoder = new TextDecoder();

/** UTF-8 → string; short ASCII runs skip TextDecoder's call overhead. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 24) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c >= 0x80) return decoder.decode(bytes.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(bytes.subarray(start, end));
}

