import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWarehouse, type Warehouse } from '../../src/lake/index.js';
import { createFloeSession } from '../../src/session/index.js';
import { changesNetToNothing } from '../../src/session/changes-net-to-nothing.js';
import { loadSqlParser } from '../../src/sql/index.js';
import { createSystemCatalog, registerCatalogFunctions } from '../../src/sql/system-catalog/index.js';
import type { SessionHandler } from '../../src/wire/session-handler.js';

/*
 * The check a refresh makes before planning: does a complete changelog's change set, cut to
 * the columns a view reads, net to anything? Each case is also asked of SQL, the netted ΔR
 * a refresh term would read (GROUP BY the columns, +1 per after-image and −1 per
 * before-image), which must be empty exactly when the check says so.
 */
let warehouse: Warehouse;
let s: SessionHandler;

async function rows(sql: string): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of s.simpleQuery(sql, new AbortController().signal)) {
    if (r.kind === 'rows') for await (const b of r.batches) for (let i = 0; i < b.numRows; i++) out.push(b.columns.map((c) => c.get(i)));
  }
  return out;
}

const head = (): bigint => warehouse.resolveSnapshot(warehouse.getTable('public', 't')!)!.id;

/** What the check and SQL say of the changes `statements` make, cut to `columns`; `read`: whether the check read them. */
async function nets(columns: readonly string[], ...statements: string[]): Promise<{ check: boolean; sql: boolean; read?: boolean }> {
  const from = head();
  for (const sql of statements) await rows(sql);
  const to = head();
  const table = warehouse.getTable('public', 't')!;
  let read = false;
  const counted = {
    listSnapshots: warehouse.listSnapshots.bind(warehouse),
    readChanges: (...args: Parameters<Warehouse['readChanges']>) => { read = true; return warehouse.readChanges(...args); },
  } as unknown as Warehouse;
  const check = await changesNetToNothing(counted, table, { id: 'test', tableId: table.id, from, to, columns });
  const cols = columns.join(', ');
  const netted = await rows(`SELECT ${cols} FROM table_changes('t', ${from}, ${to}) GROUP BY ${cols}
    HAVING sum(CASE WHEN _change_type IN ('INSERT', 'UPDATE_AFTER') THEN 1 ELSE -1 END) <> 0`);
  return { check, sql: netted.length === 0, ...(columns.every((c) => c === 'k') ? { read } : {}) };
}

before(async () => {
  await loadSqlParser();
  registerCatalogFunctions();
  warehouse = await openWarehouse({ path: mkdtempSync(join(tmpdir(), 'floe-net-changes-')) });
  s = createFloeSession({
    warehouse, catalog: createSystemCatalog(),
    startup: { user: 'floe', database: 'floe', parameters: {}, remoteAddress: '127.0.0.1', processId: 9 },
  });
  await s.start({ parameterStatus: () => undefined, notice: () => undefined });
  await rows("CREATE TABLE t (k int PRIMARY KEY, a numeric, g text, other int) WITH ('changelog-producer' = 'lookup')");
  await rows("INSERT INTO t VALUES (1, 1.5, 'x', 0), (2, NULL, 'y', 0), (3, 2, NULL, 0)");
});

describe('changes netting to nothing', () => {
  test('an update of a column the view does not read nets to nothing; of one it reads, to something', async () => {
    assert.deepEqual(await nets(['k', 'a', 'g'], 'UPDATE t SET other = other + 1'), { check: true, sql: true });
    assert.deepEqual(await nets(['k', 'a', 'g'], "UPDATE t SET g = 'z' WHERE k = 1"), { check: false, sql: false });
  });

  test('NULLs group together, and a numeric keeps its value whatever its scale', async () => {
    assert.deepEqual(await nets(['k', 'a', 'g'], 'UPDATE t SET other = 7 WHERE k IN (2, 3)'), { check: true, sql: true });
    assert.deepEqual(await nets(['a'], 'UPDATE t SET a = 2.00 WHERE k = 3'), { check: true, sql: true });
    assert.deepEqual(await nets(['a'], 'UPDATE t SET a = 2.01 WHERE k = 3'), { check: false, sql: false });
    assert.deepEqual(await nets(['a'], 'UPDATE t SET a = NULL WHERE k = 1'), { check: false, sql: false });
  });

  test('a row inserted and deleted within the range nets to nothing; rows that trade values do too, cut to the value', async () => {
    assert.deepEqual(await nets(['k', 'g'], "INSERT INTO t VALUES (4, 1, 'w', 0)", 'DELETE FROM t WHERE k = 4'), { check: true, sql: true });
    // Keys 1 and 3 swap their g: cut to g alone the multiset is the same; with the key it is not.
    await rows("UPDATE t SET g = 'p' WHERE k = 1");
    await rows("UPDATE t SET g = 'q' WHERE k = 3");
    assert.deepEqual(await nets(['g'], "UPDATE t SET g = CASE k WHEN 1 THEN 'q' ELSE 'p' END WHERE k IN (1, 3)"), { check: true, sql: true });
    assert.deepEqual(await nets(['k', 'g'], "UPDATE t SET g = CASE k WHEN 1 THEN 'p' ELSE 'q' END WHERE k IN (1, 3)"), { check: false, sql: false });
  });
});

describe('changes cut to the key', () => {
  test('are answered from the commits\' summaries when no key appeared or went, and read otherwise', async () => {
    assert.deepEqual(await nets(['k'], "UPDATE t SET g = 'r' WHERE k = 1", 'UPDATE t SET other = 3'), { check: true, sql: true, read: false });
    assert.deepEqual(await nets(['k'], "INSERT INTO t VALUES (5, 1, 'v', 0)"), { check: false, sql: false, read: true });
    assert.deepEqual(await nets(['k'], "INSERT INTO t VALUES (6, 1, 'u', 0)", 'DELETE FROM t WHERE k = 6'), { check: true, sql: true, read: true });
    assert.deepEqual(await nets(['k'], 'UPDATE t SET k = 7 WHERE k = 5'), { check: false, sql: false, read: true });
  });
});
