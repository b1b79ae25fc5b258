import type { RecordBatch } from 'apache-arrow';
import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { jsonbNormalize, vectorToValues } from '../../exec/index.js';
import type { Snapshot, TableMetadata, Warehouse } from '../../lake/index.js';
import type { VirtualColumn, VirtualTable } from '../binder/virtual-table.js';

/**
 * Lakehouse system tables (`t$snapshots`, `t$files`, `t$refs`, `t$branches`,
 * `t$tags`, `t$buckets`, `t$audit_log`) and `table_changes('t', from, to)`.
 *
 * They are computed on demand from the name (`<table>$<kind>`) rather than
 * registered, because there is one set per table and tables come and go. That
 * also keeps them out of pg_class and information_schema on purpose: psql's \dt
 * and BI tools' table lists show only real tables.
 */
export const LAKE_SYSTEM_TABLE_KINDS = ['snapshots', 'files', 'refs', 'branches', 'tags', 'buckets', 'audit_log'] as const;
export type LakeSystemTableKind = (typeof LAKE_SYSTEM_TABLE_KINDS)[number];

/** The registry name table_changes resolves to: `<table>$table_changes:<from>:<to>` (from empty: since the first snapshot). */
export function tableChangesName(table: string, from: bigint | undefined, to: bigint | undefined): string {
  return `${table}$table_changes:${from ?? ''}:${to ?? ''}`;
}

/** The registry name of table_changes whose snapshots are parameters: the scan hands them over as its two arguments. */
export function tableChangesByArgumentsName(table: string): string {
  return `${table}$table_changes:args`;
}

const int8: SqlType = { kind: 'int8' };
const int4: SqlType = { kind: 'int4' };
const text: SqlType = { kind: 'text' };
const bool: SqlType = { kind: 'bool' };
const jsonb: SqlType = { kind: 'jsonb' };
const timestamptz: SqlType = { kind: 'timestamptz' };

const col = (name: string, type: SqlType): VirtualColumn => ({ name, type });
/** A table column in change rows; Floe's hidden ones (a materialized view's key and state) stay out of `*`, as on the table. */
const changeColumn = (c: TableMetadata['columns'][number]): VirtualColumn => (c.hidden === true ? { name: c.name, type: c.type, system: true } : col(c.name, c.type));

const fixedColumns: Readonly<Record<Exclude<LakeSystemTableKind, 'audit_log'>, readonly VirtualColumn[]>> = {
  snapshots: [
    col('snapshot_id', int8), col('parent_id', int8), col('committed_at', timestamptz), col('operation', text),
    col('summary', jsonb), col('seq', int8), col('branch', text),
  ],
  files: [
    col('store', text), col('file_path', text), col('partition', jsonb), col('bucket_node', text), col('node_mask', int8),
    col('node_index', int8), col('record_count', int8), col('deleted_record_count', int8), col('file_size_in_bytes', int8),
    col('lower_bounds', jsonb), col('upper_bounds', jsonb), col('null_value_counts', jsonb), col('seq', int8),
    col('added_snapshot_id', int8),
  ],
  refs: [col('name', text), col('type', text), col('snapshot_id', int8), col('retain_ms', int8)],
  branches: [col('branch_name', text), col('snapshot_id', int8), col('committed_at', timestamptz), col('retain_ms', int8)],
  tags: [col('tag_name', text), col('snapshot_id', int8), col('committed_at', timestamptz), col('retain_ms', int8)],
  buckets: [
    col('partition', jsonb), col('bucket_node', text), col('node_mask', int8), col('node_index', int8), col('depth', int4),
    col('is_frontier', bool), col('base_files', int8), col('base_rows', int8), col('base_bytes', int8),
    col('pending_change_files', int8), col('pending_change_rows', int8),
  ],
};

const changeColumns: readonly VirtualColumn[] = [col('_change_type', text), col('_seq', int8), col('_commit_snapshot_id', int8)];

const changeTypeNames: Readonly<Record<string, string>> = { '+I': 'INSERT', '-U': 'UPDATE_BEFORE', '+U': 'UPDATE_AFTER', '-D': 'DELETE' };

/** Oids for system tables: above every lake table oid and every PostgreSQL one, stable per (table, kind). */
function systemTableOid(tableId: number, slot: number): number {
  return 0x60000000 + ((tableId * 16 + slot) % 0x1fffffff);
}

/**
 * Resolves `<table>$<kind>` (or a table_changes name) in `schema` against the
 * warehouse; undefined when the name is not one. Columns are fixed at lookup,
 * rows are read when scanned.
 */
export function lookupLakeSystemTable(warehouse: Warehouse, schema: string, name: string): VirtualTable | undefined {
  const dollar = name.lastIndexOf('$');
  if (dollar <= 0) return undefined;
  const suffix = name.slice(dollar + 1);
  const base = name.slice(0, dollar);
  if (suffix === 'table_changes:args') {
    const table = warehouse.getTable(schema, base);
    if (!table) return undefined;
    return {
      schema, name, oid: systemTableOid(table.id, 15),
      columns: [...table.columns.map(changeColumn), ...changeColumns],
      rows: async (ctx) => {
        const [from, to] = changeRange(ctx.args?.[0], ctx.args?.[1]);
        return changeRows(warehouse, current(warehouse, table), from, to);
      },
    };
  }
  if (suffix.startsWith('table_changes:')) {
    const table = warehouse.getTable(schema, base);
    if (!table) return undefined;
    const [fromText, toText] = suffix.slice('table_changes:'.length).split(':');
    const from = fromText ? BigInt(fromText) : undefined;
    const to = toText ? BigInt(toText) : undefined;
    return {
      schema, name, oid: systemTableOid(table.id, 15),
      columns: [...table.columns.map(changeColumn), ...changeColumns],
      rows: async () => changeRows(warehouse, current(warehouse, table), from, to),
    };
  }
  const kind = LAKE_SYSTEM_TABLE_KINDS.find((k) => k === suffix);
  if (!kind) return undefined;
  // `t$branch_b$files`: files, buckets, the audit log and the snapshot lineage as of branch b's head.
  const onBranch = /^(.+)\$branch_(.+)$/.exec(base);
  const table = warehouse.getTable(schema, onBranch ? onBranch[1]! : base);
  if (!table) return undefined;
  const ref = onBranch?.[2];
  const slot = LAKE_SYSTEM_TABLE_KINDS.indexOf(kind);
  if (kind === 'audit_log') {
    return {
      schema, name, oid: systemTableOid(table.id, slot),
      columns: [...table.columns.map(changeColumn), ...changeColumns],
      rows: async () => {
        const t = current(warehouse, table);
        const head = warehouse.resolveSnapshot(t, ref === undefined ? undefined : { kind: 'ref', name: ref });
        return head ? changeRows(warehouse, t, undefined, head.id) : [];
      },
    };
  }
  return {
    schema, name, oid: systemTableOid(table.id, slot), columns: fixedColumns[kind],
    rows: async () => fixedRows(warehouse, current(warehouse, table), kind, ref),
  };
}

/** The table as of the scan, not as of binding (DDL may have run in between). */
function current(warehouse: Warehouse, table: TableMetadata): TableMetadata {
  const t = warehouse.getTableById(table.id);
  if (!t) throw new FloeError(SqlState.undefinedTable, `relation "${table.name}" does not exist`);
  return t;
}

function fixedRows(warehouse: Warehouse, table: TableMetadata, kind: Exclude<LakeSystemTableKind, 'audit_log'>, ref: string | undefined): unknown[][] {
  const at = ref === undefined ? undefined : { kind: 'ref', name: ref } as const;
  switch (kind) {
    case 'snapshots':
      return lineage(warehouse, table, ref)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((s) => [s.id, s.parentId ?? null, s.committedAtMicros, s.operation, jsonText(s.summary), seqOf(s), s.branch]);
    case 'files': {
      if (!warehouse.resolveSnapshot(table, at)) return [];
      return warehouse.listFiles(table, at).map((f) => {
        const stats = Object.entries(f.columnStats);
        return [
          f.store, f.path, partitionJson(table, f.partitionKey), nodeText(f.node), BigInt(f.node.mask), BigInt(f.node.index), BigInt(f.rowCount),
          BigInt(f.deletedRows), BigInt(f.sizeBytes),
          jsonText(Object.fromEntries(stats.map(([c, s]) => [c, s.min]))),
          jsonText(Object.fromEntries(stats.map(([c, s]) => [c, s.max]))),
          jsonText(Object.fromEntries(stats.map(([c, s]) => [c, s.nullCount]))),
          f.seq, f.addedIn,
        ];
      });
    }
    case 'refs':
      return sortedRefs(warehouse, table).map((r) => [r.name, r.kind.toUpperCase(), r.snapshotId, retainMs(r.retainMicros)]);
    case 'branches':
    case 'tags': {
      const committed = new Map(warehouse.listSnapshots(table).map((s) => [s.id, s.committedAtMicros]));
      return sortedRefs(warehouse, table).filter((r) => r.kind === (kind === 'branches' ? 'branch' : 'tag'))
        .map((r) => [r.name, r.snapshotId, committed.get(r.snapshotId) ?? null, retainMs(r.retainMicros)]);
    }
    case 'buckets': {
      if (!warehouse.resolveSnapshot(table, at)) return [];
      return warehouse.bucketTree(table, at).map((b) => [
        partitionJson(table, b.partitionKey), nodeText(b.node), BigInt(b.node.mask), BigInt(b.node.index), depthOf(b.node.mask), b.isFrontier,
        BigInt(b.baseFiles), BigInt(b.baseRows), BigInt(b.baseBytes), BigInt(b.changeFiles), BigInt(b.changeRows),
      ]);
    }
  }
}

/** All snapshots of the table, or those on a branch's line (its head and ancestors). */
function lineage(warehouse: Warehouse, table: TableMetadata, ref: string | undefined): Snapshot[] {
  const all = warehouse.listSnapshots(table);
  if (ref === undefined) return all;
  const byId = new Map(all.map((s) => [s.id, s]));
  const out: Snapshot[] = [];
  for (let s = warehouse.resolveSnapshot(table, { kind: 'ref', name: ref }); s; s = s.parentId === undefined ? undefined : byId.get(s.parentId)) out.push(s);
  return out;
}

function sortedRefs(warehouse: Warehouse, table: TableMetadata) {
  return [...warehouse.listRefs(table)].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

/** table_changes' snapshots given as parameters, checked as the binder checks constants. */
function changeRange(from: unknown, to: unknown): [bigint | undefined, bigint | undefined] {
  const id = (v: unknown): bigint | undefined => (v === null || v === undefined ? undefined : BigInt(v as bigint));
  const range: [bigint | undefined, bigint | undefined] = [id(from), id(to)];
  if (range[0] !== undefined && range[1] !== undefined && range[0] > range[1]) {
    throw new FloeError(SqlState.invalidParameterValue, `table_changes: from snapshot ${range[0]} is after to snapshot ${range[1]}`);
  }
  return range;
}

/** Change rows of snapshots after `from` up to `to` (default: main's head), table columns first, in commit order. */
async function changeRows(warehouse: Warehouse, table: TableMetadata, from: bigint | undefined, to: bigint | undefined): Promise<unknown[][]> {
  const head = to ?? warehouse.resolveSnapshot(table)?.id;
  if (head === undefined) return [];
  const types = [...table.columns.map((c) => c.type), text, int8, int8];
  const out: unknown[][] = [];
  for (const { batch } of await warehouse.readChanges(table, from, head)) {
    appendBatchRows(batch, types, out);
  }
  return out;
}

function appendBatchRows(batch: RecordBatch, types: readonly SqlType[], out: unknown[][]): void {
  const width = types.length;
  const cols = types.map((t, i) => {
    const v = batch.getChildAt(i);
    if (!v) throw new FloeError(SqlState.internalError, `change batch has ${batch.numCols} columns, expected ${width}`);
    return vectorToValues(v, t);
  });
  const typeCol = width - 3;
  for (let r = 0; r < batch.numRows; r++) {
    const row = cols.map((c) => c[r] ?? null);
    row[typeCol] = changeTypeNames[row[typeCol] as string] ?? row[typeCol];
    out.push(row);
  }
}

/** A partition as a JSON object keyed by partition field name (`{"region":"eu","ts_day":19723}`), like Iceberg's partition struct. */
function partitionJson(table: TableMetadata, key: string): string {
  let values: unknown;
  try { values = JSON.parse(key); } catch { return jsonText({ key }); }
  if (!Array.isArray(values)) return jsonText({ key });
  return jsonText(Object.fromEntries(table.partitionBy.map((f, i) => [f.name, values[i] ?? null])));
}

function seqOf(s: Snapshot): bigint | null {
  const v = s.summary.seq;
  return v !== undefined && /^\d+$/.test(v) ? BigInt(v) : null;
}

function retainMs(micros: bigint | undefined): bigint | null {
  return micros === undefined ? null : micros / 1000n;
}

function nodeText(n: { mask: number; index: number }): string {
  return `${n.index}/${n.mask}`;
}

function depthOf(mask: number): number {
  let d = 0;
  for (let m = mask; m > 0; m = Math.floor(m / 2)) d++;
  return d;
}

/** jsonb text (PostgreSQL's key order and spacing) of canonical values: bigints as numbers when exact, bytes as hex. */
function jsonText(v: unknown): string {
  return jsonbNormalize(JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString();
    if (x instanceof Uint8Array) return `\\x${Buffer.from(x).toString('hex')}`;
    return x;
  }));
}
