import type Database from 'better-sqlite3';

/**
 * The SQLite catalog's tables (what each holds: sql-catalog.ts and the sql-*.ts beside it).
 * PostgreSQL's are the same tables, created by numbered migrations
 * (postgres/postgres-migrations.ts); test/lake/catalog-schemas.test.ts holds the two alike.
 */
export const SQLITE_SCHEMA = `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('next_seq', 1), ('next_table_id', 16384), ('next_snapshot_id', 1);
CREATE TABLE IF NOT EXISTS namespaces (name TEXT PRIMARY KEY);
INSERT OR IGNORE INTO namespaces VALUES ('public');
CREATE TABLE IF NOT EXISTS tables (
  table_id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL,
  schema_id INTEGER NOT NULL, columns TEXT NOT NULL, primary_key TEXT NOT NULL,
  partition_by TEXT NOT NULL, properties TEXT NOT NULL, next_field_id INTEGER NOT NULL,
  created_micros INTEGER NOT NULL, constraints TEXT NOT NULL DEFAULT '[]', UNIQUE (namespace, name));
CREATE TABLE IF NOT EXISTS schemas (
  table_id INTEGER NOT NULL, schema_id INTEGER NOT NULL, columns TEXT NOT NULL,
  PRIMARY KEY (table_id, schema_id));
CREATE TABLE IF NOT EXISTS snapshots (
  snapshot_id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, parent_id INTEGER,
  branch TEXT NOT NULL, committed_micros INTEGER NOT NULL, operation TEXT NOT NULL,
  summary TEXT NOT NULL, schema_id INTEGER NOT NULL, expired INTEGER NOT NULL DEFAULT 0,
  squashed_from_micros INTEGER);
CREATE INDEX IF NOT EXISTS snapshots_parent ON snapshots (parent_id);
CREATE TABLE IF NOT EXISTS squashed_snapshots (snapshot_id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_table ON snapshots (table_id, committed_micros);
CREATE TABLE IF NOT EXISTS refs (
  table_id INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
  snapshot_id INTEGER NOT NULL, retain_micros INTEGER, PRIMARY KEY (table_id, name));
CREATE TABLE IF NOT EXISTS txns (
  txn_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, started_micros INTEGER NOT NULL,
  heartbeat_micros INTEGER NOT NULL, pid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  file_id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, store TEXT NOT NULL,
  path TEXT NOT NULL, partition_key TEXT NOT NULL, partition_values TEXT NOT NULL,
  node_mask INTEGER NOT NULL, node_index INTEGER NOT NULL, row_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL, seq INTEGER NOT NULL, first_offset INTEGER NOT NULL,
  stats TEXT NOT NULL, dv_target INTEGER, dv_positions BLOB, row_groups TEXT, key_bitmap BLOB,
  added_in INTEGER NOT NULL, snapshots TEXT);
CREATE INDEX IF NOT EXISTS files_added ON files (table_id, added_in);
CREATE TABLE IF NOT EXISTS file_removals (
  file_id INTEGER NOT NULL, snapshot_id INTEGER NOT NULL, table_id INTEGER NOT NULL,
  PRIMARY KEY (file_id, snapshot_id));
CREATE INDEX IF NOT EXISTS file_removals_snapshot ON file_removals (table_id, snapshot_id);
CREATE TABLE IF NOT EXISTS file_epochs (table_id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS file_epoch_swaps (
  table_id INTEGER NOT NULL, epoch INTEGER NOT NULL, removed TEXT NOT NULL, anchor_file_id INTEGER NOT NULL,
  added_file_id INTEGER NOT NULL, PRIMARY KEY (table_id, epoch));
CREATE TABLE IF NOT EXISTS log_writers (
  writer_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL,
  heartbeat_micros INTEGER NOT NULL, applied_lsn INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sequences (
  seq_id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL, data_type TEXT NOT NULL,
  increment INTEGER NOT NULL, min_value INTEGER NOT NULL, max_value INTEGER NOT NULL, start INTEGER NOT NULL,
  cache INTEGER NOT NULL, cycle INTEGER NOT NULL, last_value INTEGER NOT NULL, is_called INTEGER NOT NULL,
  owner_table INTEGER, owner_field INTEGER, generation INTEGER NOT NULL DEFAULT 0, UNIQUE (namespace, name));
CREATE TABLE IF NOT EXISTS optimizer_groups (
  name TEXT PRIMARY KEY, threads INTEGER NOT NULL, scheduling_policy TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS optimizing_runs (
  run_id INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
  trigger TEXT NOT NULL, started_micros INTEGER NOT NULL, duration_ms INTEGER NOT NULL, nodes INTEGER NOT NULL,
  splits INTEGER NOT NULL, files_in INTEGER NOT NULL, bytes_in INTEGER NOT NULL, rows_in INTEGER NOT NULL,
  files_out INTEGER NOT NULL, bytes_out INTEGER NOT NULL, rows_out INTEGER NOT NULL, snapshot_id INTEGER, error TEXT);
CREATE INDEX IF NOT EXISTS optimizing_runs_table ON optimizing_runs (table_id, run_id);
CREATE TABLE IF NOT EXISTS optimizing_states (
  table_id INTEGER PRIMARY KEY, status TEXT NOT NULL, status_since_micros INTEGER NOT NULL, owner TEXT NOT NULL,
  heartbeat_micros INTEGER NOT NULL, last_minor_micros INTEGER, last_major_micros INTEGER, last_full_micros INTEGER,
  consecutive_failures INTEGER NOT NULL, next_attempt_micros INTEGER);
CREATE TABLE IF NOT EXISTS optimizers (
  optimizer_id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, groups TEXT, threads INTEGER NOT NULL,
  started_micros INTEGER NOT NULL, heartbeat_micros INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS file_replacements (
  file_id INTEGER NOT NULL, table_id INTEGER NOT NULL, output_id INTEGER NOT NULL,
  output_offset INTEGER NOT NULL, dropped BLOB NOT NULL, PRIMARY KEY (file_id, output_id));
CREATE INDEX IF NOT EXISTS file_replacements_table ON file_replacements (table_id, output_id);
CREATE TABLE IF NOT EXISTS views (
  view_id INTEGER PRIMARY KEY, namespace TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
  columns TEXT NOT NULL, search_path TEXT NOT NULL, depends_on TEXT NOT NULL, options TEXT NOT NULL DEFAULT '[]', UNIQUE (namespace, name));
CREATE TABLE IF NOT EXISTS comments (
  object_id INTEGER NOT NULL, sub_id INTEGER NOT NULL, description TEXT NOT NULL, PRIMARY KEY (object_id, sub_id));
CREATE TABLE IF NOT EXISTS user_types (
  type_oid INTEGER PRIMARY KEY, array_oid INTEGER NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  labels TEXT, UNIQUE (namespace, name));
CREATE TABLE IF NOT EXISTS publications (
  pub_oid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, all_tables INTEGER NOT NULL,
  pub_insert INTEGER NOT NULL, pub_update INTEGER NOT NULL, pub_delete INTEGER NOT NULL, pub_truncate INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS publication_tables (
  pub_oid INTEGER NOT NULL, table_id INTEGER NOT NULL, PRIMARY KEY (pub_oid, table_id));
CREATE TABLE IF NOT EXISTS replication_slots (
  name TEXT PRIMARY KEY, plugin TEXT NOT NULL, database TEXT NOT NULL, restart_lsn INTEGER NOT NULL,
  confirmed_flush_lsn INTEGER NOT NULL, created_micros INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS subscriptions (
  sub_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, conninfo TEXT NOT NULL, publications TEXT NOT NULL,
  slot_name TEXT, enabled INTEGER NOT NULL, options TEXT NOT NULL, generation INTEGER NOT NULL DEFAULT 0,
  applied_lsn INTEGER NOT NULL DEFAULT 0, applied_source_micros INTEGER, applied_micros INTEGER,
  received_lsn INTEGER NOT NULL DEFAULT 0, source_wal_end INTEGER NOT NULL DEFAULT 0, last_msg_send_micros INTEGER,
  last_msg_receipt_micros INTEGER, pending_since_micros INTEGER, pid INTEGER, last_error TEXT, last_error_micros INTEGER);
CREATE TABLE IF NOT EXISTS subscription_tables (
  sub_id INTEGER NOT NULL, source_schema TEXT NOT NULL, source_name TEXT NOT NULL, table_id INTEGER NOT NULL,
  state TEXT NOT NULL, sync_lsn INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (sub_id, source_schema, source_name));
CREATE TABLE IF NOT EXISTS replication_slot_holders (
  slot_name TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, heartbeat_micros INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS subscription_runners (
  sub_id INTEGER PRIMARY KEY, owner TEXT NOT NULL, heartbeat_micros INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS roles (
  role_oid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, superuser INTEGER NOT NULL, inherit INTEGER NOT NULL,
  create_role INTEGER NOT NULL, create_db INTEGER NOT NULL, can_login INTEGER NOT NULL, replication INTEGER NOT NULL,
  bypass_rls INTEGER NOT NULL, connection_limit INTEGER NOT NULL, password TEXT, valid_until_micros INTEGER);
CREATE TABLE IF NOT EXISTS role_members (
  role_oid INTEGER NOT NULL, member_oid INTEGER NOT NULL, grantor_oid INTEGER NOT NULL, admin_option INTEGER NOT NULL,
  PRIMARY KEY (role_oid, member_oid));
CREATE TABLE IF NOT EXISTS object_acls (
  object_kind TEXT NOT NULL, object_key TEXT NOT NULL, owner_oid INTEGER NOT NULL,
  acl TEXT, column_acls TEXT NOT NULL, PRIMARY KEY (object_kind, object_key));
CREATE TABLE IF NOT EXISTS row_policies (
  policy_oid INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, name TEXT NOT NULL, command TEXT NOT NULL,
  permissive INTEGER NOT NULL, roles TEXT NOT NULL, using_expr TEXT, check_expr TEXT, UNIQUE (table_id, name));
CREATE TABLE IF NOT EXISTS row_security (table_id INTEGER PRIMARY KEY, enabled INTEGER NOT NULL, forced INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS materialized_views (
  table_id INTEGER PRIMARY KEY, definition TEXT NOT NULL, search_path TEXT NOT NULL, depends_on TEXT NOT NULL,
  options TEXT NOT NULL, populated INTEGER NOT NULL, positions TEXT NOT NULL, generation INTEGER NOT NULL,
  full_refresh_reason TEXT, last_refresh TEXT);
`;

/** Creates the tables, brings older catalogs up to date, and starts new table ids at `firstTableId`. Inside a write transaction. */
export function createSqliteSchema(db: Database.Database, firstTableId: number | undefined): void {
  db.exec(SQLITE_SCHEMA);
  migrate(db);
  if (firstTableId !== undefined) {
    db.prepare("UPDATE meta SET value = max(value, ?) WHERE key = 'next_table_id'").run(firstTableId);
  }
}

/** Columns added to tables of catalogs written before them; each ALTER runs once. */
function migrate(db: Database.Database): void {
  const tableColumns = new Set((db.prepare('PRAGMA table_info(tables)').all() as { name: string }[]).map((c) => c.name));
  if (!tableColumns.has('constraints')) db.exec(`ALTER TABLE tables ADD COLUMN constraints TEXT NOT NULL DEFAULT '[]'`);
  const fileColumns = new Set((db.prepare('PRAGMA table_info(files)').all() as { name: string }[]).map((c) => c.name));
  if (!fileColumns.has('snapshots')) db.exec('ALTER TABLE files ADD COLUMN snapshots TEXT');
  const viewColumns = new Set((db.prepare('PRAGMA table_info(views)').all() as { name: string }[]).map((c) => c.name));
  if (!viewColumns.has('options')) db.exec(`ALTER TABLE views ADD COLUMN options TEXT NOT NULL DEFAULT '[]'`);
  // Tiered files only (tieredFiles): none at all while tiering is off, so finding them costs nothing.
  db.exec('CREATE INDEX IF NOT EXISTS files_tiered ON files (table_id) WHERE snapshots IS NOT NULL');
  // The oldest log segment any file row reads (oldestFilePathWithPrefix), without a scan of every file row.
  db.exec('CREATE INDEX IF NOT EXISTS files_path ON files (path)');
  // File ids come from a counter (#insertFile says why); a catalog written before it starts
  // past every id any of its rows still names.
  db.exec(`INSERT OR IGNORE INTO meta VALUES ('next_file_id', 1 + MAX(
    (SELECT COALESCE(MAX(file_id), 0) FROM files), (SELECT COALESCE(MAX(file_id), 0) FROM file_removals),
    (SELECT COALESCE(MAX(MAX(file_id), MAX(output_id)), 0) FROM file_replacements), (SELECT COALESCE(MAX(dv_target), 0) FROM files)))`);
}
