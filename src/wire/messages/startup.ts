import { FloeError } from '../../common/floe-error.js';
import { BodyReader } from './body-reader.js';

/** Startup-phase messages: they carry no type byte, only a length and a request code. */
export const sslRequestCode = 80877103;
export const gssEncRequestCode = 80877104;
export const cancelRequestCode = 80877102;
/** PostgreSQL's limit on a startup packet (MAX_STARTUP_PACKET_LENGTH). */
export const maxStartupPacketBytes = 10000;

export interface StartupMessage {
  readonly kind: 'StartupMessage';
  readonly majorVersion: number;
  readonly minorVersion: number;
  readonly parameters: Readonly<Record<string, string>>;
}

export interface SslRequest {
  readonly kind: 'SSLRequest';
}

export interface GssEncRequest {
  readonly kind: 'GSSENCRequest';
}

export interface CancelRequest {
  readonly kind: 'CancelRequest';
  readonly processId: number;
  readonly secretKey: number;
}

export type StartupPacket = StartupMessage | SslRequest | GssEncRequest | CancelRequest;

/** Backend: sent when the client asked for a newer minor version or `_pq_.` options. */
export interface NegotiateProtocolVersion {
  readonly kind: 'NegotiateProtocolVersion';
  readonly newestMinorVersion: number;
  readonly unrecognizedOptions: readonly string[];
}

export interface BackendKeyData {
  readonly kind: 'BackendKeyData';
  readonly processId: number;
  readonly secretKey: number;
}

export function decodeStartupPacket(body: Buffer): StartupPacket {
  const r = new BodyReader(body, 'startup');
  const code = r.uint32();
  if (code === sslRequestCode) {
    r.end();
    return { kind: 'SSLRequest' };
  }
  if (code === gssEncRequestCode) {
    r.end();
    return { kind: 'GSSENCRequest' };
  }
  if (code === cancelRequestCode) {
    const processId = r.int32();
    const secretKey = r.int32();
    r.end();
    return { kind: 'CancelRequest', processId, secretKey };
  }
  const majorVersion = code >>> 16;
  const minorVersion = code & 0xffff;
  if (majorVersion !== 3) {
    throw new FloeError('0A000', `unsupported frontend protocol ${majorVersion}.${minorVersion}: server supports 3.0 to 3.0`, { severity: 'FATAL' });
  }
  const parameters: Record<string, string> = Object.create(null);
  for (;;) {
    const name = r.cstring();
    if (name === '') break;
    parameters[name] = r.cstring();
  }
  r.end();
  return { kind: 'StartupMessage', majorVersion, minorVersion, parameters };
}
