import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Table, tableFromIPC, tableToIPC, vectorFromArray, Dictionary, Utf8, Int32, RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { FloeError } from '../../../src/common/floe-error.js';
import { buildBatch, batchFromData } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { childrenOf, nodeContains, rootNode } from '../../../src/lake/bucket/bucket-node.js';
import { hashKey } from '../../../src/lake/bucket/key-hash.js';
import { mergeOnRead } from '../../../src/lake/merge/merge-on-read.js';
import type { ChangeInput } from '../../../src/lake/merge/merge-on-read.js';

const T = (kind: string, extra: object = {}) => ({ kind, ...extra }) as SqlType;
type Op = '+I' | '-U' | '+U' | '-D';

const tableCols = (keyType: SqlType): BatchColumn[] => [
  { name: 'k', type: keyType, fieldId: 1, nullable: false },
  { name: 'v', type: T('text'), fieldId: 2, nullable: true },
];
const baseBatch = (keyType: SqlType, rows: [unknown, string | null, bigint][]) =>
  buildBatch([...tableCols(keyType), { name: '_seq', type: T('int8'), fieldId: -1, nullable: false }],
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])]);
const changeBatch = (keyType: SqlType, rows: [Op, unknown, string | null][]) =>
  buildBatch([...tableCols(keyType), { name: '_op', type: T('text'), fieldId: -2, nullable: false }],
    [rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[0])]);

/** Output rows as sorted [key, v, seq] triples. */
function rowsOf(batches: RecordBatch[], keyType: SqlType): [unknown, unknown, bigint][] {
  const out: [unknown, unknown, bigint][] = [];
  for (const b of batches) {
    assert.deepEqual(b.schema.fields.map((f) => f.name), ['k', 'v', '_seq']);
    const k = columnReader(b.getChild('k')!, keyType);
    const v = columnReader(b.getChild('v')!, T('text'));
    const s = columnReader(b.getChild('_seq')!, T('int8'));
    for (let i = 0; i < b.numRows; i++) out.push([k.get(i), v.get(i), s.get(i) as bigint]);
  }
  return out.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
}

/** The rule, stated plainly: per key, max (seq, offset) change vs base _seq. */
function reference(base: [unknown, string | null, bigint][], changes: { rows: [Op, unknown, string | null][]; seq: bigint; firstOffset: number }[], keep: (k: unknown) => boolean) {
  const best = new Map<string, { seq: bigint; off: number; op: Op; k: unknown; v: string | null }>();
  for (const ch of changes) {
    ch.rows.forEach(([op, k, v], r) => {
      if (!keep(k)) return;
      const id = JSON.stringify(String(k));
      const cur = best.get(id);
      const off = ch.firstOffset + r;
      if (cur === undefined || ch.seq > cur.seq || (ch.seq === cur.seq && off >= cur.off)) best.set(id, { seq: ch.seq, off, op, k, v });
    });
  }
  const out: [unknown, unknown, bigint][] = [];
  const seen = new Set<string>();
  for (const [k, v, s] of base) {
    const id = JSON.stringify(String(k));
    seen.add(id);
    const c = best.get(id);
    if (c === undefined || s >= c.seq) out.push([k, v, s]);
    else if (c.op === '+I' || c.op === '+U') out.push([c.k, c.v, c.seq]);
  }
  for (const [id, c] of best) if (!seen.has(id) && (c.op === '+I' || c.op === '+U')) out.push([c.k, c.v, c.seq]);
  return out.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
}

test('start order: a transaction that began earlier and commits later does not overwrite a later-begun one', () => {
  const kt = T('int8');
  // B began at seq 7 and committed first; A began at seq 5 and committed later (its file listed last)
  const b: ChangeInput = { batch: changeBatch(kt, [['+I', 1n, 'from B']]), seq: 7n, firstOffset: 0 };
  const a: ChangeInput = { batch: changeBatch(kt, [['+I', 1n, 'from A'], ['+I', 2n, 'only A']]), seq: 5n, firstOffset: 0 };
  const before = mergeOnRead({ base: [], changes: [b, a], keyColumns: ['k'], keyTypes: [kt] });
  assert.deepEqual(rowsOf(before, kt), [[1n, 'from B', 7n], [2n, 'only A', 5n]]);
  // after optimize folded B into base (keeping _seq 7), A's change still loses to it
  const base = baseBatch(kt, [[1n, 'from B', 7n]]);
  const after = mergeOnRead({ base: [base], changes: [a], keyColumns: ['k'], keyTypes: [kt] });
  assert.deepEqual(rowsOf(after, kt), [[1n, 'from B', 7n], [2n, 'only A', 5n]]);
  // a base row with equal _seq also wins; a lower one loses
  assert.deepEqual(rowsOf(mergeOnRead({ base: [baseBatch(kt, [[1n, 'base', 5n]])], changes: [a], keyColumns: ['k'], keyTypes: [kt] }), kt)[0], [1n, 'base', 5n]);
  assert.deepEqual(rowsOf(mergeOnRead({ base: [baseBatch(kt, [[1n, 'base', 4n]])], changes: [a], keyColumns: ['k'], keyTypes: [kt] }), kt)[0], [1n, 'from A', 5n]);
});

test('offsets order rows within one transaction; -U/+U pairs and deletes', () => {
  const kt = T('text');
  const base = baseBatch(kt, [['a', 'a0', 1n], ['b', 'b0', 1n], ['c', 'c0', 1n]]);
  const t1: ChangeInput = { batch: changeBatch(kt, [['-U', 'a', 'a0'], ['+U', 'a', 'a1'], ['-D', 'b', null], ['+I', 'd', 'd1'], ['-D', 'd', null]]), seq: 3n, firstOffset: 0 };
  // a second file of the same transaction, later offsets
  const t1b: ChangeInput = { batch: changeBatch(kt, [['+I', 'b', 'b2'], ['-U', 'c', 'c0']]), seq: 3n, firstOffset: 5 };
  const out = mergeOnRead({ base: [base], changes: [t1b, t1], keyColumns: ['k'], keyTypes: [kt] });
  assert.deepEqual(rowsOf(out, kt), [['a', 'a1', 3n], ['b', 'b2', 3n]]);
});

test('rows a key filter kept carry their own offsets: a later file of the same transaction between them loses to the last', () => {
  const kt = T('int4');
  // The first file held key 1 at offsets 0 and 4 (the rows between, other keys, were filtered out);
  // a second file of the transaction, starting at offset 2, holds key 1 once more.
  const kept: ChangeInput = { batch: changeBatch(kt, [['+I', 1, 'at 0'], ['+U', 1, 'at 4']]), seq: 3n, firstOffset: 0, offsets: Int32Array.of(0, 4) };
  const middle: ChangeInput = { batch: changeBatch(kt, [['+U', 1, 'at 2']]), seq: 3n, firstOffset: 2 };
  assert.deepEqual(rowsOf(mergeOnRead({ base: [], changes: [kept, middle], keyColumns: ['k'], keyTypes: [kt] }), kt), [[1, 'at 4', 3n]]);
  // Without offsets the rows count from firstOffset: 'at 2' is then the last.
  const { offsets: _dropped, ...consecutive } = kept;
  assert.deepEqual(rowsOf(mergeOnRead({ base: [], changes: [consecutive, middle], keyColumns: ['k'], keyTypes: [kt] }), kt), [[1, 'at 2', 3n]]);
});

test('no changes passes base batches through untouched; an untouched base batch is reused', () => {
  const kt = T('int4');
  const b1 = baseBatch(kt, [[1, 'x', 1n], [2, 'y', 1n]]);
  const b2 = baseBatch(kt, [[3, 'z', 1n]]);
  const out = mergeOnRead({ base: [b1, b2], changes: [], keyColumns: ['k'], keyTypes: [kt] });
  assert.equal(out[0], b1);
  const out2 = mergeOnRead({ base: [b1, b2], changes: [{ batch: changeBatch(kt, [['-D', 3, null]]), seq: 2n, firstOffset: 0 }], keyColumns: ['k'], keyTypes: [kt] });
  assert.equal(out2.length, 1);
  assert.equal(out2[0], b1);
});

test('hash filters keep only change rows of the node (ancestor change files)', () => {
  const kt = T('int8');
  const [left] = childrenOf(rootNode());
  const rows: [Op, unknown, string | null][] = Array.from({ length: 40 }, (_, i) => ['+I', BigInt(i), `v${i}`]);
  const ch = { batch: changeBatch(kt, rows), seq: 1n, firstOffset: 0 };
  const inLeft = (k: unknown) => nodeContains(left, hashKey([kt], [k]));
  const expected = rows.filter((r) => inLeft(r[1])).map((r) => [r[1], r[2], 1n]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  assert.ok(expected.length > 0 && expected.length < 40);
  assert.deepEqual(rowsOf(mergeOnRead({ base: [], changes: [{ ...ch, hashFilter: left }], keyColumns: ['k'], keyTypes: [kt] }), kt), expected);
  assert.deepEqual(rowsOf(mergeOnRead({ base: [], changes: [ch], keyColumns: ['k'], keyTypes: [kt], hashFilter: { node: left } }), kt), expected);
});

test('dictionary-encoded _op and composite keys', () => {
  const kt = T('text');
  const keys = ['a', 'b', 'a'];
  const ops = vectorFromArray(['+I', '+I', '-D'], new Dictionary(new Utf8(), new Int32()));
  const plain = buildBatch(tableCols(kt), [keys, ['1', '2', null]]);
  const batch = batchFromData([...plain.schema.fields, ops.type && new (plain.schema.fields[0]!.constructor as never as typeof import('apache-arrow').Field)('_op', ops.type, false)], [...plain.data.children, ops.data[0]!], 3);
  const out = mergeOnRead({ base: [], changes: [{ batch, seq: 1n, firstOffset: 0 }], keyColumns: ['k'], keyTypes: [kt] });
  assert.deepEqual(rowsOf(out, kt), [['b', '2', 1n]]);

  const cols: BatchColumn[] = [
    { name: 'a', type: T('int4'), fieldId: 1, nullable: false }, { name: 'b', type: T('text'), fieldId: 2, nullable: false },
    { name: 'v', type: T('int4'), fieldId: 3, nullable: true },
  ];
  const cb = buildBatch([...cols, { name: '_op', type: T('text'), fieldId: -2, nullable: false }], [[1, 1, 2], ['x', 'y', 'x'], [10, 20, 30], ['+I', '+I', '+I']]);
  const cb2 = buildBatch([...cols, { name: '_op', type: T('text'), fieldId: -2, nullable: false }], [[1], ['x'], [11], ['+U']]);
  const res = mergeOnRead({ base: [], changes: [{ batch: cb, seq: 1n, firstOffset: 0 }, { batch: cb2, seq: 2n, firstOffset: 0 }], keyColumns: ['a', 'b'], keyTypes: [T('int4'), T('text')] });
  const got = res.flatMap((b) => { const a = columnReader(b.getChild('a')!, T('int4')); const bb = columnReader(b.getChild('b')!, T('text')); const v = columnReader(b.getChild('v')!, T('int4')); return Array.from({ length: b.numRows }, (_, i) => `${a.get(i)}/${bb.get(i)}=${v.get(i)}`); }).sort();
  assert.deepEqual(got, ['1/x=11', '1/y=20', '2/x=30']);
});

test('invalid _op is a data-corruption error', () => {
  const kt = T('int4');
  assert.throws(() => mergeOnRead({ base: [], changes: [{ batch: changeBatch(kt, [['?X' as Op, 1, null]]), seq: 1n, firstOffset: 0 }], keyColumns: ['k'], keyTypes: [kt] }).length,
    (e: unknown) => e instanceof FloeError);
});

test('merge matches the plainly-stated rule on random inputs (property), for long and byte keys', () => {
  for (const kt of [T('int8'), T('text')]) {
    const keyArb = kt.kind === 'int8' ? fc.bigInt({ min: 0n, max: 30n }) : fc.integer({ min: 0, max: 30 }).map((i) => `k${i}`);
    const arb = fc.record({
      base: fc.uniqueArray(fc.tuple(keyArb, fc.option(fc.string({ maxLength: 3 }), { nil: null }), fc.bigInt({ min: 0n, max: 8n })), { selector: (r) => String(r[0]), maxLength: 25 }),
      changes: fc.array(fc.record({
        rows: fc.array(fc.tuple(fc.constantFrom<Op>('+I', '-U', '+U', '-D'), keyArb, fc.option(fc.string({ maxLength: 3 }), { nil: null })), { maxLength: 15 }),
        seq: fc.bigInt({ min: 0n, max: 8n }),
        firstOffset: fc.integer({ min: 0, max: 40 }),
      }), { maxLength: 6 }),
      baseSplit: fc.integer({ min: 0, max: 25 }),
      filter: fc.boolean(),
    });
    fc.assert(fc.property(arb, ({ base, changes, baseSplit, filter }) => {
      // one transaction's files never overlap in offsets: make (seq, offset) unique per row
      const used = new Map<bigint, number>();
      const chs = changes.map((c) => {
        const start = Math.max(c.firstOffset, used.get(c.seq) ?? 0);
        used.set(c.seq, start + c.rows.length);
        return { ...c, firstOffset: start };
      });
      const node = childrenOf(rootNode())[1];
      const keep = (k: unknown) => !filter || nodeContains(node, hashKey([kt], [k]));
      const baseRows = base.filter((r) => keep(r[0]));
      const split = Math.min(baseSplit, baseRows.length);
      const baseBatches = [baseRows.slice(0, split), baseRows.slice(split)].filter((x) => x.length > 0).map((x) => baseBatch(kt, x));
      const out = mergeOnRead({
        base: baseBatches,
        changes: chs.map((c) => ({ batch: changeBatch(kt, c.rows), seq: c.seq, firstOffset: c.firstOffset })),
        keyColumns: ['k'], keyTypes: [kt], hashFilter: filter ? { node } : undefined,
      });
      assert.deepEqual(rowsOf(out, kt), reference(baseRows, chs, keep));
    }), { numRuns: 300 });
  }
});

test('base rows older than every change: merged without their _seq, the same rows as with it (property)', () => {
  const kt = T('int8');
  const keyArb = fc.bigInt({ min: 0n, max: 30n });
  const arb = fc.record({
    // Base rows' _seq below 5, every change's seq at 5 or above: the order a fold leaves.
    base: fc.uniqueArray(fc.tuple(keyArb, fc.option(fc.string({ maxLength: 3 }), { nil: null }), fc.bigInt({ min: 0n, max: 4n })), { selector: (r) => String(r[0]), maxLength: 25 }),
    changes: fc.array(fc.record({
      rows: fc.array(fc.tuple(fc.constantFrom<Op>('+I', '-U', '+U', '-D'), keyArb, fc.option(fc.string({ maxLength: 3 }), { nil: null })), { maxLength: 15 }),
      seq: fc.bigInt({ min: 5n, max: 9n }),
    }), { minLength: 1, maxLength: 6 }),
  });
  fc.assert(fc.property(arb, ({ base, changes }) => {
    const used = new Map<bigint, number>();
    const chs = changes.map((c) => {
      const firstOffset = used.get(c.seq) ?? 0;
      used.set(c.seq, firstOffset + c.rows.length);
      return { ...c, firstOffset };
    });
    const inputs = chs.map((c) => ({ batch: changeBatch(kt, c.rows), seq: c.seq, firstOffset: c.firstOffset }));
    // The base as a scan reads it then: table columns only.
    const bare = base.length === 0 ? [] : [buildBatch(tableCols(kt), [base.map((r) => r[0]), base.map((r) => r[1])])];
    const out = mergeOnRead({ base: bare, changes: inputs, keyColumns: ['k'], keyTypes: [kt], baseOlder: true });
    const rows: [unknown, unknown][] = [];
    for (const b of out) {
      assert.deepEqual(b.schema.fields.map((f) => f.name), ['k', 'v']);
      const k = columnReader(b.getChild('k')!, kt);
      const v = columnReader(b.getChild('v')!, T('text'));
      for (let i = 0; i < b.numRows; i++) rows.push([k.get(i), v.get(i)]);
    }
    rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
    assert.deepEqual(rows, reference(base, chs, () => true).map(([k, v]) => [k, v]));
  }), { numRuns: 300 });
});

test('merge output survives Arrow IPC (schemas and buffers are well-formed)', () => {
  const kt = T('int8');
  const base = baseBatch(kt, [[1n, 'a', 1n], [2n, null, 1n], [3n, 'c', 1n]]);
  const out = mergeOnRead({ base: [base], changes: [{ batch: changeBatch(kt, [['+U', 2n, 'b'], ['-D', 3n, null]]), seq: 2n, firstOffset: 0 }], keyColumns: ['k'], keyTypes: [kt] });
  const t = tableFromIPC(tableToIPC(new Table(out), 'stream'));
  assert.equal(t.numRows, 2);
  assert.deepEqual(rowsOf(t.batches, kt), [[1n, 'a', 1n], [2n, 'b', 2n]]);
});
