import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import { bindLogicalQuery } from '../../src/sql/binder/bind-logical-query.js';
import { parseStatements } from '../../src/sql/index.js';
import type { BindEnv, CatalogTable } from '../../src/sql/index.js';
import { explainPlan, planStatement } from '../../src/planner/index.js';
import { stubEnv } from '../sql/stub-env.js';
import fc from 'fast-check';
import { compileExpr } from '../../src/exec/expr/compile-expr.js';
import { Exprs, type Expr } from '../../src/exec/expr/expr.js';
import { createRunState } from '../../src/exec/run-state.js';
import { unwrapDateCastComparison } from '../../src/planner/rules/unwrap-date-cast-comparison.js';

const t = (kind: string): SqlType => ({ kind } as SqlType);

const lineitem: CatalogTable = {
  id: 16500, namespace: 'public', name: 'lineitem',
  columns: [
    { name: 'l_orderkey', type: t('int8'), nullable: false },
    { name: 'l_quantity', type: { kind: 'numeric', precision: 15, scale: 2 }, nullable: true },
    { name: 'l_shipdate', type: t('date'), nullable: true },
    { name: 'l_ts', type: t('timestamp'), nullable: true },
    { name: 'l_tstz', type: t('timestamptz'), nullable: true },
  ],
  primaryKey: ['l_orderkey'],
};

function env(): BindEnv {
  const base = stubEnv();
  return { ...base, warehouse: { getTable: (ns, name) => (ns === 'public' && name === 'lineitem' ? lineitem : base.warehouse.getTable(ns, name)) } };
}

function plan(sql: string, disabled: readonly string[] = []): string {
  const logical = bindLogicalQuery(parseStatements(sql)[0]!, env());
  return explainPlan(planStatement(logical, { disabledRules: new Set(disabled) })).join('\n');
}

test('TPC-H Q1: date - interval folds and the comparison moves onto the bare date column', () => {
  const text = plan("select l_orderkey from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day");
  // 1998-12-01 is day 10561; 90 days earlier, at midnight, is day 10471: the comparison is exact.
  assert.match(text, /Pushed Filters: l_shipdate <= 10471$/m);
  // The lake applies that comparison exactly: no residual re-tests it.
  assert.doesNotMatch(text, /^\s*Filter:/m);
  assert.doesNotMatch(text, /interval|::timestamp/);
  const off = plan("select l_orderkey from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day", ['fold-constants']);
  assert.doesNotMatch(off, /Pushed Filters/, 'without the rule nothing is pushed');
});

test('a constant inside a day rounds to the right date bound, on either side of the comparison', () => {
  // 1998-09-02 12:00 lies inside day 10471.
  const lt = plan("select l_orderkey from lineitem where l_shipdate < date '1998-09-02' + interval '12 hours'");
  assert.match(lt, /Pushed Filters: l_shipdate <= 10471$/m);
  const ge = plan("select l_orderkey from lineitem where l_shipdate >= date '1998-09-02' + interval '12 hours'");
  assert.match(ge, /Pushed Filters: l_shipdate > 10471$/m);
  const flipped = plan("select l_orderkey from lineitem where date '1998-09-02' + interval '12 hours' > l_shipdate");
  assert.match(flipped, /Pushed Filters: l_shipdate <= 10471$/m);
  const between = plan("select l_orderkey from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year");
  assert.match(between, /Pushed Filters: l_shipdate >= 8766, l_shipdate < 9131$/m);
});

test('equality with a constant inside a day is left as written', () => {
  const text = plan("select l_orderkey from lineitem where l_shipdate = date '1998-09-02' + interval '12 hours'");
  // 1998-09-02 12:00 = 904737600000000 µs.
  assert.match(text, /Filter: \(\(l_shipdate\)::timestamp without time zone = 904737600000000::timestamp without time zone\)$/m);
  assert.doesNotMatch(text, /Pushed Filters/);
});

test('timestamp columns compare with the folded timestamp directly', () => {
  const text = plan("select l_orderkey from lineitem where l_ts < timestamp '2000-01-01 00:00:00' - interval '1 day'");
  assert.match(text, /Pushed Filters: l_ts < 946598400000000$/m);
});

test('casts of constants fold; settings- and clock-dependent expressions do not', () => {
  assert.match(plan("select l_orderkey from lineitem where l_quantity > '1.5'::numeric + 1"), /Pushed Filters: l_quantity > '2\.5'$/m);
  // timestamptz arithmetic depends on the session time zone: not folded (the interval is).
  const tz = plan("select l_orderkey from lineitem where l_tstz < timestamptz '2000-01-01 00:00:00+00' - interval '1 day'");
  assert.match(tz, /Filter: \(l_tstz < \(946684800000000::timestamp with time zone - '1 day'::interval\)\)$/m);
  assert.doesNotMatch(tz, /Pushed Filters/);
  // 'today' reads the clock at execution.
  assert.match(plan("select l_orderkey from lineitem where l_shipdate < 'today'::date + 1"), /Filter: \(l_shipdate < \(\('today'\)::date \+ 1\)\)$/m);
  // Functions that read the clock are not volatile but still belong to the execution.
  assert.match(plan("select l_orderkey from lineitem where l_shipdate < current_date - 1"), /Filter: \(l_shipdate < \(current_date\(\) - 1\)\)$/m);
  assert.match(plan("select l_orderkey from lineitem where l_ts > localtimestamp - interval '1 day'"), /localtimestamp/);
  assert.match(plan("select l_orderkey from lineitem where l_ts > age(timestamp '2000-01-01') + timestamp '2000-01-01'"), /age\(/);
  // A constant that fails to evaluate stays, so the error happens at execution as before.
  assert.match(plan("select l_orderkey from lineitem where l_quantity > 1 / 0"), /Filter: \(l_quantity > \(\(1 \/ 0\)\)::numeric\)$/m);
});

test('the date rewrite gives the same answer as the timestamp comparison, for every operator and side', () => {
  const run = createRunState({});
  const D = { kind: 'date' } as const;
  const TS = { kind: 'timestamp' } as const;
  const day = 86_400_000_000n;
  const ops = ['=', '<>', '<', '<=', '>', '>='];
  // Dates as a column (index 0), NULL and ±infinity included; constants near day boundaries.
  const dates = fc.oneof(fc.integer({ min: -800_000, max: 800_000 }), fc.constantFrom(null, Infinity, -Infinity, 0, -1));
  const micros = fc.oneof(
    fc.bigInt({ min: -800_000n * day, max: 800_000n * day }),
    fc.tuple(fc.integer({ min: -800_000, max: 800_000 }), fc.constantFrom(0n, 1n, -1n, day / 2n)).map(([d, off]) => BigInt(d) * day + off),
  );
  let rewritten = 0;
  fc.assert(fc.property(fc.array(dates, { minLength: 1, maxLength: 20 }), micros, fc.constantFrom(...ops), fc.boolean(), (ds, t, op, dateLeft) => {
    const col: Expr = Exprs.column(0, D);
    const cast: Expr = { kind: 'cast', arg: col, type: TS };
    const lit = Exprs.literal(t, TS);
    const original: Expr = { kind: 'call', fn: `${op}(timestamp,timestamp)`, args: dateLeft ? [cast, lit] : [lit, cast], type: { kind: 'bool' } };
    const rewrite = unwrapDateCastComparison(original);
    if (!rewrite) return (op === '=' || op === '<>') && t % day !== 0n;
    rewritten++;
    assert.equal(rewrite.kind === 'call' && rewrite.args[0], col, 'the date column is bare');
    const batch = { numRows: ds.length, columns: [ds] };
    assert.deepEqual(compileExpr(rewrite).evaluateSync(batch, run), compileExpr(original).evaluateSync(batch, run));
    return true;
  }), { numRuns: 500 });
  assert.ok(rewritten > 100);
});
