import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import type { BoundStatement, DdlCommand, UtilityCommand } from '../../src/sql/index.js';
import { bind, physical } from './bind-helpers.js';
import { explainPlan, planStatement } from '../../src/planner/index.js';

function dml(sql: string): Extract<BoundStatement, { kind: 'dml' }> {
  const b = bind(sql);
  assert.equal(b.kind, 'dml', sql);
  return b as Extract<BoundStatement, { kind: 'dml' }>;
}
function ddl(sql: string): DdlCommand {
  const b = bind(sql);
  assert.equal(b.kind, 'ddl', sql);
  return (b as { command: DdlCommand }).command;
}
function utility(sql: string): UtilityCommand {
  const b = bind(sql);
  assert.equal(b.kind, 'utility', sql);
  return (b as { command: UtilityCommand }).command;
}
function sink<K extends PhysicalPlan['kind']>(b: BoundStatement, kind: K): Extract<PhysicalPlan, { kind: K }> {
  const plan = physical(b);
  assert.equal(plan.kind, kind);
  return plan as Extract<PhysicalPlan, { kind: K }>;
}

test('INSERT … VALUES builds full table rows, defaults filled, parameters typed by their columns', () => {
  const b = dml('insert into orders(o_id,o_cust,o_amount,o_ts,o_note) values ($1,$2,$3,$4,$5) on conflict (o_id) do update set o_amount = excluded.o_amount');
  assert.deepEqual(b.paramTypes.map((t) => t.kind), ['int8', 'int4', 'numeric', 'timestamptz', 'text']);
  assert.equal(b.commandTag(7), 'INSERT 0 7');
  const ins = sink(b, 'insert');
  assert.equal(ins.table.id, 16384);
  assert.equal(ins.input.kind, 'values');
  assert.deepEqual(ins.onConflict && ins.onConflict.action === 'update' ? ins.onConflict.set.map((s) => [s.column, s.expr.kind === 'column' ? s.expr.index : -1]) : [],
    [[2, 5 + 2]], 'SET o_amount reads EXCLUDED.o_amount (existing row, then excluded row)');
  const d = sink(dml("insert into orders (o_id) values (1), (2)"), 'insert');
  assert.equal(d.input.kind, 'values');
  const rows = d.input.kind === 'values' ? d.input.rows : [];
  assert.equal(rows.length, 2);
  assert.equal(rows[0]!.length, 5);
  assert.deepEqual(rows[0]![4], { kind: 'literal', value: 'none', type: { kind: 'text' } }, "o_note's DEFAULT 'none'");
  assert.deepEqual(rows[0]![1], { kind: 'literal', value: null, type: { kind: 'int4' } });
});

test('INSERT … SELECT, DEFAULT VALUES, DO NOTHING, RETURNING, branches', () => {
  const b = dml('insert into customers select o_cust, o_note from orders on conflict do nothing returning c_id, c_name as n');
  const ins = sink(b, 'insert');
  assert.deepEqual(ins.onConflict, { action: 'nothing', arbiter: { kind: 'any' } });
  assert.deepEqual(b.columns.map((c) => [c.name, c.type.kind, c.tableOid, c.columnNumber]), [['c_id', 'int4', 16390, 1], ['n', 'text', 16390, 2]]);
  assert.equal(sink(dml('insert into orders$branch_dev (o_id) values (1)'), 'insert').ref, 'dev');
  assert.equal(sink(dml('insert into sales.items default values'), 'insert').input.kind, 'values');
});

test('UPDATE: SET over the target row, FROM items computed below, RETURNING the new row', () => {
  const b = dml("update orders set o_note = 'x', o_cust = o_cust + 1 where o_id = 3 returning *");
  const u = sink(b, 'update');
  assert.deepEqual(u.set.map((s) => s.column), [4, 1]);
  assert.equal(b.columns.length, 5);
  assert.equal(b.commandTag(2), 'UPDATE 2');
  assert.equal(u.input.kind, 'lakeScan');
  const f = sink(dml('update orders o set o_note = c.c_name from customers c where c.c_id = o.o_cust'), 'update');
  assert.equal(f.input.columns.length, 6, 'table row plus the computed value');
  assert.deepEqual(f.set, [{ column: 4, expr: { kind: 'column', index: 5, type: { kind: 'text' } } }]);
});

test('append tables expose the row id to UPDATE and DELETE', () => {
  const d = sink(dml('delete from sales.items where i_id = 1'), 'delete');
  assert.deepEqual(d.input.columns.map((c) => c.name), ['i_id', 'i_name', '_row_id']);
  const k = sink(dml('delete from orders where o_id = 1'), 'delete');
  assert.deepEqual(k.input.columns.map((c) => c.name), ['o_id', 'o_cust', 'o_amount', 'o_ts', 'o_note']);
  assert.equal(dml('delete from orders using customers where o_cust = c_id').commandTag(0), 'DELETE 0');
});

test('CREATE TABLE: key, NOT NULL, DEFAULT, partition spec in both spellings, properties', () => {
  const c = ddl("create table if not exists s.t (id bigint primary key, ts timestamptz not null, region varchar(8) default 'eu', amount numeric(12,2)) partition by (day(ts), bucket(16, id), truncate(4, region)) with ('write.target-file-size' = '64MB', merge_engine = deduplicate)");
  assert.deepEqual(c, {
    kind: 'createTable', table: { namespace: 's', name: 't' }, ifNotExists: true,
    columns: [
      { name: 'id', type: { kind: 'int8' }, nullable: false },
      { name: 'ts', type: { kind: 'timestamptz' }, nullable: false },
      { name: 'region', type: { kind: 'varchar', length: 8 }, nullable: true, defaultExpr: "'eu'" },
      { name: 'amount', type: { kind: 'numeric', precision: 12, scale: 2 }, nullable: true },
    ],
    primaryKey: ['id'],
    partitionBy: [
      { sourceColumn: 'ts', transform: { kind: 'day' }, name: 'ts_day' },
      { sourceColumn: 'id', transform: { kind: 'bucket', buckets: 16 }, name: 'id_bucket' },
      { sourceColumn: 'region', transform: { kind: 'truncate', width: 4 }, name: 'region_trunc' },
    ],
    properties: { 'write.target-file-size': '64MB', merge_engine: 'deduplicate' },
  });
  const r = ddl('create table t (a int, b date, primary key (a, b)) partition by range (b)');
  assert.ok(r.kind === 'createTable');
  assert.deepEqual(r.kind === 'createTable' ? [r.table, r.primaryKey, r.partitionBy, r.columns.map((x) => x.nullable)] : [],
    [{ namespace: 'public', name: 't' }, ['a', 'b'], [{ sourceColumn: 'b', transform: { kind: 'identity' }, name: 'b' }], [false, false]]);
});

test('schema and table DDL, ALTER TABLE actions, branch/tag DDL', () => {
  assert.deepEqual(ddl('create schema if not exists sales'), { kind: 'createSchema', name: 'sales', ifNotExists: true });
  assert.deepEqual(ddl('drop schema a, b cascade'), { kind: 'dropSchema', names: ['a', 'b'], ifExists: false, cascade: true });
  assert.deepEqual(ddl('drop table if exists orders, s.x'), {
    kind: 'dropTable', tables: [{ namespace: 'public', name: 'orders' }, { namespace: 's', name: 'x' }], ifExists: true, cascade: false, writtenNames: ['orders', 'x'],
  });
  assert.deepEqual(ddl('alter table items add column c int not null default 3, drop column if exists d'), {
    kind: 'alterTable', table: { namespace: 'public', name: 'items' }, ifExists: false,
    actions: [
      { kind: 'addColumn', column: { name: 'c', type: { kind: 'int4' }, nullable: false, defaultExpr: '3' }, ifNotExists: false },
      { kind: 'dropColumn', name: 'd', ifExists: true },
    ],
  });
  assert.deepEqual(ddl('alter table orders rename column o_note to note'), {
    kind: 'alterTable', table: { namespace: 'public', name: 'orders' }, ifExists: false, actions: [{ kind: 'renameColumn', from: 'o_note', to: 'note' }],
  });
  assert.deepEqual(ddl("alter table orders set ('write.target-file-size' = '1GB')").kind === 'alterTable', true);
  assert.deepEqual(ddl('alter table orders reset (a, b)'), {
    kind: 'alterTable', table: { namespace: 'public', name: 'orders' }, ifExists: false, actions: [{ kind: 'resetProperties', keys: ['a', 'b'] }],
  });
  assert.deepEqual(ddl('alter table orders create tag v1 as of version 5'), {
    kind: 'alterTable', table: { namespace: 'public', name: 'orders' }, ifExists: false,
    actions: [{ kind: 'createRef', refKind: 'tag', name: 'v1', orReplace: false, ifNotExists: false, fromSnapshot: 5n }],
  });
  assert.deepEqual(ddl('alter table orders drop branch dev'), {
    kind: 'alterTable', table: { namespace: 'public', name: 'orders' }, ifExists: false,
    actions: [{ kind: 'dropRef', refKind: 'branch', name: 'dev', ifExists: false }],
  });
});

test('transaction, settings and session utility commands', () => {
  assert.deepEqual(utility('begin isolation level serializable read only'), { kind: 'begin', modes: { isolation: 'serializable', readOnly: true } });
  assert.deepEqual(utility('start transaction'), { kind: 'begin', modes: {}, start: true });
  assert.deepEqual(utility('end'), { kind: 'commit', chain: false });
  assert.deepEqual(utility('rollback to savepoint s1'), { kind: 'rollbackTo', name: 's1' });
  assert.deepEqual(utility("set search_path to a, 'B'"), { kind: 'set', name: 'search_path', value: 'a, B', local: false });
  assert.deepEqual(utility("set time zone 'UTC'"), { kind: 'set', name: 'timezone', value: 'UTC', local: false });
  assert.deepEqual(utility('set local extra_float_digits = 3'), { kind: 'set', name: 'extra_float_digits', value: '3', local: true });
  assert.deepEqual(utility('set datestyle to default'), { kind: 'set', name: 'datestyle', value: null, local: false });
  assert.deepEqual(utility('reset all'), { kind: 'reset', name: 'all' });
  assert.deepEqual(utility('show transaction isolation level'), { kind: 'show', name: 'transaction_isolation' });
  assert.deepEqual(utility('set session characteristics as transaction isolation level read committed'), {
    kind: 'setTransaction', modes: { isolation: 'read committed' }, session: true,
  });
  assert.deepEqual(utility('discard all'), { kind: 'discard', target: 'all' });
  assert.deepEqual(utility('deallocate all'), { kind: 'deallocate', name: null });
  assert.deepEqual(utility('show tblproperties orders'), { kind: 'showTblProperties', table: { namespace: 'public', name: 'orders' } });
  assert.deepEqual(utility('listen x'), { kind: 'listen', channel: 'x' });
  assert.deepEqual(utility('vacuum orders'), { kind: 'noop', tag: 'VACUUM' });
});

test('cursors, prepared statements, COPY, EXPLAIN, CALL', () => {
  const d = utility('declare c binary scroll cursor with hold for select o_id from orders');
  assert.ok(d.kind === 'declareCursor');
  if (d.kind === 'declareCursor') {
    assert.deepEqual([d.name, d.binary, d.scroll, d.hold, d.query.columns.map((c) => c.name)], ['c', true, true, true, ['o_id']]);
  }
  assert.deepEqual(utility('fetch forward 5 from c'), { kind: 'fetch', move: false, cursor: 'c', direction: 'forward', count: 5n });
  assert.deepEqual(utility('fetch all in c'), { kind: 'fetch', move: false, cursor: 'c', direction: 'forward', count: 'all' });
  assert.deepEqual(utility('move backward 2 in c'), { kind: 'fetch', move: true, cursor: 'c', direction: 'backward', count: 2n });
  assert.deepEqual(utility('close all'), { kind: 'closeCursor', name: null });
  const p = utility('prepare q (int8) as select * from orders where o_id = $1');
  assert.ok(p.kind === 'prepare' && p.paramTypes[0]!.kind === 'int8' && Object.keys(p.statement.ast)[0] === 'SelectStmt');
  const e = utility("execute q (1, 'a')");
  assert.ok(e.kind === 'execute' && e.args.types.length === 2 && planStatement(e.args.logical).kind === 'values');
  const cf = utility("copy orders (o_id, o_note) from stdin with (format csv, header true, delimiter ';')");
  assert.ok(cf.kind === 'copyFrom');
  if (cf.kind === 'copyFrom') {
    assert.deepEqual(cf.columns.map((c) => [c.name, c.columnNumber]), [['o_id', 1], ['o_note', 5]]);
    assert.deepEqual([cf.options.format, cf.options.header, cf.options.delimiter, cf.options.null, cf.source], ['csv', true, ';', '', 'stdin']);
  }
  const ct = utility('copy orders to stdout');
  assert.ok(ct.kind === 'copyTo' && ct.query.columns.length === 5 && ct.options.delimiter === '\t' && ct.options.null === '\\N');
  const cq = utility('copy (select o_id from orders) to stdout (format csv)');
  assert.ok(cq.kind === 'copyTo' && cq.query.columns.length === 1 && cq.options.format === 'csv');
  const x = utility('explain analyze select o_id from orders where o_id = 1');
  assert.ok(x.kind === 'explain' && x.analyze && explainPlan(physical(x.statement)).some((l) => l.includes('Lake Scan on public.orders')));
  const c = utility("call fast_forward('orders', 'main', 'dev')");
  assert.ok(c.kind === 'call' && c.procedure === 'fast_forward' && c.args.types.every((t) => t.kind === 'text'));
});

test('MERGE: join type from the clauses, actions over source ++ target, markers for presence', () => {
  const b = dml("merge into orders t using (values (1, 'a')) s(id, note) on t.o_id = s.id when matched and t.o_cust > 1 then update set o_note = s.note when matched then delete when not matched then insert (o_id, o_note) values (s.id, s.note) when not matched by source then do nothing returning t.o_id");
  assert.equal(b.commandTag(3), 'MERGE 3');
  const m = sink(b, 'merge');
  assert.deepEqual([m.sourceWidth, m.sourcePresent, m.targetPresent], [2, 7, 8]);
  assert.deepEqual(m.actions.map((a) => [a.match, a.action.kind, a.condition !== undefined]), [
    ['matched', 'update', true], ['matched', 'delete', false], ['notMatchedByTarget', 'insert', false], ['notMatchedBySource', 'nothing', false],
  ]);
  const update = m.actions[0]!.action;
  assert.deepEqual(update.kind === 'update' ? update.set : [], [{ column: 4, expr: { kind: 'column', index: 1, type: { kind: 'text' }, name: 'note' } }]);
  const insert = m.actions[2]!.action;
  assert.equal(insert.kind === 'insert' ? insert.values.length : 0, 5, 'a full table row, defaults for the rest');
  assert.equal(m.input.columns.length, 9);
  const join = m.input.kind === 'project' ? m.input.input : m.input;
  assert.ok(join.kind === 'hashJoin' && join.joinType === 'full');
  assert.deepEqual(b.columns.map((c) => c.name), ['o_id']);
  const inner = sink(dml('merge into orders using customers c on o_id = c.c_id when matched then delete'), 'merge');
  const j = inner.input.kind === 'project' ? inner.input.input : inner.input;
  assert.ok(j.kind === 'hashJoin' && j.joinType === 'inner');
  const append = sink(dml('merge into sales.items i using customers c on i.i_id = c.c_id when matched then delete'), 'merge');
  assert.equal(append.input.columns[append.sourceWidth + 2]!.name, '_row_id', 'append tables carry the row id after the target row');
});

test('TRUNCATE deletes every row with PostgreSQL\'s tag', () => {
  const b = dml('truncate table orders');
  assert.equal(b.commandTag(5), 'TRUNCATE TABLE');
  assert.equal(sink(b, 'delete').input.kind, 'lakeScan');
});
