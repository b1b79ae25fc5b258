import { FloeError } from '../../common/floe-error.js';
import { decodePasswordMessage, type PasswordMessage } from './auth.js';
import { decodeCopyData, decodeCopyFail, type CopyData, type CopyDone, type CopyFail } from './copy.js';
import {
  decodeBind, decodeClose, decodeDescribe, decodeExecute, decodeParse, type ExtendedQueryMessage,
} from './extended-query.js';
import type { Terminate } from './response.js';
import { decodeQuery, type Query } from './simple-query.js';

export interface FunctionCall {
  readonly kind: 'FunctionCall';
}

/** Every typed message a client may send after the startup packet. */
export type FrontendMessage =
  | PasswordMessage | Query | ExtendedQueryMessage | CopyData | CopyDone | CopyFail | FunctionCall | Terminate;

function empty<T>(body: Buffer, value: T, what: string): T {
  if (body.length !== 0) throw new FloeError('08P01', 'invalid message format', { detail: `extra bytes after ${what} message`, severity: 'FATAL' });
  return value;
}

export function decodeFrontendMessage(type: number, body: Buffer): FrontendMessage {
  switch (type) {
    case 0x70: return decodePasswordMessage(body); // 'p'
    case 0x51: return decodeQuery(body); // 'Q'
    case 0x50: return decodeParse(body); // 'P'
    case 0x42: return decodeBind(body); // 'B'
    case 0x44: return decodeDescribe(body); // 'D'
    case 0x45: return decodeExecute(body); // 'E'
    case 0x43: return decodeClose(body); // 'C'
    case 0x53: return empty(body, { kind: 'Sync' }, 'Sync'); // 'S'
    case 0x48: return empty(body, { kind: 'Flush' }, 'Flush'); // 'H'
    case 0x64: return decodeCopyData(body); // 'd'
    case 0x63: return empty(body, { kind: 'CopyDone' }, 'CopyDone'); // 'c'
    case 0x66: return decodeCopyFail(body); // 'f'
    case 0x46: return { kind: 'FunctionCall' }; // 'F'
    case 0x58: return empty(body, { kind: 'Terminate' }, 'Terminate'); // 'X'
    default:
      throw new FloeError('08P01', `invalid frontend message type ${type}`, { severity: 'FATAL' });
  }
}
