import assert from 'node:assert/strict';
import type { PgoutputMessage } from './pgoutput-decoder.js';

/** A transaction as pg_recvlogical wrote it: its commit LSN and its changes as readable lines. */
export interface StreamedTransaction {
  readonly commitLsn: bigint;
  readonly endLsn: bigint;
  readonly changes: string[];
}

/** Groups the decoded stream into transactions, naming relations from their Relation messages. */
export function transactions(messages: readonly PgoutputMessage[]): StreamedTransaction[] {
  const names = new Map<number, string>();
  const out: StreamedTransaction[] = [];
  let open: string[] | undefined;
  const show = (row: readonly (string | null)[]) => row.map((v) => (v === null ? 'NULL' : v)).join(',');
  for (const m of messages) {
    switch (m.type) {
      case 'begin': assert.equal(open, undefined, 'Begin inside a transaction'); open = []; break;
      case 'relation': names.set(m.oid, `${m.namespace}.${m.name}/${m.replicaIdentity}/${m.columns.map((c) => `${c.name}${c.key ? '*' : ''}`).join(' ')}`); break;
      case 'insert': open!.push(`insert ${names.get(m.relation)!.split('/')[0]} ${show(m.row)}`); break;
      case 'update': open!.push(`update ${names.get(m.relation)!.split('/')[0]} ${show(m.row)}${m.old ? ` old ${m.old.kind} ${show(m.old.row)}` : ''}`); break;
      case 'delete': open!.push(`delete ${names.get(m.relation)!.split('/')[0]} ${m.old.kind} ${show(m.old.row)}`); break;
      case 'commit': out.push({ commitLsn: m.commitLsn, endLsn: m.endLsn, changes: open! }); open = undefined; break;
      default: break;
    }
  }
  assert.equal(open, undefined, 'the stream ended inside a transaction');
  return out;
}
