/** src/wire's public API. */
export { startWireServer, type WireServer, type WireServerOptions } from './server.js';
export type { StatementObserver } from './statement-observer.js';
export type * from './session-handler.js';
export type { AuthProvider, LoginAttemptEvent, LoginRole } from './auth/auth-provider.js';
export { checkPassword, matchesScram } from './auth/password-check.js';
export { defaultHbaFile, parseHbaFile, pgHbaFileRuleRows, type HbaFileResult, type PgHbaFileRuleRow } from './auth/hba-rules.js';
export { makeScramVerifier, formatScramVerifier, parseScramVerifier, type ScramSecret } from '../common/scram-secret.js';
export { md5Response, md5StoredPassword } from '../common/md5-password.js';
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
