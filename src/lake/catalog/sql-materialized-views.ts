import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type {
  MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress, MaterializedViewRefresh,
} from '../table/materialized-view-metadata.js';
import type { SqlCatalogAccess } from './sql-sequences.js';

/**
 * Materialized views in the catalog: one row per view, keyed by the id of the table that
 * holds its rows. The row's positions and generation move only inside a commit
 * (recordProgress, from CommitRequest.viewRefresh) and only from the generation the
 * refresh read, so two refreshes racing cannot both apply, and a crash cannot part the
 * rows from the positions they reflect.
 */
interface ViewRow {
  table_id: bigint; definition: string; search_path: string; depends_on: string; options: string; populated: bigint;
  positions: string; generation: bigint; full_refresh_reason: string | null; last_refresh: string | null;
}

function toMetadata(r: ViewRow): MaterializedViewMetadata {
  const last = r.last_refresh === null ? undefined : JSON.parse(r.last_refresh) as Omit<MaterializedViewRefresh, 'atMicros'> & { atMicros: string };
  return {
    tableId: Number(r.table_id), definition: r.definition, searchPath: JSON.parse(r.search_path), dependsOn: JSON.parse(r.depends_on),
    options: JSON.parse(r.options), populated: Number(r.populated) !== 0, positions: JSON.parse(r.positions), generation: Number(r.generation),
    fullRefreshReason: r.full_refresh_reason ?? undefined,
    lastRefresh: last === undefined ? undefined : { ...last, atMicros: BigInt(last.atMicros) },
  };
}

export class SqlMaterializedViews {
  readonly #c: SqlCatalogAccess;

  constructor(access: SqlCatalogAccess) {
    this.#c = access;
  }

  get(tableId: number): MaterializedViewMetadata | undefined {
    return this.list().find((v) => v.tableId === tableId);
  }

  /** The views' table ids: kept through commits (a commit moves positions, never makes or drops a view). */
  ids(): readonly number[] {
    return this.#c.cached('materialized view ids', () =>
      (this.#c.sql('SELECT table_id FROM materialized_views ORDER BY table_id').all() as { table_id: number | bigint }[]).map((r) => Number(r.table_id)));
  }

  list(): MaterializedViewMetadata[] {
    return this.#c.cached('materialized views', () =>
      (this.#c.sql('SELECT * FROM materialized_views ORDER BY table_id').all() as ViewRow[]).map(toMetadata));
  }

  /** The record of a table just created to hold the view's rows: not populated, no positions. */
  insert(tableId: number, d: MaterializedViewDefinition): void {
    this.#c.sql(`INSERT INTO materialized_views (table_id, definition, search_path, depends_on, options, populated, positions, generation, full_refresh_reason)
      VALUES (?, ?, ?, ?, ?, 0, '{}', 0, ?)`)
      .run(tableId, d.definition, JSON.stringify(d.searchPath), JSON.stringify(d.dependsOn), JSON.stringify(d.options), d.fullRefreshReason ?? null);
  }

  /** ALTER MATERIALIZED VIEW … SET/RESET (…): new options, and the refresh mode they make. */
  setOptions(tableId: number, options: readonly string[], fullRefreshReason: string | undefined): void {
    this.#c.sql('UPDATE materialized_views SET options = ?, full_refresh_reason = ? WHERE table_id = ?')
      .run(JSON.stringify(options), fullRefreshReason ?? null, tableId);
  }

  /** Moves the view to a refresh's positions; 40001 when another refresh moved it since this one read it. */
  recordProgress(p: MaterializedViewProgress): void {
    const last = JSON.stringify({ ...p.refresh, atMicros: String(p.refresh.atMicros) });
    const moved = this.#c.sql(`UPDATE materialized_views SET positions = ?, populated = ?, generation = generation + 1, last_refresh = ?
      WHERE table_id = ? AND generation = ?`).run(JSON.stringify(p.positions), p.populated ? 1 : 0, last, p.tableId, p.fromGeneration);
    if (moved.changes === 0) {
      throw new FloeError(SqlState.serializationFailure, 'could not refresh materialized view: it was refreshed or dropped concurrently', {
        hint: 'Run the refresh again.',
      });
    }
  }

  drop(tableId: number): void {
    this.#c.sql('DELETE FROM materialized_views WHERE table_id = ?').run(tableId);
  }
}
