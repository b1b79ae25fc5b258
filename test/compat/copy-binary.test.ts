import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';
import { runPsql, type ConnectTarget } from '../harness/run-psql.js';

/**
 * COPY … (FORMAT binary) in both directions through psql's \copy: a file
 * PostgreSQL 15 writes loads into Floe and the reverse, and both servers then
 * hold the same rows; Floe's file is byte for byte PostgreSQL's.
 */
const columns = `id int PRIMARY KEY, s smallint, b bigint, t text, v varchar(12), c char(3), n numeric(12,3), f4 real, f8 float8,
  ok boolean, d date, tm time, ts timestamp, tz timestamptz, iv interval, u uuid, j jsonb, by bytea, ia int[], ta text[]`;
const rows = `(1, 1, 10000000000, 'plain', 'vc', 'ab', 123.456, 1.5, 2.25, true, '2024-02-29', '12:34:56.789', '2024-01-02 03:04:05.678901',
    '2024-01-02 03:04:05+00', '1 year 2 mons 3 days 04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2.50]}', '\\x00ff10', '{1,NULL,3}', '{"x y",z}'),
  (2, -32768, -9223372036854775808, 'tab\there "q" é', '', 'x', -0.001, -0.0, 1e300, false, '0001-01-01 BC', '00:00', '1999-12-31 23:59:59',
    '1970-01-01 00:00:00+00', '-1 day', '00000000-0000-0000-0000-000000000000', 'null', '\\x', '{}', '{}'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`;
const setup = [
  `CREATE TABLE src (${columns})`, `INSERT INTO src VALUES ${rows}`,
  `CREATE TABLE dst (${columns})`,
];

function target(c: { host?: string; port?: number; user?: string; database?: string }): ConnectTarget {
  return { host: c.host ?? '127.0.0.1', port: c.port ?? 5432, user: c.user ?? 'floe', database: c.database ?? 'floe' };
}

async function psql(t: ConnectTarget, command: string): Promise<string> {
  const r = await runPsql(t, ['-v', 'ON_ERROR_STOP=1', '-c', command]);
  assert.equal(r.code, 0, `psql ${command}: ${r.stderr}`);
  return r.stdout;
}

describe('COPY (FORMAT binary) round trips between Floe and PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('files written by each load into the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'floe-copy-binary-'));
    try {
      const floe = target({ port: both.g.server.port });
      const pg = target(both.oracle as unknown as { host: string; port: number; user: string; database: string });
      const fromFloe = join(dir, 'floe.bin');
      const fromPg = join(dir, 'pg.bin');
      assert.match(await psql(floe, `\\copy (SELECT * FROM src ORDER BY id) TO '${fromFloe}' WITH (FORMAT binary)`), /COPY 3/);
      assert.match(await psql(pg, `\\copy (SELECT * FROM src ORDER BY id) TO '${fromPg}' WITH (FORMAT binary)`), /COPY 3/);
      assert.deepEqual(readFileSync(fromFloe), readFileSync(fromPg), 'Floe writes the bytes PostgreSQL writes');
      assert.match(await psql(floe, `\\copy dst FROM '${fromPg}' WITH (FORMAT binary)`), /COPY 3/);
      assert.match(await psql(pg, `\\copy dst FROM '${fromFloe}' WITH (FORMAT binary)`), /COPY 3/);
      await sameOnBoth(both, [
        'SELECT * FROM dst ORDER BY id',
        'SELECT count(*) FROM dst d JOIN src s ON d.id = s.id AND d.t IS NOT DISTINCT FROM s.t AND d.n IS NOT DISTINCT FROM s.n',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad binary input is refused and leaves nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'floe-copy-binary-'));
    try {
      const floe = target({ port: both.g.server.port });
      const file = join(dir, 'bad.bin');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, 'not a pgcopy file');
      const r = await runPsql(floe, ['-v', 'ON_ERROR_STOP=1', '-c', `\\copy dst FROM '${file}' WITH (FORMAT binary)`]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /COPY file signature not recognized/);
      await sameOnBoth(both, ['SELECT count(*) FROM dst']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
