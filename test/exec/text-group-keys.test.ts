import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Int32, Utf8, vectorFromArray } from 'apache-arrow';
import type { SqlType } from '../../src/common/sql-type.js';
import { lazyBatch } from '../../src/exec/arrow/columnar-batch.js';
import { arrowColumn, decodeColumn, valuesColumn } from '../../src/exec/arrow/column-source.js';
import type { ColumnSource } from '../../src/exec/arrow/column-source.js';
import type { Expr } from '../../src/exec/index.js';
import { AggregateTable } from '../../src/exec/aggregate/aggregate-table.js';
import { compileAggregation } from '../../src/exec/aggregate/compile-aggregation.js';
import type { AggregateSpec } from '../../src/exec/aggregate/compile-aggregation.js';
import { TextKeyIds } from '../../src/exec/aggregate/text-key-ids.js';
import { createRunState } from '../../src/exec/run-state.js';
import { aggId, col, t } from './exec-test-helpers.js';

/*
 * Text GROUP BY keys read as Arrow bytes (TextKeyIds), and int4 keys read from
 * their Int32Array, against the same keys decoded into values: the same groups, counts and key values, for text and
 * bpchar (trailing blanks do not count), NULLs, multi-byte text, row
 * selections, many distinct values (the id table grows), and tables that get
 * both byte-level batches and decoded ones (a merged partial, a decoded batch).
 */

const run = createRunState({ params: [], settings: new Map(), transactionStartMicros: 0n });
const BPCHAR = { kind: 'bpchar', length: 4 } as SqlType;

type Row = [string | null, string | null, number | null];
/** Input columns: 0 text, 1 bpchar, 2 int4. */
const TYPES: SqlType[] = [t.text, BPCHAR, t.int4];

const textArb = fc.oneof(
  fc.constantFrom('', 'a', 'b', 'é', 'ab', 'a b', 'N', 'R', 'A'),
  fc.integer({ min: 0, max: 400 }).map((i) => `value ${i} ${'x'.repeat(i % 40)}`),
  fc.constant(null),
);
// bpchar values with and without their padding: 'a', 'a ' and 'a   ' are one value.
const bpcharArb = fc.oneof(fc.constantFrom('a', 'a ', 'a   ', 'b', 'b  ', '', ' a', 'ñ', 'ñ '), fc.constant(null));
const rowArb: fc.Arbitrary<Row> = fc.tuple(textArb, bpcharArb, fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(null)));

interface BatchSpec { readonly rows: Row[]; readonly selection: number[] | undefined }
// Half the batches have no NULL ints: their int4 column is then read from its Int32Array.
const batchArb: fc.Arbitrary<BatchSpec> = fc.tuple(fc.array(rowArb, { minLength: 1, maxLength: 300 }), fc.boolean()).map(
  ([rows, nullFree]) => (nullFree ? rows.map((r): Row => [r[0], r[1], r[2] ?? 0]) : rows),
).chain((rows) => fc.record({
  rows: fc.constant(rows),
  selection: fc.option(fc.uniqueArray(fc.nat(rows.length - 1), { minLength: 1, maxLength: rows.length }).map((s) => s.sort((a, b) => a - b)), { nil: undefined }),
}));

function selected(b: BatchSpec): Row[] {
  return b.selection ? b.selection.map((i) => b.rows[i]!) : b.rows;
}

/** The columns as Arrow data (UTF-8, Int32), standing for `selection`'s rows of the data when given. */
function arrowBatch(b: BatchSpec) {
  const rows = selected(b);
  const sources: ColumnSource[] = TYPES.map((type, ci) => {
    const data = ci === 2 ? vectorFromArray(b.rows.map((r) => r[2]), new Int32()).data[0]! : vectorFromArray(b.rows.map((r) => r[ci]), new Utf8()).data[0]!;
    return arrowColumn(data, type, b.selection ? Int32Array.from(b.selection) : undefined);
  });
  return lazyBatch(rows.length, sources);
}

function valueBatch(b: BatchSpec) {
  const rows = selected(b);
  return lazyBatch(rows.length, TYPES.map((_, ci) => valuesColumn(rows.map((r) => r[ci]))));
}

const count = aggId('count');
const spec = (keys: number[]): AggregateSpec => ({
  groupBy: keys.map((k): Expr => col(k, TYPES[k]!)),
  aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }],
});

/** Finished rows, sorted; a bpchar key's value is compared without its padding (which row's spelling a group keeps is not defined). */
function rowsOf(table: AggregateTable, keys: number[]): string[] {
  const finished = table.finish(false);
  const columns = finished.columns.map(decodeColumn);
  const out: string[] = [];
  for (let r = 0; r < finished.numRows; r++) {
    out.push(JSON.stringify(columns.map((c, i) => {
      const v = c[r];
      return i < keys.length && TYPES[keys[i]!]!.kind === 'bpchar' && typeof v === 'string' ? v.replace(/ +$/, '') : typeof v === 'bigint' ? Number(v) : v;
    })));
  }
  return out.sort();
}

const SPECS = [[0], [1], [0, 2], [2, 1], [1, 0, 2], [0, 1]];

test('text and bpchar GROUP BY keys read as bytes group exactly as their decoded values do', async () => {
  await fc.assert(fc.asyncProperty(fc.array(batchArb, { minLength: 1, maxLength: 4 }), async (batches) => {
    for (const keys of SPECS) {
      const s = compileAggregation(spec(keys));
      const bytes = new AggregateTable(s);
      const values = new AggregateTable(s);
      for (const b of batches) {
        await bytes.sink(arrowBatch(b), run);
        await values.sink(valueBatch(b), run);
      }
      assert.deepEqual(rowsOf(bytes, keys), rowsOf(values, keys), `keys ${keys}`);
    }
  }), { numRuns: 60 });
});

test('a table fed bytes and values alike keeps one group per key: decoded batches and merged partials meet the byte-level groups', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.tuple(batchArb, fc.nat(2)), { minLength: 2, maxLength: 5 }), async (batches) => {
    for (const keys of SPECS) {
      const s = compileAggregation(spec(keys));
      const mixed = new AggregateTable(s);
      const other = new AggregateTable(s);
      const oracle = new AggregateTable(s);
      for (const [b, how] of batches) {
        // 0: bytes into the table; 1: decoded values into it; 2: bytes into another table, merged at the end.
        if (how === 0) await mixed.sink(arrowBatch(b), run);
        else if (how === 1) await mixed.sink(valueBatch(b), run);
        else await other.sink(arrowBatch(b), run);
        await oracle.sink(valueBatch(b), run);
      }
      mixed.merge(structuredClone(other.partial()));
      assert.deepEqual(rowsOf(mixed, keys), rowsOf(oracle, keys), `keys ${keys}`);
    }
  }), { numRuns: 40 });
});

test('TextKeyIds: one id per distinct value across batches and table growth, bpchar blanks trimmed, NULL its own id', () => {
  const ids = new TextKeyIds({ trimBlanks: false });
  const words = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? null : `w${i % 1000}`));
  const first = ids.idsOf(vectorFromArray(words, new Utf8()).data[0]!, undefined);
  const again = ids.idsOf(vectorFromArray([...words].reverse(), new Utf8()).data[0]!, undefined);
  assert.equal(ids.size, new Set(words).size); // NULL counts once
  for (let i = 0; i < words.length; i++) {
    assert.equal(ids.values[first[i]!], words[i]);
    assert.equal(again[words.length - 1 - i], first[i]);
  }
  const padded = new TextKeyIds({ trimBlanks: true });
  const got = padded.idsOf(vectorFromArray(['ab', 'ab  ', null, 'a b', 'ab ', null, ''], new Utf8()).data[0]!, Int32Array.from([0, 1, 2, 3, 4, 5, 6, 1]));
  assert.deepEqual([...got], [0, 0, 1, 2, 0, 1, 3, 0]);
  assert.deepEqual(padded.values, ['ab', null, 'a b', '']);
  // Empty and one-byte values (their own slots), NUL included.
  const flags = new TextKeyIds({ trimBlanks: false });
  assert.deepEqual([...flags.idsOf(vectorFromArray(['', 'a', '\u0000', 'b', '', 'a', '\u0000'], new Utf8()).data[0]!, undefined)], [0, 1, 2, 3, 0, 1, 2]);
  // These two share their 32-bit hash (found by search): only the byte comparison tells them apart.
  const collide = new TextKeyIds({ trimBlanks: false });
  assert.deepEqual([...collide.idsOf(vectorFromArray(['key0290478', 'key1078642', 'key0290478'], new Utf8()).data[0]!, undefined)], [0, 1, 0]);
});

test('text keys selecting rows of a small shared data (a join\'s build side) group as their values do, batch after batch', async () => {
  const small = ['N1', 'N2', null, 'a b  ', 'a b', 'N1', ''];
  const other = ['N2', 'zz', null];
  const data = (values: (string | null)[]) => vectorFromArray(values, new Utf8()).data[0]!;
  const shared = data(small);
  const own = data(other);
  await fc.assert(fc.asyncProperty(
    fc.array(fc.tuple(fc.boolean(), fc.array(fc.nat(20), { minLength: 1, maxLength: 60 })), { minLength: 1, maxLength: 5 }),
    fc.constantFrom(t.text, BPCHAR),
    async (batches, type) => {
      const s = compileAggregation({ groupBy: [col(0, type)], aggregates: [{ fn: count.id, args: [], distinct: false, type: count.type }] });
      const bytes = new AggregateTable(s);
      const values = new AggregateTable(s);
      for (const [fromShared, picks] of batches) {
        const base = fromShared ? small : other;
        const rows = Int32Array.from(picks, (p) => p % base.length);
        await bytes.sink(lazyBatch(rows.length, [arrowColumn(fromShared ? shared : own, type, rows)]), run);
        await values.sink(lazyBatch(rows.length, [valuesColumn(Array.from(rows, (r) => base[r]))]), run);
      }
      const norm = (tab: AggregateTable) => {
        const f = tab.finish(false);
        const cols = f.columns.map(decodeColumn);
        return Array.from({ length: f.numRows }, (_, r) => JSON.stringify([typeof cols[0]![r] === 'string' && type === BPCHAR ? (cols[0]![r] as string).replace(/ +$/, '') : cols[0]![r], Number(cols[1]![r])])).sort();
      };
      assert.deepEqual(norm(bytes), norm(values));
    },
  ), { numRuns: 60 });
});
