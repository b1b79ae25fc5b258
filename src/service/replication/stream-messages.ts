import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { ByteBuilder } from '../../common/byte-builder.js';

/**
 * The streaming replication protocol's own messages, carried in CopyData: XLogData ('w')
 * and the primary keepalive ('k') from the server; the standby status update ('r') and hot
 * standby feedback ('h') from the client. LSNs and times are int64 (times in microseconds
 * since 2000-01-01).
 */
export function xlogData(start: bigint, walEnd: bigint, sentAt: bigint, payload: Uint8Array): Buffer {
  return new ByteBuilder().char('w').int64(start).int64(walEnd).int64(sentAt).bytes(payload).build();
}

export function primaryKeepalive(walEnd: bigint, sentAt: bigint, replyRequested: boolean): Buffer {
  return new ByteBuilder().char('k').int64(walEnd).int64(sentAt).byte(replyRequested ? 1 : 0).build();
}

export type ClientStreamMessage =
  | { readonly kind: 'standbyStatus'; readonly written: bigint; readonly flushed: bigint; readonly applied: bigint; readonly replyRequested: boolean }
  | { readonly kind: 'hotStandbyFeedback' };

export function decodeClientStreamMessage(data: Uint8Array): ClientStreamMessage {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  switch (String.fromCharCode(b[0] ?? 0)) {
    case 'r':
      if (b.length < 34) throw new FloeError(SqlState.protocolViolation, 'invalid standby status update message', { severity: 'FATAL' });
      return {
        kind: 'standbyStatus', written: b.readBigInt64BE(1), flushed: b.readBigInt64BE(9), applied: b.readBigInt64BE(17),
        replyRequested: b[33] === 1,
      };
    case 'h':
      return { kind: 'hotStandbyFeedback' };
    default:
      throw new FloeError(SqlState.protocolViolation, `unexpected message type "${String.fromCharCode(b[0] ?? 0)}"`, { severity: 'FATAL' });
  }
}
