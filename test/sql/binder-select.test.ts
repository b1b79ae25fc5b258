import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainPlan } from '../../src/planner/index.js';
import { columnsOf, query } from './bind-helpers.js';

test('output column names follow PostgreSQL 15', () => {
  assert.deepEqual(columnsOf("select 1, 'a', true, o_id, count(*) over (), cast(1 as int8), 1::text as t, case when true then 1 end, coalesce(1, 2), (select 1), exists(select 1), array[1], nullif(1, 2), greatest(1, 2) from orders"), [
    ['?column?', 'int4'], ['?column?', 'text'], ['bool', 'bool'], ['o_id', 'int8'], ['count', 'int8'], ['int8', 'int8'],
    ['t', 'text'], ['case', 'int4'], ['coalesce', 'int4'], ['?column?', 'int4'], ['exists', 'bool'], ['array', 'int4[]'],
    ['nullif', 'int4'], ['greatest', 'int4'],
  ]);
});

test('literal types: int4, int8 beyond int4, numeric, unknown → text', () => {
  assert.deepEqual(columnsOf("select 1, 3000000000, 1.5, 'x', null"), [
    ['?column?', 'int4'], ['?column?', 'int8'], ['?column?', 'numeric'], ['?column?', 'text'], ['?column?', 'text'],
  ]);
});

test('columns carry their table oid and attnum; * expands, qualified and not', () => {
  const q = query('select c.*, o.o_amount, o.o_amount + 1 as x from orders o join customers c on o.o_cust = c.c_id');
  assert.deepEqual(q.columns.map((c) => [c.name, c.tableOid, c.columnNumber]), [
    ['c_id', 16390, 1], ['c_name', 16390, 2], ['o_amount', 16384, 3], ['x', 0, 0],
  ]);
  assert.equal(query('select * from orders').columns.length, 5);
});

test('parameter types are inferred from context and declared types are kept', () => {
  assert.deepEqual(query('select o_id, o_amount from orders where o_cust = $1 order by o_id').paramTypes, [{ kind: 'int4' }]);
  assert.deepEqual(query('select $1::int8 + $2', [undefined, undefined]).paramTypes, [{ kind: 'int8' }, { kind: 'int8' }]);
  assert.deepEqual(query('select $1', [{ kind: 'int4' }]).paramTypes, [{ kind: 'int4' }]);
  assert.deepEqual(query('select $2').paramTypes, [{ kind: 'text' }, { kind: 'text' }], 'unreferenced and open parameters default to text');
  assert.deepEqual(query("select 1 from orders where o_note like $1 and o_ts > $2").paramTypes, [{ kind: 'text' }, { kind: 'timestamptz' }]);
});

test('GROUP BY by expression, ordinal and alias; HAVING; ORDER BY an aggregate', () => {
  const q = query('select o_cust + 1 as k, count(*) as n from orders group by 1 having sum(o_amount) > 10 order by count(*) desc');
  assert.deepEqual(q.columns.map((c) => c.name), ['k', 'n']);
  const text = explainPlan(q.plan).join('\n');
  assert.match(text, /Hash Aggregate/);
  assert.match(text, /Group Key: \(o_cust \+ 1\)/);
  assert.match(text, /Aggregates: count\(\*\), sum\(o_amount\)/);
  query('select o_cust as c, count(*) from orders group by c');
  query('select o_cust + 1, count(*) from orders group by o_cust + 1');
});

test('DISTINCT, DISTINCT ON, LIMIT/OFFSET with parameters', () => {
  const q = query('select distinct on (o_cust) o_cust, o_id from orders order by o_cust, o_id desc limit $1 offset 2');
  assert.deepEqual(q.paramTypes, [{ kind: 'int8' }]);
  const text = explainPlan(q.plan).join('\n');
  assert.match(text, /Distinct On \(o_cust\)/);
  assert.match(text, /Limit: \$1, Offset: 2/);
  assert.match(explainPlan(query('select distinct o_cust from orders').plan).join('\n'), /Distinct/);
});

test('set operations unify types and keep left names', () => {
  const q = query('select o_cust as a from orders union all select 1.5 order by a limit 3');
  assert.deepEqual(q.columns.map((c) => [c.name, c.type.kind]), [['a', 'numeric']]);
  assert.match(explainPlan(q.plan).join('\n'), /Union All/);
  query('select o_id from orders intersect select c_id from customers except select 1');
});

test('CTEs, subqueries in FROM with column aliases, VALUES', () => {
  const q = query('with big as (select o_id, o_amount from orders where o_amount > 100) select b.x from big as b(x) where x > 3');
  assert.deepEqual(q.columns.map((c) => c.name), ['x']);
  assert.deepEqual(columnsOf('select * from (values (1, \'a\'), (2, null)) v(n, s)'), [['n', 'int4'], ['s', 'text']]);
  assert.deepEqual(columnsOf('values (1, 2.5)'), [['column1', 'int4'], ['column2', 'numeric']]);
});

test('joins: inner/left/right/full/cross, USING and NATURAL', () => {
  for (const j of ['join', 'left join', 'right join', 'full join']) {
    query(`select * from orders o ${j} customers c on o.o_cust = c.c_id`);
  }
  query('select * from orders cross join customers');
  const u = query('select * from orders a join orders b using (o_id)');
  assert.equal(u.columns.length, 9, 'the USING column appears once');
  query('select o_id from orders a natural join orders b');
  assert.throws(() => query('select 1 from orders natural join orders'), /table name "orders" specified more than once/);
});

test('subqueries: scalar, EXISTS, IN, correlated, ARRAY(…)', () => {
  const q = query('select o_id, (select c_name from customers c where c.c_id = o.o_cust) from orders o where o_id > (select 1) or exists (select 1 from customers where c_id = o_cust limit 1)');
  const text = explainPlan(q.plan).join('\n');
  assert.match(text, /EXISTS SubPlan correlated/, 'EXISTS under OR stays a subquery');
  assert.match(text, /Output: o_id, \(SubPlan correlated\) AS c_name/);
  assert.deepEqual(columnsOf('select array(select c_name from customers)'), [['array', 'text[]']]);
});

test('IN / EXISTS in WHERE are decorrelated into semi, anti and mark joins', () => {
  const text = explainPlan(query("select o_id from orders o where exists (select 1 from customers c where c.c_id = o.o_cust and c.c_name = 'x') and not exists (select 1 from customers where c_id = o_id) and o_cust in (select c_id from customers) and o_cust not in (select c_id from customers where c_name like $1)").plan).join('\n');
  assert.match(text, /Hash Join \(semi\)\n\s+Hash Cond: \(o_cust = c_id\)/);
  assert.match(text, /Hash Join \(anti\)\n\s+Hash Cond: \(o_id = \(c_id\)::bigint\)/);
  assert.match(text, /Filter\n\s+Predicate: \(NOT mark\)\n\s+->  Hash Join \(mark\)/);
  assert.match(text, /Pushed Filters: c_name = 'x'/, "the subquery's own conditions filter the build side");
  assert.doesNotMatch(text, /SubPlan/);
  const agg = explainPlan(query('select 1 from orders o where exists (select count(*) from customers where c_id = o_cust)').plan).join('\n');
  assert.match(agg, /EXISTS SubPlan correlated/, 'an aggregate subquery is not decorrelated');
});

test('catalog names: pg_catalog first, ::regclass resolved at bind time, OPERATOR(pg_catalog.~), system tables', () => {
  const q = query("select relname from pg_class where oid = 'orders'::regclass and relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default");
  assert.match(explainPlan(q.plan).join('\n'), /oid = 16384::oid|16384/);
  assert.match(explainPlan(query("select 'pg_catalog.pg_class'::regclass").plan).join('\n'), /1259/);
  assert.deepEqual(columnsOf('select snapshot_id from orders$snapshots'), [['snapshot_id', 'int8']]);
  assert.deepEqual(columnsOf('select n.nspname from pg_catalog.pg_namespace n'), [['nspname', 'name']]);
});

test('time travel and branches become the scan snapshot selector', () => {
  const at = (sql: string): unknown => {
    const p = query(sql).plan;
    assert.equal(p.kind, 'lakeScan');
    return p.kind === 'lakeScan' ? p.at : undefined;
  };
  assert.deepEqual(at('select * from orders for system_version as of 42'), { kind: 'version', value: '42' });
  assert.deepEqual(at("select * from orders version as of 'v1'"), { kind: 'version', value: 'v1' });
  assert.deepEqual(at("select * from orders for system_time as of '2024-01-01 00:00:00+00'"), { kind: 'timestamp', micros: 1704067200000000n });
  assert.deepEqual(at("select * from orders timestamp as of '2024-01-01 01:00:00'"), { kind: 'timestamp', micros: 1704070800000000n });
  assert.deepEqual(at('select * from orders$branch_dev'), { kind: 'ref', name: 'dev' });
});

test('window functions', () => {
  const q = query('select o_id, row_number() over (partition by o_cust order by o_id) as rn, sum(o_amount) over () from orders');
  assert.deepEqual(q.columns.map((c) => [c.name, c.type.kind]), [['o_id', 'int8'], ['rn', 'int8'], ['sum', 'numeric']]);
  assert.match(explainPlan(q.plan).join('\n'), /Window/);
});

test('named windows and explicit frames', () => {
  const q = query('select sum(o_amount) over w, sum(o_amount) over (w rows between 2 preceding and current row), sum(o_cust) over (order by o_id range between unbounded preceding and 3 following) from orders window w as (partition by o_cust order by o_id)');
  const p = q.plan.kind === 'project' ? q.plan.input : q.plan;
  assert.equal(p.kind, 'window');
  if (p.kind === 'window') {
    assert.equal(p.functions.length, 3);
    assert.equal(p.functions[0]!.partitionBy.length, 1);
    assert.equal(p.functions[0]!.frame, undefined);
    assert.deepEqual(p.functions[1]!.frame, { mode: 'rows', start: { kind: 'preceding', offset: { kind: 'literal', value: 2n, type: { kind: 'int8' } } }, end: { kind: 'currentRow' } });
    assert.equal(p.functions[1]!.partitionBy.length, 1, 'inherits the named window partitioning');
    assert.deepEqual(p.functions[2]!.frame?.end, { kind: 'following', offset: { kind: 'literal', value: 3, type: { kind: 'int4' } } });
  }
  assert.throws(() => query('select sum(o_id) over nope from orders'), /window "nope" does not exist/);
});

test('GROUPING SETS, ROLLUP, CUBE and GROUPING()', () => {
  const q = query('select o_cust, o_note, grouping(o_cust, o_note) g, sum(o_amount) from orders group by rollup(o_cust, o_note) having grouping(o_cust) = 0');
  const text = explainPlan(q.plan).join('\n');
  assert.match(text, /Grouping Sets: \(o_cust, o_note\), \(o_cust\), \(\)/);
  assert.match(text, /CASE WHEN \(NOT \(\(grouping & 2\) = 0\)\) THEN 2 ELSE 0 END \+ CASE WHEN \(NOT \(\(grouping & 1\) = 0\)\) THEN 1 ELSE 0 END\) AS g/);
  assert.match(explainPlan(query('select count(*) from orders group by grouping sets ((o_cust), ()), cube(o_note)').plan).join('\n'),
    /Grouping Sets: \(o_cust, o_note\), \(o_cust\), \(o_note\), \(\)/);
  assert.throws(() => query('select grouping(o_id) from orders group by o_cust'), /arguments to GROUPING must be grouping expressions/);
});

test('a correlated subquery in a grouped select list reads the group key', () => {
  const q = query('select o_note, o_cust, (select count(*) from customers where c_id = o_cust) from orders group by o_cust, o_note');
  const project = q.plan;
  assert.ok(project.kind === 'project');
  const sub = project.kind === 'project' ? project.exprs[2]! : undefined;
  assert.ok(sub?.kind === 'scalarSubquery' && sub.correlated);
  const refs: unknown[] = [];
  JSON.stringify(sub, (_k, v) => { if (v && typeof v === 'object' && v.kind === 'outerColumn') refs.push(v); return typeof v === 'bigint' ? String(v) : v; });
  assert.deepEqual(refs.map((r) => (r as { index: number }).index), [0], 'o_cust is key 0 of the aggregate, not column 1 of orders');
  assert.throws(() => query('select o_cust, (select count(*) from customers where c_id = o_id) from orders group by o_cust'), /o_id/);
});

test("interval '90' day: a bare number takes the qualifier's unit", () => {
  const q = query("select interval '90' day, interval '3' month, interval '1' year, interval '5' day to hour, interval '1 day'");
  const p = q.plan;
  assert.ok(p.kind === 'project' || p.kind === 'values');
  const exprs = p.kind === 'project' ? p.exprs : p.kind === 'values' ? p.rows[0]! : [];
  assert.deepEqual(exprs.map((e) => (e.kind === 'cast' && e.arg.kind === 'literal' ? e.arg.value : e.kind === 'literal' ? e.value : '?')),
    ['90 day', '3 month', '1 year', '5 hour', '1 day']);
});

test('a CASE is named after its ELSE result when that has a name (psql \\d)', () => {
  assert.deepEqual(columnsOf("select case when o_cust = 0 then '' else o_note::text end, case when true then o_note end, case when true then 1 else 2 end from orders").map((c) => c[0]),
    ['o_note', 'case', 'case']);
});
