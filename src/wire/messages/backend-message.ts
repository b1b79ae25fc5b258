import { authCodes, type AuthenticationRequest } from './auth.js';
import type { CopyData, CopyDone, CopyResponse } from './copy.js';
import type { DataRow, RowDescription } from './data.js';
import type { ExtendedQueryResponse } from './extended-query.js';
import type { MessageWriter } from './message-writer.js';
import type {
  ErrorResponse, NoticeResponse, NotificationResponse, ParameterStatus, ReadyForQuery, ResponseFields,
} from './response.js';
import type { CommandComplete, EmptyQueryResponse } from './simple-query.js';
import type { BackendKeyData, NegotiateProtocolVersion } from './startup.js';

/** Every message the server sends after the startup packet. */
export type BackendMessage =
  | AuthenticationRequest | BackendKeyData | NegotiateProtocolVersion | ParameterStatus | ReadyForQuery
  | RowDescription | DataRow | CommandComplete | EmptyQueryResponse | ExtendedQueryResponse
  | CopyResponse | CopyData | CopyDone | ErrorResponse | NoticeResponse | NotificationResponse;

function writeFields(w: MessageWriter, f: ResponseFields): void {
  w.byte(0x53).cstring(f.severity); // S
  w.byte(0x56).cstring(f.severity); // V
  w.byte(0x43).cstring(f.sqlstate); // C
  w.byte(0x4d).cstring(f.message); // M
  if (f.detail !== undefined) w.byte(0x44).cstring(f.detail); // D
  if (f.hint !== undefined) w.byte(0x48).cstring(f.hint); // H
  if (f.position !== undefined) w.byte(0x50).cstring(String(f.position)); // P
  if (f.schema !== undefined) w.byte(0x73).cstring(f.schema); // s
  if (f.table !== undefined) w.byte(0x74).cstring(f.table); // t
  if (f.column !== undefined) w.byte(0x63).cstring(f.column); // c
  if (f.dataType !== undefined) w.byte(0x64).cstring(f.dataType); // d
  if (f.constraint !== undefined) w.byte(0x6e).cstring(f.constraint); // n
  w.byte(0);
}

/** Encodes one backend message, framed by MessageWriter.message. */
export function writeBackendMessage(w: MessageWriter, m: BackendMessage): void {
  switch (m.kind) {
    case 'AuthenticationOk':
    case 'AuthenticationCleartextPassword':
      return w.message('R', (b) => { b.int32(authCodes[m.kind]); });
    case 'AuthenticationMD5Password':
      return w.message('R', (b) => { b.int32(authCodes[m.kind]).bytes(m.salt); });
    case 'AuthenticationSASL':
      return w.message('R', (b) => {
        b.int32(authCodes[m.kind]);
        for (const mech of m.mechanisms) b.cstring(mech);
        b.byte(0);
      });
    case 'AuthenticationSASLContinue':
    case 'AuthenticationSASLFinal':
      return w.message('R', (b) => { b.int32(authCodes[m.kind]).bytes(m.data); });
    case 'BackendKeyData':
      return w.message('K', (b) => { b.int32(m.processId).int32(m.secretKey); });
    case 'NegotiateProtocolVersion':
      return w.message('v', (b) => {
        b.int32(m.newestMinorVersion).int32(m.unrecognizedOptions.length);
        for (const o of m.unrecognizedOptions) b.cstring(o);
      });
    case 'ParameterStatus':
      return w.message('S', (b) => { b.cstring(m.name).cstring(m.value); });
    case 'ReadyForQuery':
      return w.message('Z', (b) => { b.byte(m.status.charCodeAt(0)); });
    case 'RowDescription':
      return w.message('T', (b) => {
        b.int16(m.columns.length);
        m.columns.forEach((c, i) => {
          b.cstring(c.name).uint32(c.tableOid).int16(c.columnNumber).uint32(c.typeOid)
            .int16(c.typeSize).int32(c.typeModifier).int16(m.formats[i] ?? 0);
        });
      });
    case 'DataRow':
      return w.message('D', (b) => {
        b.int16(m.values.length);
        for (const v of m.values) b.lengthPrefixed(v);
      });
    case 'CommandComplete':
      return w.message('C', (b) => { b.cstring(m.tag); });
    case 'EmptyQueryResponse':
      return w.message('I', () => {});
    case 'ParseComplete':
      return w.message('1', () => {});
    case 'BindComplete':
      return w.message('2', () => {});
    case 'CloseComplete':
      return w.message('3', () => {});
    case 'NoData':
      return w.message('n', () => {});
    case 'PortalSuspended':
      return w.message('s', () => {});
    case 'ParameterDescription':
      return w.message('t', (b) => {
        b.int16(m.typeOids.length);
        for (const oid of m.typeOids) b.uint32(oid);
      });
    case 'CopyInResponse':
    case 'CopyOutResponse':
    case 'CopyBothResponse':
      return w.message(m.kind === 'CopyInResponse' ? 'G' : m.kind === 'CopyOutResponse' ? 'H' : 'W', (b) => {
        b.byte(m.format).int16(m.columnFormats.length);
        for (const f of m.columnFormats) b.int16(f);
      });
    case 'CopyData':
      return w.message('d', (b) => { b.bytes(m.data); });
    case 'CopyDone':
      return w.message('c', () => {});
    case 'ErrorResponse':
      return w.message('E', (b) => writeFields(b, m.fields));
    case 'NoticeResponse':
      return w.message('N', (b) => writeFields(b, m.fields));
    case 'NotificationResponse':
      return w.message('A', (b) => { b.int32(m.processId).cstring(m.channel).cstring(m.payload); });
    default: {
      const never: never = m;
      throw new Error(`unknown backend message ${(never as { kind: string }).kind}`);
    }
  }
}
