import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindError, pos } from './bind-helpers.js';

function expectError(sql: string, sqlstate: string, message: string | RegExp, at?: string): void {
  const e = bindError(sql);
  assert.equal(e.sqlstate, sqlstate, `${sql}: ${e.message}`);
  if (typeof message === 'string') assert.equal(e.message, message);
  else assert.match(e.message, message);
  if (at !== undefined) assert.equal(e.position, pos(sql, at), `${sql}: position`);
}

test('unknown relation: 42P01 at the name', () => {
  expectError('select * from nope', '42P01', 'relation "nope" does not exist', 'nope');
  expectError('select 1 from public.orders o join sales.nope n on true', '42P01', 'relation "sales.nope" does not exist', 'sales.nope');
  expectError('select x.o_id from orders', '42P01', 'missing FROM-clause entry for table "x"', 'x.o_id');
});

test('unknown and ambiguous columns: 42703 / 42702 at the reference', () => {
  expectError('select zz from orders', '42703', 'column "zz" does not exist', 'zz');
  expectError('select o.zz from orders o', '42703', 'column o.zz does not exist', 'o.zz');
  expectError('select o_id from orders a, orders b', '42702', 'column reference "o_id" is ambiguous', 'o_id');
  expectError('select 1 from orders where o_custt = 1', '42703', 'column "o_custt" does not exist', 'o_custt');
  expectError('insert into orders (o_id, nope) values (1, 2)', '42703', 'column "nope" of relation "orders" does not exist', 'nope');
});

test('grouping errors: 42803', () => {
  expectError('select o_id, count(*) from orders', '42803',
    'column "orders.o_id" must appear in the GROUP BY clause or be used in an aggregate function', 'o_id');
  expectError('select o_cust, o_note from orders group by o_cust', '42803', /o_note/, 'o_note');
  expectError('select 1 from orders where count(*) > 1', '42803', 'aggregate functions are not allowed in WHERE', 'count');
  expectError('select sum(count(*)) from orders', '42803', 'aggregate function calls cannot be nested', 'count');
});

test('type errors: 42883 / 42804 / 22P02', () => {
  expectError('select true + 1', '42883', 'operator does not exist: boolean + integer', '+');
  expectError('select nosuchfn(1)', '42883', 'function nosuchfn(integer) does not exist', 'nosuchfn');
  expectError('select 1 from orders where o_note', '42804', 'argument of WHERE must be type boolean, not type text', 'o_note');
  expectError("select 1 from orders where o_id = 'abc'", '22P02', 'invalid input syntax for type bigint: "abc"', "'abc'");
  expectError("insert into orders (o_id, o_ts) values (1, true)", '42804', /column is of type timestamp with time zone but expression is of type boolean/);
});

test('select-list references: 42P10 for bad ordinals, DISTINCT ORDER BY', () => {
  expectError('select o_id from orders order by 2', '42P10', 'ORDER BY position 2 is not in select list', '2');
  expectError('select distinct o_id from orders order by o_cust', '42P10', 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', 'o_cust');
  expectError('select o_id, count(*) from orders group by 3', '42P10', 'GROUP BY position 3 is not in select list');
});

test('INSERT arity and ON CONFLICT target checks', () => {
  expectError('insert into orders (o_id, o_cust) values (1)', '42601', 'INSERT has more target columns than expressions');
  expectError('insert into orders (o_id) values (1, 2)', '42601', 'INSERT has more expressions than target columns', '2)');
  expectError('insert into orders (o_id) values (1) on conflict (o_cust) do nothing', '42P10',
    'there is no unique or exclusion constraint matching the ON CONFLICT specification');
  expectError('insert into sales.items values (1) on conflict (i_id) do nothing', '42P10', /no unique or exclusion constraint/);
});

test('lakehouse binding errors', () => {
  expectError('insert into orders for system_version as of 1 values (1)', '0A000', /as of a past snapshot/, 'for system_version');
  expectError('update orders version as of 3 set o_cust = 1', '0A000', /as of a past snapshot/, 'version as of');
  expectError('insert into pg_catalog.pg_class values (1)', '42809', 'cannot insert into relation "pg_class"');
  expectError('select * from orders for system_time as of 5', '42804', 'SYSTEM_TIME AS OF needs a timestamp', '5');
  expectError('select * from orders$nosuch', '42P01', 'relation "orders$nosuch" does not exist');
  expectError('create table t (a int) partition by (weeks(a))', '22023', 'unknown partition transform weeks/1', 'weeks');
  expectError('create table t (a int) partition by (day(b))', '42703', 'column "b" named in partition key does not exist', 'b))');
});

test('parameters that are never given a type are an error only when numbered wrongly', () => {
  expectError('select $0', '42P02', 'there is no parameter $0');
});
