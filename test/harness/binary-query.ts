import { connect } from 'node:net';
import { serialize } from 'pg-protocol';
import type { ConnectTarget } from './run-psql.js';

export interface BinaryResult {
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number; readonly format: 'text' | 'binary' }[];
  readonly rows: readonly (readonly (Buffer | null)[])[];
}

/**
 * One extended-protocol query with every result column requested in binary,
 * returning the raw bytes. node-postgres cannot do this (it decodes every
 * DataRow field as UTF-8 text), and pg-protocol's parser has no binary mode,
 * so the few backend messages needed are read here.
 */
export function binaryQuery(target: ConnectTarget, sql: string, params: readonly (string | null)[]): Promise<BinaryResult> {
  return new Promise((resolve, reject) => {
    const sock = connect(target.port, target.host ?? '127.0.0.1');
    let buf = Buffer.alloc(0);
    let fields: BinaryResult['fields'] = [];
    const rows: (Buffer | null)[][] = [];
    let phase: 'startup' | 'query' = 'startup';
    sock.on('error', reject);
    sock.on('connect', () => {
      sock.write(serialize.startup({ user: target.user ?? 'floe', database: target.database ?? 'floe' }));
    });
    const onMessage = (type: string, body: Buffer) => {
      if (type === 'E') {
        sock.destroy();
        reject(new Error(`server error: ${errorText(body)}`));
      } else if (type === 'R' && body.readInt32BE(0) !== 0) {
        sock.destroy();
        reject(new Error('binaryQuery supports trust authentication only'));
      } else if (type === 'Z' && phase === 'startup') {
        phase = 'query';
        sock.write(Buffer.concat([
          serialize.parse({ text: sql }),
          serialize.bind({ values: [...params], binary: true }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]));
      } else if (type === 'T') {
        const n = body.readInt16BE(0);
        let at = 2;
        const out: { name: string; dataTypeID: number; format: 'text' | 'binary' }[] = [];
        for (let i = 0; i < n; i++) {
          const end = body.indexOf(0, at);
          const name = body.toString('utf8', at, end);
          at = end + 1;
          const dataTypeID = body.readInt32BE(at + 6);
          const format = body.readInt16BE(at + 16) === 1 ? 'binary' : 'text';
          at += 18;
          out.push({ name, dataTypeID, format });
        }
        fields = out;
      } else if (type === 'D') {
        const n = body.readInt16BE(0);
        let at = 2;
        const row: (Buffer | null)[] = [];
        for (let i = 0; i < n; i++) {
          const len = body.readInt32BE(at);
          at += 4;
          if (len < 0) row.push(null);
          else {
            row.push(Buffer.from(body.subarray(at, at + len)));
            at += len;
          }
        }
        rows.push(row);
      } else if (type === 'Z') {
        sock.end(serialize.end());
        resolve({ fields, rows });
      }
    };
    sock.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 5) {
        const len = buf.readInt32BE(1);
        if (buf.length < len + 1) break;
        onMessage(String.fromCharCode(buf[0]!), buf.subarray(5, len + 1));
        buf = buf.subarray(len + 1);
      }
    });
  });
}

function errorText(body: Buffer): string {
  const parts: string[] = [];
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const code = String.fromCharCode(body[at]!);
    const end = body.indexOf(0, at + 1);
    if (code === 'C' || code === 'M') parts.push(body.toString('utf8', at + 1, end));
    at = end + 1;
  }
  return parts.join(' ');
}
