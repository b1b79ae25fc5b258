import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordBatch } from 'apache-arrow';
import type { SqlType } from '../../../src/common/sql-type.js';
import { isFloeError } from '../../../src/common/floe-error.js';
import { buildBatch } from '../../../src/lake/arrow/batch-builder.js';
import type { BatchColumn } from '../../../src/lake/arrow/batch-builder.js';
import { columnReader } from '../../../src/lake/arrow/column-reader.js';
import { childrenOf, rootNode } from '../../../src/lake/bucket/bucket-node.js';
import { mergeOnRead } from '../../../src/lake/merge/merge-on-read.js';
import type { ChangeInput } from '../../../src/lake/merge/merge-on-read.js';
import { checkMergeEngineWrite, mergeEngineOf, resolveMergeEngine } from '../../../src/lake/merge/merge-engine.js';
import type { MergeEngineSpec } from '../../../src/lake/merge/merge-engine.js';

/*
 * The merge engines' merge (merge-with-engine.ts) on hand-made batches: which rows it
 * folds (only changes newer than the base row, only the node's keys), in which order
 * (seq, then offset, per-row seqs of tiered files), what it passes through untouched,
 * and the engine properties' checks.
 */

const int4: SqlType = { kind: 'int4' };
const int8: SqlType = { kind: 'int8' };
const text: SqlType = { kind: 'text' };
const num: SqlType = { kind: 'numeric', precision: 12, scale: 2 };
type Op = '+I' | '-U' | '+U' | '-D';

const cols = (types: readonly SqlType[]): BatchColumn[] => [
  { name: 'k', type: int8, fieldId: 1, nullable: false },
  ...types.map((type, i) => ({ name: `c${i + 2}`, type, fieldId: i + 2, nullable: true })),
];
const base = (types: SqlType[], rows: [bigint, ...unknown[]][]): RecordBatch => {
  const c = [...cols(types), { name: '_seq', type: int8, fieldId: -1, nullable: false }];
  return buildBatch(c, c.map((_, i) => rows.map((r) => r[i] ?? null)));
};
const change = (types: SqlType[], rows: [Op, bigint, ...unknown[]][]): RecordBatch => {
  const c = [...cols(types), { name: '_op', type: text, fieldId: -2, nullable: false }];
  return buildBatch(c, c.map((_, i) => rows.map((r) => (i === c.length - 1 ? r[0] : r[i + 1] ?? null))));
};
function rowsOf(batches: RecordBatch[], types: SqlType[]): unknown[][] {
  const out: unknown[][] = [];
  for (const b of batches) {
    const rs = [...cols(types), { name: '_seq', type: int8 }].map((c) => columnReader(b.getChild(c.name)!, c.type));
    for (let i = 0; i < b.numRows; i++) out.push(rs.map((r) => r.get(i)));
  }
  return out.sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
}
const merge = (engine: MergeEngineSpec, types: SqlType[], b: RecordBatch[], changes: ChangeInput[], node?: ReturnType<typeof rootNode>) =>
  rowsOf(mergeOnRead({ base: b, changes, keyColumns: ['k'], keyTypes: [int8], engine, ...(node === undefined ? {} : { hashFilter: { node } }) }), types);

test('partial-update folds only changes newer than the base row, in (seq, offset) order, and passes other keys through', () => {
  const types = [int4, text];
  const engine: MergeEngineSpec = { kind: 'partial-update', groups: [], removeRecordOnDelete: true, types: { k: int8, c2: int4, c3: text } };
  const b = base(types, [[1n, 1, 'one', 5n], [2n, 2, 'two', 5n], [3n, 3, null, 5n]]);
  const changes: ChangeInput[] = [
    // seq 9 offsets 0..: a later offset wins over an earlier one of the same seq
    { batch: change(types, [['+I', 1n, null, 'x'], ['+I', 1n, 10, null], ['-D', 3n]]), seq: 9n, firstOffset: 0 },
    // seq 4 is at or below the base rows' _seq: already folded into them, skipped
    { batch: change(types, [['+I', 2n, 99, 'old']]), seq: 4n, firstOffset: 0 },
    // seq 7 comes before seq 9 whatever the input order
    { batch: change(types, [['+I', 1n, 7, 'seven'], ['+I', 4n, null, 'new']]), seq: 7n, firstOffset: 0 },
  ];
  assert.deepEqual(merge(engine, types, [b], changes), [
    [1n, 10, 'x', 9n], [2n, 2, 'two', 5n], [4n, null, 'new', 7n],
  ]);
});

test('tiered inputs order rows by their own seqs; a hash filter keeps only the node\'s keys', () => {
  const types = [text];
  const engine: MergeEngineSpec = { kind: 'first-row', types: { k: int8, c2: text } };
  const rows: [Op, bigint, ...unknown[]][] = [];
  for (let k = 0n; k < 32n; k++) rows.push(['+I', k, `late${k}`]);
  for (let k = 0n; k < 32n; k++) rows.push(['+I', k, `early${k}`]);
  const seqs = new BigInt64Array(64);
  seqs.fill(20n, 0, 32);
  seqs.fill(10n, 32, 64);
  const whole = merge(engine, types, [], [{ batch: change(types, rows), seq: 20n, firstOffset: 0, seqs }]);
  assert.equal(whole.length, 32);
  for (const r of whole) assert.equal(r[1], `early${r[0] as bigint}`, 'the row of the smaller seq is first');
  const [left] = childrenOf(rootNode());
  const half = merge(engine, types, [], [{ batch: change(types, rows), seq: 20n, firstOffset: 0, seqs }], left);
  assert.ok(half.length > 0 && half.length < 32, `the node holds some keys (${half.length})`);
});

test('aggregation: numeric sums are exact, integer sums past the type are 22003', () => {
  const types = [num, int4];
  const resolved = resolveMergeEngine({
    columns: [{ name: 'k', type: int8, fieldId: 1 }, { name: 'amount', type: num, fieldId: 2 }, { name: 'n', type: int4, fieldId: 3 }],
    primaryKey: ['k'],
    properties: { 'merge-engine': 'aggregation', 'fields.amount.aggregate-function': 'sum', 'fields.n.aggregate-function': 'sum' },
  })!;
  // the batches here name the key "k", not by its field id
  const spec: MergeEngineSpec = { ...resolved, types: { ...resolved.types, k: int8 } };
  const changes: ChangeInput[] = [{ batch: change(types, [['+I', 1n, '0.10', 1], ['+I', 1n, '0.20', 2], ['-U', 1n, '0.05', 1]]), seq: 3n, firstOffset: 0 }];
  assert.deepEqual(merge(spec, types, [], changes), [[1n, '0.25', 2, 3n]]);
  const over: ChangeInput[] = [{ batch: change(types, [['+I', 1n, null, 2147483647], ['+I', 1n, null, 1]]), seq: 3n, firstOffset: 0 }];
  assert.throws(() => merge(spec, types, [], over), (e: unknown) => isFloeError(e) && e.sqlstate === '22003');
});

test('engine properties are checked against the columns, and each engine refuses the writes it cannot take', () => {
  const columns = [{ name: 'k', type: int8 }, { name: 'g', type: int4 }, { name: 'a', type: text }, { name: 'b', type: { kind: 'interval' } as SqlType }];
  const of = (properties: Record<string, string>) => mergeEngineOf({ columns, primaryKey: ['k'], properties });
  const code = (f: () => unknown) => { try { f(); return 'ok'; } catch (e) { return isFloeError(e) ? e.sqlstate : String(e); } };
  assert.deepEqual(of({}), { kind: 'deduplicate' });
  assert.deepEqual(of({ 'merge-engine': 'partial-update', 'fields.g.sequence-group': 'a' }), {
    kind: 'partial-update', groups: [{ sequenceColumns: ['g'], columns: ['a'] }], removeRecordOnDelete: false,
  });
  assert.equal(code(() => of({ 'merge-engine': 'partial-update', 'fields.b.sequence-group': 'a' })), '22023', 'an interval has no order');
  assert.equal(code(() => of({ 'merge-engine': 'partial-update', 'fields.g.sequence-group': 'a', 'fields.a.sequence-group': 'b' })), '22023', 'a in two groups');
  assert.equal(code(() => of({ 'merge-engine': 'aggregation', 'fields.a.aggregate-function': 'bool_or' })), '42804');
  assert.equal(code(() => of({ 'merge-engine': 'aggregation', 'fields.a.list-agg-delimiter': ';' })), '22023', 'a delimiter needs listagg');
  assert.equal(code(() => mergeEngineOf({ columns, properties: { 'merge-engine': 'first-row' } })), '22023', 'no key');
  const agg = of({ 'merge-engine': 'aggregation', 'fields.g.aggregate-function': 'sum' });
  assert.deepEqual(agg.kind === 'aggregation' ? agg.functions : undefined, { g: 'sum', a: 'last_non_null_value', b: 'last_non_null_value' });

  const table = (properties: Record<string, string>) => ({ name: 't', columns, primaryKey: ['k'], properties });
  const refused = (properties: Record<string, string>, write: 'update' | 'delete' | 'moveKey') => code(() => checkMergeEngineWrite(table(properties), write));
  assert.equal(refused({ 'merge-engine': 'first-row' }, 'update'), '0A000');
  assert.equal(refused({ 'merge-engine': 'first-row' }, 'delete'), 'ok');
  assert.equal(refused({ 'merge-engine': 'partial-update' }, 'delete'), '0A000');
  assert.equal(refused({ 'merge-engine': 'partial-update', 'partial-update.remove-record-on-delete': 'true' }, 'delete'), 'ok');
  assert.equal(refused({ 'merge-engine': 'partial-update' }, 'update'), 'ok');
  assert.equal(refused({ 'merge-engine': 'partial-update' }, 'moveKey'), '0A000');
  assert.equal(refused({ 'merge-engine': 'aggregation', 'fields.g.aggregate-function': 'sum' }, 'update'), 'ok');
  assert.equal(refused({ 'merge-engine': 'aggregation', 'fields.g.aggregate-function': 'max' }, 'update'), '0A000');
  assert.equal(refused({ 'merge-engine': 'aggregation' }, 'delete'), '0A000');
  assert.equal(refused({}, 'moveKey'), 'ok');
});
