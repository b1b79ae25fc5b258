import { hashKey } from '../../../src/lake/bucket/key-hash.js';
import type { BucketNode, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { columnsOf } from './read-table.js';

/** A keyed table (id int4, v text) with the given properties. */
export async function kvTable(wh: Warehouse, name: string, properties: Record<string, string> = {}): Promise<TableMetadata> {
  return wh.createTable({
    namespace: 'public', name, primaryKey: ['id'], properties,
    columns: [{ name: 'id', type: { kind: 'int4' }, nullable: false }, { name: 'v', type: { kind: 'text' }, nullable: true }],
  });
}

export async function upsertRows(wh: Warehouse, t: TableMetadata, rows: readonly { id: number; v: string }[]): Promise<void> {
  const tx = await wh.begin();
  await tx.upsert(t, 'main', columnsOf(t, rows));
  await tx.commit();
}

export async function deleteRows(wh: Warehouse, t: TableMetadata, ids: readonly number[]): Promise<void> {
  const tx = await wh.begin();
  await tx.deleteKeys(t, 'main', [[...ids]]);
  await tx.commit();
}

/** The first `n` ids ≥ 0 whose key hash falls in the node. */
export function idsIn(node: BucketNode, n: number, from = 0): number[] {
  const out: number[] = [];
  for (let id = from; out.length < n; id++) if (((hashKey([{ kind: 'int4' }], [id]) & node.mask) >>> 0) === node.index) out.push(id);
  return out;
}

/** Sets table properties and returns the table's new metadata. */
export async function setProperties(wh: Warehouse, t: TableMetadata, properties: Record<string, string>): Promise<TableMetadata> {
  return wh.alterTable(t.namespace, t.name, { kind: 'setProperties', properties });
}

/** Frontier nodes of the table's only partition, as "mask:index", sorted. */
export function frontierKeys(wh: Warehouse, t: TableMetadata): string[] {
  return wh.bucketTree(t).filter((n) => n.isFrontier).map((n) => `${n.node.mask}:${n.node.index}`).sort();
}
