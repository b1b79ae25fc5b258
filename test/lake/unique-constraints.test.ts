import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TableConstraint, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { readRows, tempWarehouse } from './helpers/read-table.js';

const uniqueEmail: TableConstraint = { kind: 'unique', name: 't_email_key', columns: ['email'] };

async function table(wh: Warehouse, keyed: boolean, constraints: TableConstraint[] = [uniqueEmail]): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name: keyed ? 'keyed' : 'append', primaryKey: keyed ? ['id'] : [], constraints,
    columns: [{ name: 'id', type: { kind: 'int8' }, nullable: false }, { name: 'email', type: { kind: 'text' }, nullable: true }],
  });
}

const dup = (value: string) => (e: unknown) => {
  const x = e as { sqlstate?: string; message: string; detail?: string };
  assert.equal(x.sqlstate, '23505');
  assert.equal(x.message, 'duplicate key value violates unique constraint "t_email_key"');
  assert.equal(x.detail, `Key (email)=(${value}) already exists.`);
  return true;
};

for (const keyed of [true, false]) {
  const kind = keyed ? 'keyed' : 'append';

  test(`${kind} table: a unique value is refused within a write, against the table and against a later commit`, async () => {
    const { wh, cleanup } = await tempWarehouse();
    try {
      const t = await table(wh, keyed);
      const t1 = await wh.begin();
      await assert.rejects(t1.insert(t, 'main', [[1n, 2n], ['a', 'a']]), dup('a'));
      await t1.insert(t, 'main', [[1n, 2n, 3n], ['a', 'b', null]]);
      await t1.insert(t, 'main', [[4n], [null]]);
      await assert.rejects(t1.insert(t, 'main', [[5n], ['b']]), dup('b'));
      await t1.commit();

      // Two transactions, same new value: the one committing second fails, even after the head moved again.
      const a = await wh.begin();
      const b = await wh.begin();
      await a.insert(t, 'main', [[10n], ['new']]);
      await b.insert(t, 'main', [[11n], ['new']]);
      const other = await wh.begin();
      await other.insert(t, 'main', [[12n], ['unrelated']]);
      await a.commit();
      await other.commit();
      await assert.rejects(b.commit(), dup('new'));
      assert.equal(b.state, 'aborted');

      // A savepoint rolled back frees what it wrote.
      const c = await wh.begin();
      const mark = c.savepoint();
      await c.insert(t, 'main', [[20n], ['sp']]);
      await c.rollbackTo(mark);
      await c.insert(t, 'main', [[21n], ['sp']]);
      await c.commit();
      const rows = await readRows(wh, { table: t });
      assert.deepEqual(rows.map((r) => r['email']).filter((e) => e !== null).sort(), ['a', 'b', 'new', 'sp', 'unrelated']);
    } finally {
      await cleanup();
    }
  });
}

test('keyed table: an update frees the old value, replaced rows do not collide, UPDATE pairs are checked together', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await table(wh, true);
    const w = await wh.begin();
    await w.insert(t, 'main', [[1n, 2n], ['x', 'y']]);
    await w.commit();
    const u = await wh.begin();
    // swap x and y in one write
    await u.update(t, 'main', [[1n, 2n], ['x', 'y']], [[1n, 2n], ['y', 'x']]);
    // an upsert of key 1 replaces its row: its old value is not a conflict
    await u.upsert(t, 'main', [[1n], ['y']]);
    await assert.rejects(u.upsert(t, 'main', [[3n], ['x']]), dup('x'));
    await u.commit();
    const rows = await readRows(wh, { table: t });
    assert.deepEqual(rows.map((r) => [r['id'], r['email']]).sort(), [[1n, 'y'], [2n, 'x']]);
  } finally {
    await cleanup();
  }
});

test('ALTER TABLE ADD UNIQUE checks the rows already there; NULLS NOT DISTINCT makes NULLs collide', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const t = await table(wh, false, []);
    const w = await wh.begin();
    await w.insert(t, 'main', [[1n, 2n, 3n, 4n], ['a', 'a', null, null]]);
    await w.commit();
    await assert.rejects(wh.alterTable('public', 'append', { kind: 'addConstraint', constraint: uniqueEmail }), (e: unknown) => {
      const x = e as { sqlstate?: string; message: string; detail?: string };
      assert.equal(x.sqlstate, '23505');
      assert.equal(x.message, 'could not create unique index "t_email_key"');
      assert.equal(x.detail, 'Key (email)=(a) is duplicated.');
      return true;
    });
    const ok = await wh.alterTable('public', 'append', { kind: 'addConstraint', constraint: { kind: 'unique', name: 't_id_key', columns: ['id'] } });
    assert.equal(ok.constraints.length, 1);
    const t2 = await wh.createTable({
      namespace: 'public', name: 'nd', constraints: [{ kind: 'unique', name: 'nd_v', columns: ['v'], nullsNotDistinct: true }],
      columns: [{ name: 'v', type: { kind: 'int4' }, nullable: true }],
    });
    const n = await wh.begin();
    await n.insert(t2, 'main', [[null]]);
    await assert.rejects(n.insert(t2, 'main', [[null]]), { sqlstate: '23505' });
    await n.commit();
  } finally {
    await cleanup();
  }
});
