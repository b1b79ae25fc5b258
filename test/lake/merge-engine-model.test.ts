/**
 * Model-based property test of the merge engines (issue 27 part 3): first-row,
 * partial-update (with a sequence group and remove-record-on-delete) and aggregation
 * (every function; and a table of retractable ones that takes UPDATEs), each against a
 * plain in-memory model. Random upserts, deletes, updates and overlapping transactions
 * committed out of begin order, on several branches, with optimize of every kind (node
 * splits forced by a tiny target size), change compaction and log tiering at random
 * points — and, in the second property, the self-optimizing scheduler folding in the
 * background. After every step each branch reads as the model says; at the end so does
 * every snapshot (time travel).
 *
 * The model keeps, per commit snapshot, every change row visible there with its
 * transaction's seq and offset, and folds a key's rows in (seq, offset) order with its
 * own reference implementation of each engine (not the lake's fold). An optimize
 * snapshot reads as the commit snapshot it descends from.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import { isFloeError } from '../../src/common/floe-error.js';
import type { SqlType } from '../../src/common/sql-type.js';
import { columnReader } from '../../src/lake/arrow/column-reader.js';
import { executeScanTask, openWarehouse, optimizingSettings } from '../../src/lake/index.js';
import type { LakeTransaction, PartitionField, SnapshotSelector, TableMetadata, Warehouse } from '../../src/lake/index.js';
import { OptimizingScheduler } from '../../src/service/optimizing/optimizing-scheduler.js';

type Value = unknown;
type Row = Value[];
type Op = '+' | '-U' | '-D';
interface Rec { readonly key: bigint; readonly seq: bigint; readonly offset: number; readonly op: Op; readonly row: readonly Value[] }

// ---------- the engines under test, and their reference folds ----------

interface EngineCase {
  readonly name: string;
  readonly columns: { name: string; type: SqlType }[];
  readonly properties: Record<string, string>;
  readonly rowArb: fc.Arbitrary<Row>;
  /** Whether the table takes UPDATE (-U/+U pairs). */
  readonly updates: boolean;
  /** The key's row after its records, in (seq, offset) order; undefined: no row. */
  fold(recs: readonly Rec[]): Row | undefined;
}

const small = fc.option(fc.integer({ min: -5, max: 9 }), { nil: null, freq: 4 });
const big = fc.option(fc.bigInt({ min: -50n, max: 50n }), { nil: null, freq: 4 });
const word = fc.option(fc.constantFrom('a', 'b', 'cc', 'ſ✓'), { nil: null, freq: 4 });
const flag = fc.option(fc.boolean(), { nil: null, freq: 4 });
const int4: SqlType = { kind: 'int4' };
const int8: SqlType = { kind: 'int8' };
const text: SqlType = { kind: 'text' };
const bool: SqlType = { kind: 'bool' };

const firstRow: EngineCase = {
  name: 'first-row',
  columns: [{ name: 'v', type: text }, { name: 'w', type: int4 }],
  properties: { 'merge-engine': 'first-row' },
  rowArb: fc.tuple(word, small),
  updates: false,
  fold(recs) {
    let s: Row | undefined;
    for (const r of recs) {
      if (r.op === '-D') s = undefined;
      else if (r.op === '+' && s === undefined) s = [...r.row];
    }
    return s;
  },
};

/** Columns a, b (non-NULL overwrites) and the group (g, c) ordered by g. */
const partialUpdate: EngineCase = {
  name: 'partial-update',
  columns: [{ name: 'a', type: int4 }, { name: 'b', type: text }, { name: 'g', type: int4 }, { name: 'c', type: text }],
  properties: { 'merge-engine': 'partial-update', 'fields.g.sequence-group': 'c', 'partial-update.remove-record-on-delete': 'true' },
  rowArb: fc.tuple(small, word, small, word),
  updates: true,
  fold(recs) {
    let s: Row | undefined;
    for (const r of recs) {
      if (r.op === '-D') { s = undefined; continue; }
      if (r.op === '-U') continue;
      s ??= [null, null, null, null];
      if (r.row[0] !== null) s[0] = r.row[0];
      if (r.row[1] !== null) s[1] = r.row[1];
      if (r.row[2] !== null && (s[2] === null || (r.row[2] as number) >= (s[2] as number))) { s[2] = r.row[2]; s[3] = r.row[3]; }
    }
    return s;
  },
};

const nn = (x: Value): boolean => x !== null;
const agg = (acc: Value, v: Value, f: (a: any, b: any) => Value): Value => (v === null ? acc : acc === null ? v : f(acc, v)); // eslint-disable-line @typescript-eslint/no-explicit-any

const aggregation: EngineCase = {
  name: 'aggregation',
  columns: [
    { name: 's', type: int8 }, { name: 'n', type: int8 }, { name: 'mx', type: int4 }, { name: 'mn', type: int4 },
    { name: 'lv', type: text }, { name: 'ln', type: text }, { name: 'fv', type: text }, { name: 'fn', type: text },
    { name: 'la', type: text }, { name: 'bo', type: bool }, { name: 'ba', type: bool },
  ],
  properties: {
    'merge-engine': 'aggregation', 'aggregation.remove-record-on-delete': 'true',
    'fields.s.aggregate-function': 'sum', 'fields.n.aggregate-function': 'count', 'fields.mx.aggregate-function': 'max',
    'fields.mn.aggregate-function': 'min', 'fields.lv.aggregate-function': 'last_value',
    // ln: no function given, so Paimon's default last_non_null_value
    'fields.fv.aggregate-function': 'first_value', 'fields.fn.aggregate-function': 'first_non_null_value',
    'fields.la.aggregate-function': 'listagg', 'fields.la.list-agg-delimiter': '|',
    'fields.bo.aggregate-function': 'bool_or', 'fields.ba.aggregate-function': 'bool_and',
  },
  rowArb: fc.tuple(big, big, small, small, word, word, word, word, word, flag, flag),
  updates: false,
  fold(recs) {
    let s: Row | undefined;
    for (const r of recs) {
      if (r.op === '-D') { s = undefined; continue; }
      const v = r.row;
      if (s === undefined) { s = [v[0], nn(v[1]) ? 1n : 0n, ...v.slice(2)]; continue; }
      s = [
        agg(s[0], v[0], (a: bigint, b: bigint) => a + b), (s[1] as bigint) + (nn(v[1]) ? 1n : 0n),
        agg(s[2], v[2], Math.max), agg(s[3], v[3], Math.min), v[4], v[5] ?? s[5], s[6], s[7] ?? v[7],
        agg(s[8], v[8], (a: string, b: string) => `${a}|${b}`), agg(s[9], v[9], (a, b) => a || b), agg(s[10], v[10], (a, b) => a && b),
      ];
    }
    return s;
  },
};

/** Only functions that take a value back, so UPDATE (-U/+U) is allowed. */
const aggregationRetract: EngineCase = {
  name: 'aggregation (retractable)',
  columns: [{ name: 's', type: int8 }, { name: 'n', type: int4 }, { name: 'lv', type: text }, { name: 'ln', type: text }],
  properties: {
    'merge-engine': 'aggregation', 'aggregation.remove-record-on-delete': 'true', 'fields.s.aggregate-function': 'sum',
    'fields.n.aggregate-function': 'count', 'fields.lv.aggregate-function': 'last_value', 'fields.ln.aggregate-function': 'last_non_null_value',
  },
  rowArb: fc.tuple(big, small, word, word),
  updates: true,
  fold(recs) {
    let s: Row | undefined;
    for (const r of recs) {
      const v = r.row;
      if (r.op === '-D') s = undefined;
      else if (r.op === '-U') {
        if (s !== undefined) s = [v[0] === null ? s[0] : ((s[0] as bigint | null) ?? 0n) - (v[0] as bigint), (s[1] as number) - (nn(v[1]) ? 1 : 0), null, null];
      } else if (s === undefined) s = [v[0], nn(v[1]) ? 1 : 0, v[2], v[3]];
      else s = [agg(s[0], v[0], (a: bigint, b: bigint) => a + b), (s[1] as number) + (nn(v[1]) ? 1 : 0), v[2], v[3] ?? s[3]];
    }
    return s;
  },
};

const ENGINES = [firstRow, partialUpdate, aggregation, aggregationRetract];

// ---------- operations ----------

const keyArb = fc.bigInt({ min: 0n, max: 9n });
const branchIx = fc.nat(2);

type Step =
  | { t: 'upsert'; branch: number; rows: [bigint, Row][] }
  | { t: 'delete'; branch: number; keys: bigint[] }
  | { t: 'update'; branch: number; rows: [bigint, Row][] }
  /** Transactions A then B, committed B then A (rows ordered by start seq, not commit order). */
  | { t: 'overlap'; branch: number; a: [bigint, Row][]; b: [bigint, Row][]; optimizeBetween: boolean }
  | { t: 'optimize'; branch: number; kind: 'minor' | 'major' | 'full' }
  | { t: 'compact'; branch: number }
  | { t: 'tier' }
  | { t: 'createBranch'; from: number };

function stepArb(e: EngineCase): fc.Arbitrary<Step> {
  const rows = fc.array(fc.tuple(keyArb, e.rowArb), { minLength: 1, maxLength: 8 });
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ t: fc.constant('upsert' as const), branch: branchIx, rows }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), branch: branchIx, keys: fc.array(keyArb, { minLength: 1, maxLength: 4 }) }) },
    { weight: e.updates ? 3 : 0, arbitrary: fc.record({ t: fc.constant('update' as const), branch: branchIx, rows }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('overlap' as const), branch: branchIx, a: rows, b: rows, optimizeBetween: fc.boolean() }) },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('optimize' as const), branch: branchIx, kind: fc.constantFrom('minor' as const, 'major' as const, 'full' as const) }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('compact' as const), branch: branchIx }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('tier' as const) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('createBranch' as const), from: fc.nat(30) }) },
  );
}

type LogMode = 'off' | 'on' | 'tiny';
const logOption = (mode: LogMode) => (mode === 'off' ? false : mode === 'tiny' ? { maxTransactionBytes: 300 } : {});

function scenarioArb(e: EngineCase) {
  return fc.record({
    targetFileSize: fc.constantFrom('1', undefined),
    partitioned: fc.boolean(),
    log: fc.constantFrom<LogMode>('off', 'on', 'tiny'),
    steps: fc.array(stepArb(e), { minLength: 1, maxLength: 18 }),
  });
}

const fmt = (x: unknown) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));

function contents(e: EngineCase, recs: readonly Rec[]): string[] {
  const byKey = new Map<bigint, Rec[]>();
  for (const r of recs) {
    let l = byKey.get(r.key);
    if (l === undefined) byKey.set(r.key, l = []);
    l.push(r);
  }
  const out: string[] = [];
  for (const [k, l] of byKey) {
    l.sort((x, y) => (x.seq < y.seq ? -1 : x.seq > y.seq ? 1 : x.offset - y.offset));
    const row = e.fold(l);
    if (row !== undefined) out.push(fmt([k, ...row]));
  }
  return out.sort();
}

async function readContents(wh: Warehouse, table: TableMetadata, e: EngineCase, at: SnapshotSelector): Promise<string[]> {
  const plan = await wh.planScan({ table, at, projection: ['k', ...e.columns.map((c) => c.name)] });
  const out: string[] = [];
  for (const task of plan.tasks) {
    for await (const b of executeScanTask(task)) {
      const k = columnReader(b.getChild('k')!, int8);
      const cols = e.columns.map((c) => columnReader(b.getChild(c.name)!, c.type));
      for (let i = 0; i < b.numRows; i++) out.push(fmt([k.get(i), ...cols.map((c) => c.get(i))]));
    }
  }
  return out.sort();
}

const coverage = { scenarios: 0, snapshotsChecked: 0, optimizes: 0, splits: 0, changeFilesCompacted: 0, backgroundOptimizes: 0, updates: 0, deletes: 0 };

async function runScenario(e: EngineCase, s: { targetFileSize: string | undefined; partitioned: boolean; log: LogMode; steps: Step[] }, background: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-engine-model-'));
  const wh = await openWarehouse({ path: dir, log: logOption(s.log) });
  const log: string[] = [];
  let scheduler: OptimizingScheduler | undefined;
  try {
    const partitionBy: PartitionField[] = s.partitioned ? [{ sourceColumn: 'k', transform: { kind: 'bucket', buckets: 2 }, name: 'k_bucket' }] : [];
    const table = await wh.createTable({
      namespace: 'public', name: 't', primaryKey: ['k'], partitionBy,
      columns: [{ name: 'k', type: int8, nullable: false }, ...e.columns.map((c) => ({ ...c, nullable: true }))],
      properties: {
        ...e.properties,
        ...(s.targetFileSize === undefined ? {} : { 'write.target-file-size': s.targetFileSize }),
        ...(background ? { 'self-optimizing.minor.trigger.file-count': '1', 'self-optimizing.minor.trigger.interval': '1ms' } : {}),
      },
    });
    if (background) {
      scheduler = new OptimizingScheduler({ warehouse: wh, tickMs: 5 });
      scheduler.start();
    }
    /** Commit snapshot → every change row visible there. Other snapshots (optimizes) read as their nearest commit ancestor. */
    const commits = new Map<bigint, Rec[]>();
    const branches = new Map<string, bigint | undefined>([['main', wh.resolveSnapshot(table)?.id]]);
    const recordsAt = (id: bigint | undefined): Rec[] => {
      const snaps = new Map(wh.listSnapshots(table).map((x) => [x.id, x]));
      for (let x = id; x !== undefined;) {
        const known = commits.get(x);
        if (known !== undefined) return known;
        const snap = snaps.get(x);
        assert.ok(snap !== undefined, `snapshot ${x} is retained`);
        assert.ok(snap.operation === 'optimize' || snap.operation === 'create', `snapshot ${x} that the model does not know is no write (${snap.operation})`);
        x = snap.parentId;
      }
      return [];
    };
    const branchAt = (i: number) => [...branches.keys()][i % branches.size]!;
    const head = (b: string) => wh.resolveSnapshot(table, { kind: 'ref', name: b })?.id;
    const cols = (rows: readonly [bigint, Row][]) => [rows.map((r) => r[0]), ...e.columns.map((_, c) => rows.map((r) => r[1][c] ?? null))];
    const commit = async (tx: LakeTransaction, branch: string, recs: Omit<Rec, 'seq'>[]) => {
      const snap = await tx.commit();
      assert.ok(snap !== undefined);
      commits.set(snap.id, [...recordsAt(snap.parentId), ...recs.map((r) => ({ ...r, seq: tx.seq }))]);
      branches.set(branch, snap.id);
    };
    const upserts = (rows: readonly [bigint, Row][]) => rows.map(([key, row], offset) => ({ key, row, offset, op: '+' as const }));
    const optimize = async (branch: string, opts: NonNullable<Parameters<Warehouse['optimize']>[1]>) => {
      try {
        const res = await wh.optimize(table, { ref: branch, ...opts });
        coverage.optimizes++;
        coverage.splits += res.nodesSplit;
        coverage.changeFilesCompacted += res.changeFilesCompacted;
      } catch (err) {
        // racing the background optimizer, an optimize may lose every retry on a node
        if (!(background && isFloeError(err) && err.sqlstate === '40001')) throw err;
      }
    };

    for (const step of s.steps) {
      log.push(fmt(step));
      switch (step.t) {
        case 'upsert': {
          const branch = branchAt(step.branch);
          const tx = await wh.begin();
          await tx.upsert(table, branch, cols(step.rows));
          await commit(tx, branch, upserts(step.rows));
          break;
        }
        case 'delete': {
          const branch = branchAt(step.branch);
          const tx = await wh.begin();
          await tx.deleteKeys(table, branch, [step.keys]);
          coverage.deletes++;
          await commit(tx, branch, step.keys.map((key, offset) => ({ key, row: e.columns.map(() => null), offset, op: '-D' as const })));
          break;
        }
        case 'update': {
          // UPDATE's before-images are the rows it read: the model's live rows
          const branch = branchAt(step.branch);
          const live = new Map(contents(e, recordsAt(head(branch))).map((x) => {
            const [k, ...row] = JSON.parse(x, (_k, v) => (typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v)) as [bigint, ...Row];
            return [k, row] as const;
          }));
          const rows = [...new Map(step.rows.filter(([k]) => live.has(k))).entries()];
          if (rows.length === 0) break;
          const tx = await wh.begin();
          await tx.update(table, branch, cols(rows.map(([k]) => [k, live.get(k)!])), cols(rows));
          coverage.updates++;
          await commit(tx, branch, rows.flatMap(([key, row], i) => [
            { key, row: live.get(key)!, offset: 2 * i, op: '-U' as const }, { key, row, offset: 2 * i + 1, op: '+' as const },
          ]));
          break;
        }
        case 'overlap': {
          const branch = branchAt(step.branch);
          const a = await wh.begin();
          const b = await wh.begin();
          await a.upsert(table, branch, cols(step.a));
          await b.upsert(table, branch, cols(step.b));
          await commit(b, branch, upserts(step.b));
          if (step.optimizeBetween) await optimize(branch, { kind: 'major' });
          await commit(a, branch, upserts(step.a));
          break;
        }
        case 'optimize':
          await optimize(branchAt(step.branch), { kind: step.kind });
          break;
        case 'compact': {
          // every node with a base compacts its change files in place (the scheduler's minor on big nodes)
          const triggers = { ...optimizingSettings(wh.getTable('public', 't')!), targetSize: 1e12, fragmentRatio: 1e12, minorFileCount: 1, readAmplificationMax: 1e9 };
          await optimize(branchAt(step.branch), { kind: 'minor', triggers });
          break;
        }
        case 'tier':
          await wh.tierLogFiles(table);
          break;
        case 'createBranch': {
          const from = head('main');
          if (from === undefined) break;
          const name = `b${branches.size}`;
          await wh.createBranch(table, name, { fromSnapshot: from });
          branches.set(name, from);
          break;
        }
      }
      for (const name of branches.keys()) {
        const at = head(name);
        assert.deepEqual(await readContents(wh, table, e, { kind: 'ref', name }), contents(e, recordsAt(at)), `branch ${name} after ${log.at(-1)}`);
      }
    }
    await scheduler?.stop();
    scheduler = undefined;
    for (const snap of wh.listSnapshots(table)) {
      if (snap.operation === 'optimize' && background) coverage.backgroundOptimizes++;
      assert.deepEqual(await readContents(wh, table, e, { kind: 'snapshot', id: snap.id }), contents(e, recordsAt(snap.id)), `snapshot ${snap.id} (${snap.operation})`);
      coverage.snapshotsChecked++;
    }
    coverage.scenarios++;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n  engine ${e.name}: targetFileSize=${s.targetFileSize} partitioned=${s.partitioned} log=${s.log}\n  steps:\n    ${log.join('\n    ')}`, { cause: err });
  } finally {
    await scheduler?.stop().catch(() => undefined);
    await wh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function checkEngine(t: TestContext, e: EngineCase, background: boolean): Promise<void> {
  const out = await fc.check(fc.asyncProperty(scenarioArb(e), (s) => runScenario(e, s, background)), {
    numRuns: Number(process.env['FLOE_MODEL_RUNS'] ?? 60),
    interruptAfterTimeLimit: Number(process.env['FLOE_MODEL_SECONDS'] ?? 12) * 1000,
    markInterruptAsFailure: false,
    ...(process.env['FLOE_MODEL_SEED'] === undefined ? {} : { seed: Number(process.env['FLOE_MODEL_SEED']), path: process.env['FLOE_MODEL_PATH'] }),
  });
  t.diagnostic(JSON.stringify(coverage));
  if (out.failed) {
    const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
    assert.fail(`${fc.defaultReportMessage(out) ?? 'property failed'}\n${cause}`);
  }
}

const TIMEOUT = 120_000 + Number(process.env['FLOE_MODEL_SECONDS'] ?? 0) * 2000;

for (const e of ENGINES) {
  test(`merge-engine ${e.name}: every branch and snapshot reads as the model, through folds, compaction and tiering`, { timeout: TIMEOUT }, async (t) => {
    const before = { ...coverage };
    await checkEngine(t, e, false);
    assert.ok(coverage.snapshotsChecked > before.snapshotsChecked && coverage.optimizes > before.optimizes, 'scenarios read snapshots and optimized');
    if (e.updates) assert.ok(coverage.updates > before.updates, 'updates ran');
  });
  test(`merge-engine ${e.name}: the same with the background optimizer racing the writers`, { timeout: TIMEOUT }, async (t) => {
    const before = coverage.backgroundOptimizes;
    await checkEngine(t, e, true);
    assert.ok(coverage.backgroundOptimizes > before, 'the background optimizer committed between the writers');
  });
}
