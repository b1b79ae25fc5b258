/**
 * A materialized view: a keyed Floe table holding the query's rows (so it has snapshots,
 * time travel, branches, `t$…` tables and CDC out like any table), plus this record of the
 * query and of how far the rows go. The table and the record share the id, which is the
 * view's pg_class oid.
 *
 * `positions` names, for each base table read, the snapshot the rows reflect. A refresh
 * moves them in the same catalog transaction as the rows it writes, and only from the
 * `generation` it read (CommitRequest.viewRefresh), so a refresh is applied exactly once and
 * a crashed one leaves the view as it was.
 */
export interface MaterializedViewMetadata {
  readonly tableId: number;
  /** The query after AS, exactly as written. */
  readonly definition: string;
  /** search_path at CREATE: unqualified names in the definition resolve through it. */
  readonly searchPath: readonly string[];
  /** Relations (tables, views) the definition reads directly, by id. */
  readonly dependsOn: readonly number[];
  /** WITH (…) as pg_class.reloptions shows them (`freshness=30 seconds`); the SQL layer checks them. */
  readonly options: readonly string[];
  /** False after WITH NO DATA or REFRESH … WITH NO DATA: reading it is 55000 until a refresh. */
  readonly populated: boolean;
  /** Base table id → the snapshot id its rows reflect (empty while not populated). */
  readonly positions: Readonly<Record<string, string>>;
  /** Counts refreshes; a refresh commits only from the generation it read. */
  readonly generation: number;
  /** Why refreshes are full ones (the query's shape), or undefined when they can be incremental. */
  readonly fullRefreshReason: string | undefined;
  readonly lastRefresh: MaterializedViewRefresh | undefined;
}

/** What the last refresh did (floe_materialized_views). */
export interface MaterializedViewRefresh {
  readonly mode: 'incremental' | 'full' | 'no data';
  readonly atMicros: bigint;
  readonly durationMs: number;
  /** Rows of the view written (inserted, updated or deleted). */
  readonly rowsChanged: number;
}

export type MaterializedViewDefinition = Omit<MaterializedViewMetadata, 'tableId' | 'populated' | 'positions' | 'generation' | 'lastRefresh'>;

/**
 * A refresh's move, carried by the commit that writes its rows (or stored alone when
 * nothing changed): from `fromGeneration` to the next, at `positions`.
 */
export interface MaterializedViewProgress {
  readonly tableId: number;
  readonly fromGeneration: number;
  readonly positions: Readonly<Record<string, string>>;
  readonly populated: boolean;
  readonly refresh: MaterializedViewRefresh;
}
