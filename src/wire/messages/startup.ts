import { FloeError } from '../../common/floe-error.js';
import { SilentClose } from '../silent-close.js';
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

/**
 * A StartupMessage for a protocol other than 3.x: FATAL 0A000. PostgreSQL words it in
 * the old version-2 format when the client asked for version 2 or below.
 */
export class UnsupportedProtocolVersion extends FloeError {
  readonly majorVersion: number;

  constructor(majorVersion: number, minorVersion: number) {
    super('0A000', `unsupported frontend protocol ${majorVersion}.${minorVersion}: server supports 3.0 to 3.0`, { severity: 'FATAL' });
    this.majorVersion = majorVersion;
  }
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

/**
 * One startup packet's body (after its length word), read as PostgreSQL 15's
 * ProcessStartupPacket does: SSL and GSS requests are answered whatever their length,
 * a CancelRequest of the wrong length is dropped silently, and a StartupMessage must
 * end in its terminator exactly.
 */
export function decodeStartupPacket(body: Buffer): StartupPacket {
  const r = new BodyReader(body, 'startup');
  const code = r.uint32();
  if (code === sslRequestCode) return { kind: 'SSLRequest' };
  if (code === gssEncRequestCode) return { kind: 'GSSENCRequest' };
  if (code === cancelRequestCode) {
    if (body.length !== 12) throw new SilentClose('invalid length of startup packet');
    return { kind: 'CancelRequest', processId: r.int32(), secretKey: r.int32() };
  }
  const majorVersion = code >>> 16;
  const minorVersion = code & 0xffff;
  if (majorVersion !== 3) throw new UnsupportedProtocolVersion(majorVersion, minorVersion);
  const parameters: Record<string, string> = Object.create(null);
  let offset = 4;
  while (offset < body.length) {
    if (body[offset] === 0) break; // the terminator
    const nameEnd = body.indexOf(0, offset);
    if (nameEnd < 0 || nameEnd + 1 >= body.length) break; // a name without a value: complained about below
    const valueEnd = body.indexOf(0, nameEnd + 1);
    if (valueEnd < 0) { offset = body.length; break; }
    parameters[body.toString('utf8', offset, nameEnd)] = body.toString('utf8', nameEnd + 1, valueEnd);
    offset = valueEnd + 1;
  }
  if (offset !== body.length - 1) {
    throw new FloeError('08P01', 'invalid startup packet layout: expected terminator as last byte', { severity: 'FATAL' });
  }
  return { kind: 'StartupMessage', majorVersion, minorVersion, parameters };
}
