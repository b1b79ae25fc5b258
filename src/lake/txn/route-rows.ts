import type { SqlType } from '../../common/sql-type.js';
import type { BucketNode } from '../bucket/bucket-node.js';
import { nodeContains, nodeKey, rootNode } from '../bucket/bucket-node.js';
import { hashKeyColumns } from '../bucket/key-hash.js';
import type { FilePlacement } from '../format/data-file-writer.js';
import { applyTransform, transformResultType } from '../partition/partition-transform.js';
import { encodeStatValue } from '../stats/column-stats.js';
import type { FrontierNode } from '../table/frontier.js';
import { frontierNodeFor } from '../table/frontier.js';
import type { TableMetadata } from '../table/table-metadata.js';

export interface RoutedGroup {
  readonly placement: FilePlacement;
  /** Row indexes in input order; undefined when the group is every row. */
  readonly rows: number[] | undefined;
}

/** Partition tuple of one row: values as stored in the catalog (encodeStatValue form) and its key. */
export function partitionOf(table: TableMetadata, row: (c: number) => unknown): { key: string; values: unknown[] } {
  const values: unknown[] = [];
  for (const pf of table.partitionBy) {
    const ci = table.columns.findIndex((c) => c.name === pf.sourceColumn);
    const col = table.columns[ci]!;
    const v = applyTransform(pf.transform, col.type, row(ci));
    values.push(v === null || v === undefined ? null : encodeStatValue(transformResultType(pf.transform, col.type), v));
  }
  return { key: JSON.stringify(values), values };
}

/**
 * Splits rows by partition and by the frontier node their key hashes into, keeping
 * input order inside each group (the order is the change rows' offset order).
 * `keyIndexes` are the positions of the key columns in `values` (keyed tables);
 * `keyHashes`, when the caller has them, are those columns' hashes (else computed here).
 */
export function routeRows(
  table: TableMetadata, values: readonly (readonly unknown[])[], numRows: number,
  keyIndexes: readonly number[] | undefined, keyTypes: readonly SqlType[],
  frontier: (partitionKey: string) => readonly FrontierNode[] | undefined,
  keyHashes?: Uint32Array,
): RoutedGroup[] {
  if (table.partitionBy.length === 0) {
    // one partition: rows only split by frontier node (none when the root is the frontier)
    const nodes = frontier('[]');
    if (keyIndexes === undefined || keyIndexes.length === 0 || nodes === undefined || nodes.length <= 1) {
      return [{ placement: { partitionKey: '[]', partitionValues: [], node: nodes?.[0]?.node ?? rootNode() }, rows: undefined }];
    }
  }
  const hashes = keyIndexes === undefined || keyIndexes.length === 0 ? undefined
    : keyHashes ?? hashKeyColumns(keyTypes, keyIndexes.map((k) => ({ get: (i: number) => values[k]![i] })), numRows);
  if (table.partitionBy.length === 0 && hashes !== undefined) {
    // one partition, several frontier nodes: group by node position, no per-row strings
    const nodes = frontier('[]')!;
    const rows = nodes.map((): number[] => []);
    for (let i = 0; i < numRows; i++) {
      const h = hashes[i]!;
      let j = 0;
      while (j < nodes.length - 1 && !nodeContains(nodes[j]!.node, h)) j++;
      rows[j]!.push(i);
    }
    return nodes.flatMap((n, j) => (rows[j]!.length === 0 ? [] : [{ placement: { partitionKey: '[]', partitionValues: [], node: n.node }, rows: rows[j]! }]));
  }
  const groups = new Map<string, { placement: FilePlacement; rows: number[] }>();
  const partCache = new Map<string, { key: string; values: unknown[] }>();
  for (let i = 0; i < numRows; i++) {
    let part: { key: string; values: unknown[] };
    if (table.partitionBy.length === 0) part = { key: '[]', values: [] };
    else {
      part = partitionOf(table, (c) => values[c]![i]);
      const cached = partCache.get(part.key);
      if (cached === undefined) partCache.set(part.key, part); else part = cached;
    }
    const node: BucketNode = hashes === undefined ? rootNode() : frontierNodeFor(frontier(part.key), hashes[i]!);
    const gk = `${part.key}|${nodeKey(node)}`;
    let g = groups.get(gk);
    if (g === undefined) groups.set(gk, g = { placement: { partitionKey: part.key, partitionValues: part.values, node }, rows: [] });
    g.rows.push(i);
  }
  const out = [...groups.values()];
  if (out.length === 1) return [{ placement: out[0]!.placement, rows: undefined }];
  return out;
}

export function gather(values: readonly (readonly unknown[])[], rows: readonly number[] | undefined): (readonly unknown[])[] {
  if (rows === undefined) return values.slice();
  return values.map((col) => rows.map((i) => col[i]));
}
