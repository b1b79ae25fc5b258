import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlType } from '../../src/common/sql-type.js';
import type { Expr } from '../../src/exec/expr/expr.js';
import { resolveOperator } from '../../src/exec/functions/function-registry.js';
import type { PhysicalPlan } from '../../src/exec/plan/physical-plan.js';
import { cast, col, lit, rowsOf, t, values } from './exec-test-helpers.js';

const char10: SqlType = { kind: 'bpchar', length: 10 } as SqlType;
const eqFn = resolveOperator('=', char10, char10)!.id;
const inList = (arg: Expr, list: Expr[], negated = false): Expr => ({ kind: 'inList', arg, list, eqFn, negated, type: t.bool });
const c10 = (v: string | null): Expr => cast(lit(v, t.text), char10);

// A bpchar column with trailing blanks, a NULL, and values in and out of the list, over two batches' worth of rows.
const modes = ['AIR       ', 'MAIL', null, 'SHIP      ', 'AIR REG'];
const input = values([{ name: 'mode', type: char10 }], Array.from({ length: 10_000 }, (_, i) => [modes[i % modes.length]!]));

async function evalOver(e: Expr): Promise<unknown[]> {
  const plan: PhysicalPlan = { kind: 'project', input, exprs: [e], columns: [{ name: 'x', type: t.bool }] };
  return (await rowsOf(plan)).map((r) => r[0]);
}

const expectEach = (got: unknown[], per: readonly unknown[]) => {
  assert.equal(got.length, 10_000);
  got.forEach((v, i) => assert.equal(v, per[i % per.length], `row ${i} (${modes[i % modes.length]})`));
};

test('IN over constant casts (as the binder writes char literals) matches with blank-padding semantics', async () => {
  const list = [c10('AIR'), c10('AIR REG   ')];
  expectEach(await evalOver(inList(col(0, char10), list)), [true, false, null, false, true]);
  expectEach(await evalOver(inList(col(0, char10), list, true)), [false, true, null, true, false]);
});

test('IN with a NULL item: a miss is NULL, a hit is still true (NOT IN: a miss is NULL, a hit false)', async () => {
  const list = [c10('MAIL'), c10(null)];
  expectEach(await evalOver(inList(col(0, char10), list)), [null, true, null, null, null]);
  expectEach(await evalOver(inList(col(0, char10), list, true)), [null, false, null, null, null]);
});

test('an item that is not constant is compared row by row', async () => {
  const list = [col(0, char10), c10('SHIP')];
  expectEach(await evalOver(inList(c10('SHIP'), list)), [true, true, true, true, true]);
  expectEach(await evalOver(inList(c10('AIR'), list)), [true, false, null, false, false]);
});

test('character(n) = and <> ignore trailing blanks on both sides, NULL stays NULL', async () => {
  const eq = (a: Expr, b: Expr, op: '=' | '<>'): Expr => ({ kind: 'call', fn: resolveOperator(op, char10, char10)!.id, args: [a, b], type: t.bool });
  expectEach(await evalOver(eq(col(0, char10), c10('AIR'), '=')), [true, false, null, false, false]);
  expectEach(await evalOver(eq(col(0, char10), c10('AIR REG  '), '<>')), [true, true, null, true, false]);
  expectEach(await evalOver(eq(col(0, char10), col(0, char10), '=')), [true, true, null, true, true]);
  // A blank-only value equals the empty string's padding; a shorter prefix is not equal.
  expectEach(await evalOver(eq(c10('  '), c10(''), '=')), [true, true, true, true, true]);
  expectEach(await evalOver(eq(c10('AI'), col(0, char10), '=')), [false, false, null, false, false]);
});
