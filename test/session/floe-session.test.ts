import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse } from '../../src/lake/index.js';
import type { Warehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler, StatementResult } from '../../src/wire/session-handler.js';

let warehouse: Warehouse;

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-session-')) });
});

function session(parameters: Record<string, string> = {}): { s: SessionHandler; status: Map<string, string> } {
  const s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters, remoteAddress: '127.0.0.1', processId: 42 },
  });
  return { s, status: new Map() };
}

async function all(s: SessionHandler, sql: string): Promise<{ result: StatementResult; rows: unknown[][] }[]> {
  const out: { result: StatementResult; rows: unknown[][] }[] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    const rows: unknown[][] = [];
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) rows.push(b.columns.map((c) => c.get(i)));
    out.push({ result: r, rows });
  }
  return out;
}

test('start() reports the ParameterStatus set, with startup parameters applied', async () => {
  const { s } = session({ application_name: 'psql', TimeZone: 'Europe/Paris' });
  const events = { parameterStatus: () => undefined, notice: () => undefined };
  const p = await s.start(events);
  assert.equal(p.server_version, '15.18 (Floe 0.1.0)');
  assert.equal(p.server_version_num, '150018');
  assert.equal(p.application_name, 'psql');
  assert.equal(p.TimeZone, 'Europe/Paris');
  assert.equal(p.DateStyle, 'ISO, MDY');
  assert.equal(p.search_path, '"$user", public');
  assert.equal(s.transactionStatus(), 'I');
});

test('a blank query string answers EmptyQueryResponse', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  const r = await all(s, ' ; ');
  assert.deepEqual(r.map((x) => x.result.kind), ['empty']);
});

test('BEGIN, a failing statement, then COMMIT answers ROLLBACK and statuses go T → E → I', async () => {
  const { s } = session();
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await all(s, 'BEGIN');
  assert.equal(s.transactionStatus(), 'T');
  await assert.rejects(all(s, 'SELECT * FROM no_such_table'));
  assert.equal(s.transactionStatus(), 'E');
  await assert.rejects(all(s, 'SELECT 1'), (e: { sqlstate?: string }) => e.sqlstate === '25P02');
  const r = await all(s, 'COMMIT');
  assert.deepEqual(r.map((x) => x.result), [{ kind: 'command', tag: 'ROLLBACK' }]);
  assert.equal(s.transactionStatus(), 'I');
});

test('SET re-sends ParameterStatus; SHOW and RESET see it', async () => {
  const { s } = session();
  const sent: [string, string][] = [];
  await s.start({ parameterStatus: (n, v) => sent.push([n, v]), notice: () => undefined });
  await all(s, "SET TimeZone = 'America/New_York'");
  assert.deepEqual(sent, [['TimeZone', 'America/New_York']]);
  const shown = await all(s, 'SHOW TimeZone');
  assert.deepEqual(shown[0]!.rows, [['America/New_York']]);
  await all(s, 'RESET TimeZone');
  assert.deepEqual(sent.at(-1), ['TimeZone', 'UTC']);
});
