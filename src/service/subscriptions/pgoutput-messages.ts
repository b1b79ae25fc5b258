import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/** One column of a tuple as pgoutput sends it: NULL, an unchanged TOASTed value (not sent), or its text form. */
export type TupleValue = null | { readonly unchanged: true } | string;

export interface RelationColumn {
  readonly name: string;
  readonly typeOid: number;
  readonly typmod: number;
  /** Part of the replica identity (the key). */
  readonly key: boolean;
}

/**
 * pgoutput's logical replication messages (PostgreSQL's "Logical Replication Message
 * Formats", protocol versions 1 and 2, with protocol 2's streamed in-progress
 * transactions). LSNs are bigints, times microseconds since the Unix epoch.
 */
export type PgOutputMessage =
  | { readonly tag: 'begin'; readonly finalLsn: bigint; readonly commitMicros: bigint; readonly xid: number }
  | { readonly tag: 'commit'; readonly commitLsn: bigint; readonly endLsn: bigint; readonly commitMicros: bigint }
  | { readonly tag: 'origin'; readonly lsn: bigint; readonly name: string }
  | {
      readonly tag: 'relation'; readonly relationId: number; readonly schema: string; readonly name: string;
      /** d default, n nothing, f full, i index. */
      readonly replicaIdentity: string; readonly columns: readonly RelationColumn[];
    }
  | { readonly tag: 'type'; readonly typeOid: number; readonly schema: string; readonly name: string }
  | { readonly tag: 'insert'; readonly relationId: number; readonly row: readonly TupleValue[] }
  | {
      readonly tag: 'update'; readonly relationId: number;
      /** The old key ('K', when the key changed) or the whole old row ('O', REPLICA IDENTITY FULL). */
      readonly old: { readonly kind: 'key' | 'row'; readonly values: readonly TupleValue[] } | undefined;
      readonly row: readonly TupleValue[];
    }
  | { readonly tag: 'delete'; readonly relationId: number; readonly old: { readonly kind: 'key' | 'row'; readonly values: readonly TupleValue[] } }
  | { readonly tag: 'truncate'; readonly relationIds: readonly number[]; readonly cascade: boolean; readonly restartIdentity: boolean }
  | { readonly tag: 'message'; readonly transactional: boolean; readonly lsn: bigint; readonly prefix: string; readonly content: Uint8Array }
  /** A block of an in-progress transaction's changes begins (`firstSegment`: its first block). */
  | { readonly tag: 'streamStart'; readonly xid: number; readonly firstSegment: boolean }
  | { readonly tag: 'streamStop' }
  | { readonly tag: 'streamCommit'; readonly xid: number; readonly commitLsn: bigint; readonly endLsn: bigint; readonly commitMicros: bigint }
  /** `subxid` = `xid`: the whole transaction aborted; else that subtransaction (and those it holds). */
  | { readonly tag: 'streamAbort'; readonly xid: number; readonly subxid: number };

/** The messages that, inside a stream block, carry the xid of the (sub)transaction that made them after their tag. */
const XID_PREFIXED = new Set(['R', 'Y', 'I', 'U', 'D', 'T', 'M'].map((c) => c.charCodeAt(0)));

/**
 * The xid a message inside a stream block carries (the subtransaction's, when a
 * subtransaction made the change), or undefined for the stream's own messages.
 */
export function streamedChangeXid(buf: Buffer): number | undefined {
  if (buf.byteLength < 5 || !XID_PREFIXED.has(buf[0]!)) return undefined;
  return buf.readUInt32BE(1);
}

const PG_EPOCH_MICROS = 946_684_800_000_000n;
const UNCHANGED = Object.freeze({ unchanged: true as const });

/**
 * Decodes one pgoutput message (the payload of an XLogData frame). `streamed`: the message
 * was sent inside a stream block, so a change carries an xid after its tag (skipped here).
 */
export function decodePgOutput(buf: Buffer, opts: { readonly streamed?: boolean } = {}): PgOutputMessage {
  const r = new Reader(buf);
  const tag = String.fromCharCode(r.u8());
  if (opts.streamed === true && XID_PREFIXED.has(buf[0]!)) r.u32();
  switch (tag) {
    case 'B': return { tag: 'begin', finalLsn: r.u64(), commitMicros: r.time(), xid: r.u32() };
    case 'C': {
      r.u8(); // flags, unused
      return { tag: 'commit', commitLsn: r.u64(), endLsn: r.u64(), commitMicros: r.time() };
    }
    case 'O': return { tag: 'origin', lsn: r.u64(), name: r.cstring() };
    case 'R': {
      const relationId = r.u32();
      const schema = r.cstring();
      const name = r.cstring();
      const replicaIdentity = String.fromCharCode(r.u8());
      const n = r.u16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < n; i++) {
        const flags = r.u8();
        columns.push({ name: r.cstring(), typeOid: r.u32(), typmod: r.i32(), key: (flags & 1) !== 0 });
      }
      return { tag: 'relation', relationId, schema: schema === '' ? 'pg_catalog' : schema, name, replicaIdentity, columns };
    }
    case 'Y': {
      const typeOid = r.u32();
      return { tag: 'type', typeOid, schema: r.cstring(), name: r.cstring() };
    }
    case 'I': {
      const relationId = r.u32();
      r.expect('N');
      return { tag: 'insert', relationId, row: r.tuple() };
    }
    case 'U': {
      const relationId = r.u32();
      let kind = String.fromCharCode(r.u8());
      let old: { kind: 'key' | 'row'; values: readonly TupleValue[] } | undefined;
      if (kind === 'K' || kind === 'O') {
        old = { kind: kind === 'K' ? 'key' : 'row', values: r.tuple() };
        kind = String.fromCharCode(r.u8());
      }
      if (kind !== 'N') throw protocolError(`update message without a new tuple (got "${kind}")`);
      return { tag: 'update', relationId, old, row: r.tuple() };
    }
    case 'D': {
      const relationId = r.u32();
      const kind = String.fromCharCode(r.u8());
      if (kind !== 'K' && kind !== 'O') throw protocolError(`delete message without an old tuple (got "${kind}")`);
      return { tag: 'delete', relationId, old: { kind: kind === 'K' ? 'key' : 'row', values: r.tuple() } };
    }
    case 'T': {
      const n = r.u32();
      const options = r.u8();
      const relationIds: number[] = [];
      for (let i = 0; i < n; i++) relationIds.push(r.u32());
      return { tag: 'truncate', relationIds, cascade: (options & 1) !== 0, restartIdentity: (options & 2) !== 0 };
    }
    case 'M': {
      const transactional = r.u8() !== 0;
      const lsn = r.u64();
      const prefix = r.cstring();
      const len = r.u32();
      return { tag: 'message', transactional, lsn, prefix, content: r.bytes(len) };
    }
    case 'S': return { tag: 'streamStart', xid: r.u32(), firstSegment: r.u8() === 1 };
    case 'E': return { tag: 'streamStop' };
    case 'c': {
      const xid = r.u32();
      r.u8(); // flags, unused
      return { tag: 'streamCommit', xid, commitLsn: r.u64(), endLsn: r.u64(), commitMicros: r.time() };
    }
    case 'A': return { tag: 'streamAbort', xid: r.u32(), subxid: r.u32() };
    default:
      throw protocolError(`unknown pgoutput message "${tag}"`);
  }
}

function protocolError(message: string): FloeError {
  return new FloeError(SqlState.protocolViolation, `logical replication: ${message}`);
}

class Reader {
  readonly #buf: Buffer;
  #at = 0;

  constructor(buf: Buffer) {
    this.#buf = buf;
  }

  #need(n: number): void {
    if (this.#at + n > this.#buf.byteLength) throw protocolError('message ends early');
  }

  u8(): number { this.#need(1); return this.#buf.readUInt8(this.#at++); }
  u16(): number { this.#need(2); const v = this.#buf.readUInt16BE(this.#at); this.#at += 2; return v; }
  u32(): number { this.#need(4); const v = this.#buf.readUInt32BE(this.#at); this.#at += 4; return v; }
  i32(): number { this.#need(4); const v = this.#buf.readInt32BE(this.#at); this.#at += 4; return v; }
  u64(): bigint { this.#need(8); const v = this.#buf.readBigUInt64BE(this.#at); this.#at += 8; return v; }
  /** A timestamp in microseconds since 2000-01-01, as Unix-epoch microseconds. */
  time(): bigint { this.#need(8); const v = this.#buf.readBigInt64BE(this.#at); this.#at += 8; return v + PG_EPOCH_MICROS; }

  bytes(n: number): Uint8Array {
    this.#need(n);
    const out = this.#buf.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }

  cstring(): string {
    const end = this.#buf.indexOf(0, this.#at);
    if (end < 0) throw protocolError('unterminated string');
    const s = this.#buf.toString('utf8', this.#at, end);
    this.#at = end + 1;
    return s;
  }

  expect(ch: string): void {
    const got = String.fromCharCode(this.u8());
    if (got !== ch) throw protocolError(`expected "${ch}", got "${got}"`);
  }

  tuple(): TupleValue[] {
    const n = this.u16();
    const out: TupleValue[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const kind = String.fromCharCode(this.u8());
      if (kind === 'n') out[i] = null;
      else if (kind === 'u') out[i] = UNCHANGED;
      else if (kind === 't') {
        const len = this.u32();
        this.#need(len);
        out[i] = this.#buf.toString('utf8', this.#at, this.#at + len);
        this.#at += len;
      } else {
        // 'b' (binary) comes only with the binary option, which Floe does not ask for.
        throw protocolError(`tuple column of kind "${kind}"`);
      }
    }
    return out;
  }
}
