import { ByteBuilder } from '../../common/byte-builder.js';

/**
 * pgoutput's logical replication messages (protocol versions 1 and 2, without streamed
 * in-progress transactions, which Floe never has): Begin, Commit, Relation, Type, Insert,
 * Update, Delete. Column values travel as text ('t'), NULL as 'n'.
 */

/** A published table as its Relation message describes it. */
export interface RelationDescription {
  readonly oid: number;
  readonly namespace: string;
  readonly name: string;
  /** 'd': REPLICA IDENTITY DEFAULT (the primary key); 'f': FULL (tables without one). */
  readonly replicaIdentity: 'd' | 'f';
  readonly columns: readonly { readonly name: string; readonly typeOid: number; readonly typeModifier: number; readonly key: boolean }[];
}

/** A row's columns as text, null for NULL. */
export type TupleText = readonly (string | null)[];

/** The old row an Update or Delete carries: the key columns ('K', others NULL) or the whole row ('O'). */
export interface OldTuple {
  readonly kind: 'K' | 'O';
  readonly tuple: TupleText;
}

export function beginMessage(finalLsn: bigint, committedAt: bigint, xid: number): Buffer {
  return new ByteBuilder().char('B').int64(finalLsn).int64(committedAt).uint32(xid).build();
}

export function commitMessage(commitLsn: bigint, endLsn: bigint, committedAt: bigint): Buffer {
  return new ByteBuilder().char('C').byte(0).int64(commitLsn).int64(endLsn).int64(committedAt).build();
}

export function relationMessage(r: RelationDescription): Buffer {
  const b = new ByteBuilder().char('R').uint32(r.oid).cstring(r.namespace).cstring(r.name).char(r.replicaIdentity).int16(r.columns.length);
  for (const c of r.columns) b.byte(c.key ? 1 : 0).cstring(c.name).uint32(c.typeOid).int32(c.typeModifier);
  return b.build();
}

/** Sent before a Relation whose columns use a type that is not built in (an enum), so the subscriber can map it by name. */
export function typeMessage(oid: number, namespace: string, name: string): Buffer {
  return new ByteBuilder().char('Y').uint32(oid).cstring(namespace).cstring(name).build();
}

export function insertMessage(relationOid: number, row: TupleText): Buffer {
  return tupleData(new ByteBuilder().char('I').uint32(relationOid).char('N'), row).build();
}

export function updateMessage(relationOid: number, old: OldTuple | undefined, row: TupleText): Buffer {
  const b = new ByteBuilder().char('U').uint32(relationOid);
  if (old !== undefined) tupleData(b.char(old.kind), old.tuple);
  return tupleData(b.char('N'), row).build();
}

export function deleteMessage(relationOid: number, old: OldTuple): Buffer {
  return tupleData(new ByteBuilder().char('D').uint32(relationOid).char(old.kind), old.tuple).build();
}

function tupleData(b: ByteBuilder, row: TupleText): ByteBuilder {
  b.int16(row.length);
  for (const v of row) {
    if (v === null) {
      b.char('n');
      continue;
    }
    const bytes = Buffer.from(v, 'utf8');
    b.char('t').int32(bytes.length).bytes(bytes);
  }
  return b;
}
