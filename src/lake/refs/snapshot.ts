/** One commit of one table. Every commit (writes, optimize, rollback is not one) makes exactly one. */
export interface Snapshot {
  readonly tableId: number;
  readonly id: bigint;
  readonly parentId: bigint | undefined;
  /** The branch the commit was made on. */
  readonly branch: string;
  /** Microseconds since the epoch. */
  readonly committedAtMicros: bigint;
  readonly operation: 'create' | 'append' | 'write' | 'delete' | 'optimize' | 'overwrite';
  readonly summary: Readonly<Record<string, string>>;
  readonly schemaId: number;
}

export type SnapshotSelector =
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'snapshot'; readonly id: bigint }
  | { readonly kind: 'timestamp'; readonly micros: bigint }
  /** An id, a tag or a branch; a string that is a number resolves as a snapshot id first (Iceberg's rule). */
  | { readonly kind: 'version'; readonly value: string };

export interface RefInfo {
  readonly name: string;
  readonly kind: 'branch' | 'tag';
  readonly snapshotId: bigint;
  /** How long the ref (a tag) or the snapshots of the branch are kept; undefined: forever / table default. */
  readonly retainMicros: bigint | undefined;
}

export interface CreateRefOptions {
  readonly fromSnapshot?: bigint;
  readonly orReplace?: boolean;
  readonly ifNotExists?: boolean;
  readonly retainMicros?: bigint;
}
