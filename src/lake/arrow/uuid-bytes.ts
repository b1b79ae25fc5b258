import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The 16 big-endian bytes of a uuid's text form (hyphens optional, any case, as PostgreSQL accepts). */
export function uuidToBytes(text: string, out: Uint8Array = new Uint8Array(16), at = 0): Uint8Array {
  const hex = text.length === 36 ? text : text.replace(/^\{|\}$/g, '');
  let n = 0;
  for (let i = 0; i < hex.length && n < 32; i++) {
    const c = hex.charCodeAt(i);
    if (c === 45 /* - */) continue;
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (v < 0) break;
    if ((n & 1) === 0) out[at + (n >> 1)] = v << 4;
    else out[at + (n >> 1)]! |= v;
    n++;
  }
  if (n !== 32 || !/^[0-9a-fA-F-]+$/.test(hex) || hex.replace(/-/g, '').length !== 32) {
    throw new FloeError(SqlState.invalidTextRepresentation, `invalid input syntax for type uuid: "${text}"`);
  }
  return out;
}

/** The canonical lower-case text form of 16 uuid bytes starting at `at`. */
export function bytesToUuid(bytes: Uint8Array, at = 0): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[bytes[at + i]!];
  }
  return s;
}
