import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { targetFactories } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';

/**
 * A prepared point read re-executed across a new commit, a rollback and ALTER TABLE
 * answers as PostgreSQL 15 does: Floe reuses the plan built at Parse while the table
 * (or a view it reads) is unchanged and plans again when it changed, refusing (0A000) a new plan whose
 * result columns differ from those Describe reported.
 */
async function script(t: ClientTarget): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  const out: unknown[] = [];
  const run = async (label: string, q: pg.QueryConfig): Promise<void> => {
    try {
      const r = await c.query({ ...q, rowMode: 'array' });
      out.push([label, r.fields.map((f) => f.name), r.rows]);
    } catch (e) {
      out.push([label, 'error', (e as { code?: string }).code, (e as Error).message]);
    }
  };
  const all = (id: unknown) => ({ name: 'all', text: 'SELECT * FROM pr WHERE id = $1', values: [id] });
  const two = (id: unknown) => ({ name: 'two', text: 'SELECT id, name FROM pr WHERE $1 = id', values: [id] });
  try {
    await c.query('CREATE TABLE pr (id bigint PRIMARY KEY, name text, qty integer)');
    await c.query("INSERT INTO pr VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
    for (const id of [1, 2, 99, null, '3']) await run(`all ${id}`, all(id));
    await run('two 1', two(1));
    await c.query("UPDATE pr SET name = 'b2' WHERE id = 2");
    await run('after commit', all(2));
    await c.query('BEGIN');
    await c.query("UPDATE pr SET name = 'b3' WHERE id = 2");
    await c.query('DELETE FROM pr WHERE id = 3');
    await run('own write', all(2));
    await run('own delete', all(3));
    await c.query('ROLLBACK');
    await run('after rollback', all(2));
    await run('after rollback, deleted', all(3));
    await c.query('ALTER TABLE pr ADD COLUMN extra integer');
    await run('star after add column', all(1));
    await run('two after add column', two(1));
    await c.query('UPDATE pr SET extra = 7 WHERE id = 1');
    await c.query('ALTER TABLE pr DROP COLUMN qty');
    await run('two after drop column', two(1));
    await run('star after drop column', all(1));
    await c.query('DELETE FROM pr WHERE id = 1');
    await run('two after delete', two(1));
    await run('new star', { name: 'all2', text: 'SELECT * FROM pr WHERE id = $1', values: [2] });
    // A view replaced under a prepared statement: the statement reads the new definition.
    await c.query('CREATE VIEW prv AS SELECT id, name FROM pr WHERE id = 2');
    const viewRead = { name: 'view', text: 'SELECT * FROM prv ORDER BY id' };
    await run('view', viewRead);
    await c.query('CREATE OR REPLACE VIEW prv AS SELECT id, name FROM pr WHERE id <> 2');
    await run('view replaced', viewRead);
  } finally {
    await c.end();
  }
  return out;
}

const results = new Map<string, unknown[]>();
const servers: ClientTarget[] = [];
after(async () => { for (const s of servers) await s.stop(); });

for (const target of targetFactories()) {
  test(`prepared point reads against ${target.label}`, async () => {
    const s = await target.start();
    servers.push(s);
    results.set(target.label, await script(s));
  });
}

test('Floe answers every re-execution as PostgreSQL does', () => {
  const [oracle, floe] = [results.get('PostgreSQL 15'), results.get('Floe')];
  assert.ok(oracle && floe, 'both targets ran');
  assert.deepEqual(floe, oracle);
});
