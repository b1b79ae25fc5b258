import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unwrap } from '../../src/sql/binder/ast.js';
import { viewShape, type RelationLookup, type ViewShape } from '../../src/sql/materialized-view/view-shape.js';
import { parseStatements } from '../../src/sql/parser/parse-statements.js';

/*
 * Which joins a view's query may use and still be refreshed incrementally (issue 31): inner
 * joins, and LEFT JOINs whose right side is one table joined ON a condition, which the shape
 * marks with that condition (the refresh re-evaluates the left rows it matches to changes).
 */

const lookup: RelationLookup = (rv) => ({
  table: { tableId: 1, namespace: 'public', name: rv.relname as string, primaryKey: ['k'], columns: ['k', 'a', 'b'] },
});

function shapeOf(sql: string): ViewShape {
  return viewShape(unwrap(parseStatements(sql)[0]!.ast)[1], lookup, false);
}

/** Each relation's range name and whether an outer join pads it, or the reason for a full refresh. */
function paddedRelations(sql: string): Record<string, boolean> | string {
  const shape = shapeOf(sql);
  if (shape.kind === 'full') return shape.reason;
  const arm = shape.kind === 'linear' ? shape.arms[0]! : shape.arm;
  return Object.fromEntries(arm.relations.map((r) => [r.rangeName, r.outerJoinOn !== undefined]));
}

test('a LEFT JOIN marks its right side, and only it, with its ON condition', () => {
  assert.deepEqual(paddedRelations('SELECT x.a, y.b FROM x LEFT JOIN y ON x.a = y.k'), { x: false, y: true });
  assert.deepEqual(paddedRelations('SELECT x.a, z.b FROM x LEFT JOIN y ON x.a = y.k LEFT JOIN z ON y.b = z.k'), { x: false, y: true, z: true });
  assert.deepEqual(paddedRelations('SELECT y.a, count(*) FROM x JOIN y ON x.a = y.k LEFT JOIN z ON z.k = y.b AND z.a > 0 GROUP BY y.a'), { x: false, y: false, z: true });
  assert.deepEqual(paddedRelations('SELECT x.a FROM x, y LEFT JOIN z ON y.b = z.k WHERE x.a = y.k'), { x: false, y: false, z: true });
  const shape = shapeOf('SELECT x.a FROM x LEFT JOIN y ON x.a = y.k AND y.b > 1');
  assert.ok(shape.kind === 'linear');
  assert.match(JSON.stringify(shape.arms[0]!.relations[1]!.outerJoinOn), /"BoolExpr"/, 'the whole ON condition is kept');
});

test('other outer joins are refreshed in full, each for its reason', () => {
  assert.equal(paddedRelations('SELECT x.a FROM x RIGHT JOIN y ON x.a = y.k'), 'RIGHT and FULL joins');
  assert.equal(paddedRelations('SELECT x.a FROM x FULL JOIN y ON x.a = y.k'), 'RIGHT and FULL joins');
  assert.equal(paddedRelations('SELECT x.a FROM x LEFT JOIN y USING (k)'), 'a LEFT JOIN with USING');
  assert.equal(paddedRelations('SELECT x.a FROM x LEFT JOIN (y JOIN z ON y.b = z.k) ON x.a = y.k'), 'a LEFT JOIN whose right side is a join');
  assert.equal(paddedRelations('SELECT x.a FROM x LEFT JOIN y ON x.a = public.y.k'), 'a LEFT JOIN condition naming a column with its schema');
  assert.equal(paddedRelations('SELECT x.a FROM x NATURAL LEFT JOIN y'), 'NATURAL joins');
});
