import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runIsql } from '../harness/run-isql.js';
import { runPsql } from '../harness/run-psql.js';
import { targetFactories } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';

/** isql batch output: header row then data rows, fields split on '|', SQL/diagnostic lines dropped. */
function rowsOf(stdout: string): string[][] {
  return stdout.split('\n').filter((l) => l.includes('|')).map((l) => l.split('|').map((f) => f.trim()));
}

for (const target of targetFactories()) {
  describe(`psqlODBC (unixODBC isql) against ${target.label}`, () => {
    let server: ClientTarget | undefined;
    after(async () => { await server?.stop(); });

    test('a query and a table listing', async () => {
      server = await target.start();
      const setup = await runPsql(server, ['-v', 'ON_ERROR_STOP=1', '-c',
        "CREATE TABLE gadgets (id integer PRIMARY KEY, label text); INSERT INTO gadgets VALUES (1, 'one'), (2, 'two');"]);
      assert.equal(setup.code, 0, setup.stderr);

      const q = await runIsql(server, 'SELECT id, label FROM gadgets ORDER BY id');
      assert.equal(q.code, 0, q.stdout + q.stderr);
      assert.deepEqual(rowsOf(q.stdout), [['id', 'label'], ['1', 'one'], ['2', 'two']]);

      // isql's "help" lists tables through SQLTables, i.e. psqlODBC's own catalog query.
      const listing = await runIsql(server, 'help');
      assert.equal(listing.code, 0, listing.stdout + listing.stderr);
      const rows = rowsOf(listing.stdout);
      const header = rows[0] ?? [];
      const nameAt = header.indexOf('TABLE_NAME');
      const typeAt = header.indexOf('TABLE_TYPE');
      assert.ok(nameAt >= 0 && typeAt >= 0, listing.stdout);
      const tables = rows.slice(1).filter((r) => r[typeAt] === 'TABLE').map((r) => r[nameAt]);
      assert.deepEqual(tables, ['gadgets']);
    });
  });
}
