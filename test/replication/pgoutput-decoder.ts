/**
 * A reader of pgoutput messages for tests, written from PostgreSQL's protocol documentation
 * ("Logical Replication Message Formats"), independent of Floe's encoder.
 */
export type PgoutputMessage =
  | { readonly type: 'begin'; readonly finalLsn: bigint; readonly xid: number }
  | { readonly type: 'commit'; readonly commitLsn: bigint; readonly endLsn: bigint }
  | {
      readonly type: 'relation'; readonly oid: number; readonly namespace: string; readonly name: string; readonly replicaIdentity: string;
      readonly columns: readonly { readonly name: string; readonly typeOid: number; readonly key: boolean }[];
    }
  | { readonly type: 'typ'; readonly oid: number; readonly namespace: string; readonly name: string }
  | { readonly type: 'insert'; readonly relation: number; readonly row: readonly (string | null)[] }
  | { readonly type: 'update'; readonly relation: number; readonly old?: { kind: string; row: readonly (string | null)[] }; readonly row: readonly (string | null)[] }
  | { readonly type: 'delete'; readonly relation: number; readonly old: { kind: string; row: readonly (string | null)[] } };

/** Decodes one message starting at `at`; returns it and where the next byte is. */
export function decodePgoutput(b: Buffer, at: number): { message: PgoutputMessage; next: number } {
  let p = at;
  const byte = () => b[p++]!;
  const i16 = () => { const v = b.readInt16BE(p); p += 2; return v; };
  const u32 = () => { const v = b.readUInt32BE(p); p += 4; return v; };
  const i64 = () => { const v = b.readBigInt64BE(p); p += 8; return v; };
  const cstr = () => { const end = b.indexOf(0, p); const s = b.toString('utf8', p, end); p = end + 1; return s; };
  const tuple = (): (string | null)[] => {
    const n = i16();
    const out: (string | null)[] = [];
    for (let i = 0; i < n; i++) {
      const kind = String.fromCharCode(byte());
      if (kind === 'n' || kind === 'u') out.push(null);
      else if (kind === 't') { const len = u32(); out.push(b.toString('utf8', p, p + len)); p += len; }
      else throw new Error(`unknown tuple column kind ${kind}`);
    }
    return out;
  };
  const type = String.fromCharCode(byte());
  let message: PgoutputMessage;
  switch (type) {
    case 'B': { const finalLsn = i64(); i64(); message = { type: 'begin', finalLsn, xid: u32() }; break; }
    case 'C': { byte(); const commitLsn = i64(); const endLsn = i64(); i64(); message = { type: 'commit', commitLsn, endLsn }; break; }
    case 'R': {
      const oid = u32(); const namespace = cstr(); const name = cstr(); const replicaIdentity = String.fromCharCode(byte());
      const n = i16();
      const columns = [];
      for (let i = 0; i < n; i++) { const flags = byte(); const cname = cstr(); const typeOid = u32(); u32(); columns.push({ name: cname, typeOid, key: (flags & 1) === 1 }); }
      message = { type: 'relation', oid, namespace, name, replicaIdentity, columns };
      break;
    }
    case 'Y': { const oid = u32(); message = { type: 'typ', oid, namespace: cstr(), name: cstr() }; break; }
    case 'I': { const relation = u32(); if (byte() !== 0x4e) throw new Error('insert without N'); message = { type: 'insert', relation, row: tuple() }; break; }
    case 'U': {
      const relation = u32();
      let kind = String.fromCharCode(byte());
      let old: { kind: string; row: (string | null)[] } | undefined;
      if (kind === 'K' || kind === 'O') { old = { kind, row: tuple() }; kind = String.fromCharCode(byte()); }
      if (kind !== 'N') throw new Error('update without N');
      message = { type: 'update', relation, ...(old ? { old } : {}), row: tuple() };
      break;
    }
    case 'D': { const relation = u32(); const kind = String.fromCharCode(byte()); message = { type: 'delete', relation, old: { kind, row: tuple() } }; break; }
    default: throw new Error(`unknown pgoutput message ${type} at byte ${at}`);
  }
  return { message, next: p };
}

/** pg_recvlogical's output file: each message's bytes followed by a newline. */
export function decodeRecvlogicalFile(bytes: Buffer): PgoutputMessage[] {
  const out: PgoutputMessage[] = [];
  let at = 0;
  while (at < bytes.length) {
    const { message, next } = decodePgoutput(bytes, at);
    if (bytes[next] !== 0x0a) throw new Error(`expected a newline after the message at byte ${at}`);
    out.push(message);
    at = next + 1;
  }
  return out;
}
