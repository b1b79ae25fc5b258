/** src/wire's public API. */
export { startWireServer, type WireServer, type WireServerOptions } from './server.js';
export type { StatementObserver } from './statement-observer.js';
export type * from './session-handler.js';
export { makeScramVerifier, formatScramVerifier, parseScramVerifier, type ScramSecret } from './auth/scram-secret.js';
export { md5Response, md5StoredPassword } from './auth/md5-password.js';
export { codecForOid, hasCodec } from './codecs/codec-for-oid.js';
export { registerRegNameLookup } from './codecs/reg-name-text.js';
export type { TypeCodec } from './codecs/type-codec.js';
export type { CodecContext } from './codecs/codec-context.js';
export { formatFloat4, formatFloat8 } from './codecs/float-text.js';
export { formatInterval, parseInterval } from './codecs/interval-codec.js';
export {
  formatDate, formatTime, formatTimestamp, formatTimestamptz, parseDate, parseTime, parseTimestamp, parseTimestamptz,
  timestampInfinity, timestampMinusInfinity,
} from './codecs/datetime-codec.js';
export { normalizeNumericText } from './codecs/numeric-codec.js';
