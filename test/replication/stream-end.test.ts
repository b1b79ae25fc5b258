import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import type { PostgresServer } from '../harness/postgres-server.js';

interface Target {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
}

/**
 * What a walsender sends after CopyBothResponse once the client ends the stream with
 * CopyDone, up to ReadyForQuery: message types, CopyData left out (keepalives may come
 * first), CommandComplete with its tag. Read from the socket, as libpq's walreceiver reads it.
 */
function streamEnd(t: Target, slot: string, publication: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const sock = connect(t.port, t.host);
    let buf = Buffer.alloc(0);
    let phase: 'startup' | 'slot' | 'start' | 'streaming' = 'startup';
    const seen: string[] = [];
    const query = (sql: string) => sock.write(serialize.query(sql));
    sock.setTimeout(30_000, () => { sock.destroy(); reject(new Error(`no end of stream; saw ${seen.join(' | ')}`)); });
    sock.on('error', reject);
    sock.on('connect', () => sock.write(serialize.startup({ user: t.user, database: t.database, replication: 'database' })));
    const onMessage = (type: string, body: Buffer) => {
      if (type === 'E') {
        sock.destroy();
        reject(new Error(`server error: ${body.toString('utf8').replace(/\0/g, ' ')}`));
      } else if (type === 'Z' && phase === 'startup') {
        phase = 'slot';
        query(`CREATE_REPLICATION_SLOT ${slot} TEMPORARY LOGICAL pgoutput`);
      } else if (type === 'Z' && phase === 'slot') {
        phase = 'start';
        query(`START_REPLICATION SLOT ${slot} LOGICAL 0/0 (proto_version '1', publication_names '${publication}')`);
      } else if (type === 'W' && phase === 'start') {
        phase = 'streaming';
        sock.write(serialize.copyDone());
      } else if (phase === 'streaming' && type !== 'd') {
        seen.push(type === 'C' ? `C ${body.toString('utf8', 0, body.length - 1)}` : type);
        if (type === 'Z') {
          sock.end();
          resolve(seen);
        }
      }
    };
    sock.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 5) {
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) break;
        onMessage(String.fromCharCode(buf[0]!), buf.subarray(5, 1 + len));
        buf = buf.subarray(1 + len);
      }
    });
  });
}

// A PostgreSQL subscriber's table-sync worker ends its stream itself (CopyDone) once it has
// caught up, and its walreceiver then reads the copy's CommandComplete and the command's.
// With one of them missing it failed there, was restarted every 5 s, never marked its table
// ready, and held a worker slot another table's sync needed.
describe('ending a logical replication stream, against PostgreSQL 15', () => {
  let floe: FloeServer;
  let postgres: PostgresServer;

  before(async () => {
    floe = await startFloe();
    postgres = await startPostgres();
    for (const url of [floe.url, postgres.url]) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query('CREATE TABLE t (id int PRIMARY KEY)');
      await c.query('CREATE PUBLICATION p FOR TABLE t');
      await c.end();
    }
  });

  after(async () => {
    await postgres?.stop();
    await floe?.stop();
  });

  test("the client's CopyDone is answered with CopyDone, the copy's and the command's CommandComplete, then ReadyForQuery", async () => {
    const fromPostgres = await streamEnd(postgres, 'stream_end', 'p');
    const fromFloe = await streamEnd(floe, 'stream_end', 'p');
    assert.deepEqual(fromPostgres, ['c', 'C COPY 0', 'C START_REPLICATION', 'Z']);
    assert.deepEqual(fromFloe, fromPostgres);
  });
});
