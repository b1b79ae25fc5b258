import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import { executePlan } from '../../src/exec/execute.js';
import { arrowColumnReaders } from '../../src/exec/arrow/arrow-column-readers.js';
import { bindStatement, parseStatements, type BindEnv } from '../../src/sql/index.js';
import { planStatement } from '../../src/planner/index.js';
import type { VirtualTable, VirtualTableRegistry } from '../../src/sql/binder/virtual-table.js';

/*
 * Bound plans executed by EXEC over in-memory relations: checks that what the binder
 * and planner produce (decorrelated joins, grouping sets, windows, series) means
 * what the SQL means.
 */
const t = (kind: string): SqlType => ({ kind } as SqlType);
function relation(name: string, columns: [string, string][], rows: unknown[][]): VirtualTable {
  return { schema: 'public', name, oid: 70000 + name.length, columns: columns.map(([n, k]) => ({ name: n, type: t(k) })), rows: async () => rows };
}
const tables = [
  relation('emp', [['id', 'int4'], ['dept', 'int4'], ['name', 'text'], ['salary', 'int4']], [
    [1, 10, 'ann', 100], [2, 10, 'bob', 200], [3, 20, 'cid', 150], [4, null, 'dan', 50], [5, 30, 'eve', 300],
  ]),
  relation('dept', [['id', 'int4'], ['title', 'text']], [[10, 'eng'], [20, 'ops'], [40, 'hr'], [null, 'none']]),
];
const registry: VirtualTableRegistry = {
  lookup: (schema, name) => tables.find((x) => x.schema === schema && x.name === name),
  list: () => tables,
};
const env: BindEnv = { warehouse: { getTable: () => undefined }, searchPath: ['public'], virtualTables: registry };

async function rows(sql: string, params: unknown[] = []): Promise<unknown[][]> {
  const b = bindStatement(parseStatements(sql)[0]!, env);
  assert.ok(b.kind === 'query');
  if (b.kind !== 'query') return [];
  const out: unknown[][] = [];
  for await (const batch of executePlan(planStatement(b.logical), { virtualTables: registry, params })) {
    const readers = arrowColumnReaders(batch, b.columns.map((c) => c.type));
    for (let r = 0; r < batch.numRows; r++) out.push(readers.map((c) => { const v = c.get(r); return typeof v === 'bigint' ? Number(v) : v; }));
  }
  return out;
}

test('IN / NOT IN / EXISTS / NOT EXISTS keep SQL semantics after decorrelation (NULLs included)', async () => {
  assert.deepEqual(await rows('select name from emp where dept in (select id from dept) order by name'), [['ann'], ['bob'], ['cid']]);
  assert.deepEqual(await rows('select name from emp where dept not in (select id from dept where id is not null) order by name'), [['eve']]);
  assert.deepEqual(await rows('select name from emp where dept not in (select id from dept)'), [], 'NOT IN over a set with NULL is never true');
  assert.deepEqual(await rows('select name from emp e where exists (select 1 from dept d where d.id = e.dept and d.title <> \'ops\') order by 1'), [['ann'], ['bob']]);
  assert.deepEqual(await rows('select name from emp e where not exists (select 1 from dept d where d.id = e.dept) order by 1'), [['dan'], ['eve']]);
});

test('joins, grouping sets, windows', async () => {
  assert.deepEqual(await rows('select e.name, d.title from emp e left join dept d on d.id = e.dept where e.salary > 100 order by e.name'),
    [['bob', 'eng'], ['cid', 'ops'], ['eve', null]]);
  assert.deepEqual(await rows('select dept, sum(salary), grouping(dept) from emp where dept is not null group by rollup(dept) order by 3, 1'),
    [[10, 300, 0], [20, 150, 0], [30, 300, 0], [null, 750, 1]]);
  assert.deepEqual(await rows('select name, rank() over (partition by dept order by salary desc) from emp where dept = 10 order by 2'), [['bob', 1], ['ann', 2]]);
});

test('series over non-constant arguments and array comparisons', async () => {
  assert.deepEqual(await rows('select g from generate_series(2, (select max(id) from emp)) g order by g'), [[2], [3], [4], [5]]);
  assert.deepEqual(await rows("select x from unnest((select array_agg(name) from emp where dept = 10)) x order by x"), [['ann'], ['bob']]);
  assert.deepEqual(await rows('select name from emp where id = any(array[1, 3]) order by 1'), [['ann'], ['cid']]);
  assert.deepEqual(await rows('select name from emp where salary > all($1::int4[]) order by 1', [[100, 150]]), [['bob'], ['eve']]);
});

test('scalar subqueries, correlated and under grouping', async () => {
  assert.deepEqual(await rows('select name, (select title from dept d where d.id = e.dept) from emp e order by id limit 3'), [['ann', 'eng'], ['bob', 'eng'], ['cid', 'ops']]);
  assert.deepEqual(await rows('select dept, (select title from dept d where d.id = e.dept) from emp e where dept is not null group by dept order by 1'),
    [[10, 'eng'], [20, 'ops'], [30, null]]);
});

test('aggregated scalar subqueries in WHERE become grouped left joins with the same answers', async () => {
  const sql = 'select name from emp e where salary >= (select avg(salary) from emp i where i.dept = e.dept) order by name';
  const b = bindStatement(parseStatements(sql)[0]!, env);
  assert.ok(b.kind === 'query' && !JSON.stringify(planStatement(b.logical), (_k, v) => (typeof v === 'bigint' ? String(v) : v)).includes('scalarSubquery'));
  assert.deepEqual(await rows(sql), [['bob'], ['cid'], ['eve']], 'dan (NULL dept) compares with NULL and drops out');
  assert.deepEqual(await rows('select name from emp e where salary > (select max(d.id) * 2 from dept d where d.title = e.name)'), [], 'no group → NULL, as the subquery would give');
  assert.deepEqual(await rows('select name from emp e where 1 = (select count(*) from dept d where d.id = e.dept) order by 1'), [['ann'], ['bob'], ['cid']], 'count stays a subquery (0 on no rows)');
});

test('set-returning functions run through EXEC projectSet: in FROM (WITH ORDINALITY) and in the select list', async () => {
  assert.deepEqual(await rows("select x, n from unnest(array['a', 'b']) with ordinality u(x, n) order by n"), [['a', 1], ['b', 2]]);
  assert.deepEqual(await rows('select g from generate_series(1, (select count(*)::int4 from dept)) g order by 1'), [[1], [2], [3], [4]]);
  assert.deepEqual(await rows('select id, generate_series(1, 2) from dept where id = 10 order by 2'), [[10, 1], [10, 2]]);
  const b = bindStatement(parseStatements('select unnest(array[1, 2])')[0]!, env);
  assert.ok(b.kind === 'query' && planStatement(b.logical).kind === 'projectSet');
});

test('functions in FROM are implicitly LATERAL', async () => {
  assert.deepEqual(await rows("select d.title, x from dept d, unnest(array[d.title, 'z']) x where d.id = 10 order by 2"), [['eng', 'eng'], ['eng', 'z']]);
  assert.deepEqual(await rows('select e.name, g from emp e, generate_series(1, e.id) g where e.id <= 2 order by 1, 2'), [['ann', 1], ['bob', 1], ['bob', 2]]);
});
