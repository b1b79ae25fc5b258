import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateRows } from '../../src/planner/estimate-rows.js';
import { optimizeLogicalPlan } from '../../src/planner/index.js';
import type { LogicalPlan } from '../../src/planner/logical/logical-plan.js';
import { bindLogicalQuery } from '../../src/sql/binder/bind-logical-query.js';
import { parseStatements } from '../../src/sql/index.js';
import { columnRanges } from '../../src/session/table-estimates.js';
import type { DataFileInfo } from '../../src/lake/index.js';
import { stubEnv } from '../sql/stub-env.js';

const ROWS = 1_000_000;

function scanOf(sql: string, ranges?: Record<string, readonly [number, number]>): LogicalPlan {
  const env = { ...stubEnv(), estimateRows: () => ROWS, ...(ranges === undefined ? {} : { columnRanges: () => ranges }) };
  let p = optimizeLogicalPlan(bindLogicalQuery(parseStatements(sql)[0]!, env)).plan;
  while (p.kind !== 'scan') p = (p as { input: LogicalPlan }).input;
  return p;
}

const close = (actual: number, expected: number, label: string): void => assert.ok(Math.abs(actual - expected) < 1e-6 * expected, `${label}: ${actual} vs ${expected}`);

test('range filters keep their share of the column\'s span by the table\'s statistics; without it a third per bound', () => {
  const span = { o_id: [0, 1000] as const, o_cust: [1, 51] as const };
  close(estimateRows(scanOf('select o_id from orders where o_id >= 100 and o_id < 300', span)), ROWS * 0.2, 'two bounds, one interval');
  close(estimateRows(scanOf('select o_id from orders where o_id > 900', span)), ROWS * 0.1, 'one bound');
  close(estimateRows(scanOf('select o_id from orders where o_id > 100 and o_id > 600 and o_id <= 2000', span)), ROWS * 0.4, 'the tighter bound counts, past the span nothing more');
  close(estimateRows(scanOf('select o_id from orders where o_id > 600 and o_id > 100 and o_id <= 2000', span)), ROWS * 0.4, 'the tighter bound counts, in either order');
  close(estimateRows(scanOf('select o_id from orders where o_cust >= 1', span)), ROWS, 'a bound at the minimum keeps all');
  close(estimateRows(scanOf('select o_id from orders where o_id > 900 and o_id < 100', span)), ROWS * 1e-4, 'an empty interval keeps the floor');
  close(estimateRows(scanOf('select o_id from orders where o_id > 900 and o_cust < 11', span)), ROWS * 0.1 * 0.2, 'columns multiply');
  close(estimateRows(scanOf('select o_id from orders where o_id >= 100 and o_id < 300')), ROWS / 9, 'no statistics');
  close(estimateRows(scanOf("select o_id from orders where o_note >= 'a' and o_id < 300", span)), ROWS * 0.3 / 3, 'a column without a span');
});

test('IN lists keep 10% a value up to a half; OR branches combine as independent events', () => {
  close(estimateRows(scanOf('select o_id from orders where o_cust in (1, 2, 3)')), ROWS * 0.3, 'IN of 3');
  close(estimateRows(scanOf('select o_id from orders where o_cust in (1, 2, 3, 4, 5, 6, 7, 8)')), ROWS * 0.5, 'IN of 8');
  // Each branch keeps 10% × 5% (equality and LIKE): together 1 − (1 − 0.005)².
  close(estimateRows(scanOf("select o_id from orders where (o_cust = 1 and o_note like '%a%') or (o_cust = 2 and o_note like '%b%')")), ROWS * (1 - 0.995 ** 2), 'OR of ANDs');
});

function file(rowCount: number, stats: DataFileInfo['columnStats']): DataFileInfo {
  return { fileId: 1, path: 'f', store: 'base', partitionKey: '', partitionValues: [], node: { mask: 0, index: 0 }, rowCount, sizeBytes: 1, seq: 0n, firstOffset: 0, addedIn: 1n, deletedRows: 0, columnStats: stats };
}

test('column spans come from every live file\'s statistics, as numbers; a file without them leaves the column out', () => {
  const columns = [
    { name: 'id', type: { kind: 'int8' } }, { name: 'price', type: { kind: 'numeric', precision: 15, scale: 2 } },
    { name: 'day', type: { kind: 'date' } }, { name: 'note', type: { kind: 'text' } }, { name: 'gone', type: { kind: 'int4' } },
  ] as const;
  const files = [
    file(10, { id: { min: 5n, max: 90n, nullCount: 0 }, price: { min: '-1.50', max: '20.00', nullCount: 0 }, day: { min: 8000, max: 9000, nullCount: 0 }, note: { min: 'a', max: 'z', nullCount: 0 }, gone: { min: 1, max: 2, nullCount: 0 } }),
    // All NULL in this file: no bound from it.
    file(4, { id: { min: 1n, max: 3n, nullCount: 0 }, price: { min: null, max: null, nullCount: 4 }, day: { min: 7000, max: 8500, nullCount: 0 }, note: { min: 'b', max: 'c', nullCount: 0 } }),
  ];
  assert.deepEqual(columnRanges(files, columns as never), { id: [1, 90], price: [-1.5, 20], day: [7000, 9000] });
  assert.deepEqual(columnRanges([], columns as never), {});
});
