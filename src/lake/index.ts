/** src/lake's public API: the only module of src/lake other layers import. */
export type { CatalogConfig } from './catalog/catalog-config.js';
export type { SnapshotIdRange } from './catalog/catalog.js';
export type { S3StorageConfig, StorageConfig } from './storage/storage-config.js';
export { parseS3Url } from './storage/storage-config.js';
export { S3Storage } from './storage/s3-storage.js';
export type {
  AlterTableChange, ColumnDefinition, ColumnIdentity, ColumnMetadata, IndexKey, TableConstraint, TableDefinition, TableMetadata,
} from './table/table-metadata.js';
export type {
  SequenceChange, SequenceDataType, SequenceDefinition, SequenceMetadata, SequenceOptions, SequenceOwner,
} from './sequence/sequence-metadata.js';
export { sequenceDefaultExpr, sequenceOfDefault } from './sequence/sequence-ddl.js';
export { sequenceTypeName } from './sequence/sequence-parameters.js';
export type { CreateRefOptions, RefInfo, Snapshot, SnapshotSelector } from './refs/snapshot.js';
export type { ScanFile, ScanFilter, ScanPlan, ScanRequest, ScanStats, ScanTask } from './scan/scan-types.js';
export { ROW_ID_COLUMN, SEQ_COLUMN } from './scan/scan-types.js';
export type { BeginOptions, LakeTransaction, TxnIsolation, TxnSavepoint } from './txn/lake-transaction.js';
export type {
  NewSubscription, SubscriptionMetadata, SubscriptionPatch, SubscriptionProgress, SubscriptionRunner, SubscriptionStatus, SubscriptionTable, SubscriptionTableState,
} from './subscription/subscription-metadata.js';
export { withConstraintMode } from './txn/constraint-modes.js';
export type { ConstraintMode, ConstraintModes, ConstraintRef } from './txn/constraint-modes.js';
export type { OptimizeOptions, OptimizeProgress, OptimizeResult } from './optimize/optimize-result.js';
export type {
  BucketNodeInfo, ChangeBatch, DataFileInfo, LakeLogger, Warehouse, WarehouseOptions,
} from './warehouse/warehouse.js';
export type { PartitionField, PartitionTransform } from './partition/partition-transform.js';
// ADD COLUMN … DEFAULT's value in the catalog's JSON form (Iceberg v3's initial-default).
export { decodeInitialDefault, encodeInitialDefault, type InitialDefault } from './table/initial-default.js';
// ALTER COLUMN's rules (widenings, NOT NULL on keys), so a caller can check a statement's actions before applying any.
export { alterColumnMetadata } from './table/alter-column.js';
export type { BucketNode } from './bucket/bucket-node.js';
export { openCatalog, openWarehouse } from './warehouse/open-warehouse.js';
export type { CommitObserver, CommittedTransaction } from './warehouse/commit-observer.js';
export type { RelationComment, ViewDefinition, ViewMetadata } from './table/view-metadata.js';
export type { MaterializedViewDefinition, MaterializedViewMetadata, MaterializedViewProgress, MaterializedViewRefresh } from './table/materialized-view-metadata.js';
export { enumTypeOfUserType, type EnumLabel, type UserTypeMetadata } from './table/user-type-metadata.js';
export type { EnumLabelPosition } from './table/alter-enum-labels.js';
export { addScanTaskCounters, executeScanTask, executeScanTaskSelected, type RowNarrower, type ScanTaskCounters } from './scan/execute-scan-task.js';
export type { SelectedBatch } from './arrow/selected-batch.js';
// The Arrow form of each SqlType in data files and scan output, so the executor's batches agree with the lake's.
export { arrowTypeOf } from './arrow/arrow-type.js';
// Rows of one Arrow column gathered buffer to buffer, so the executor can move columns it never reads.
export { takeData } from './arrow/take-rows.js';
export { recordBatchOf } from './arrow/record-batch-of.js';
export { isValid, nullMask } from './arrow/column-reader.js';
export { dataReader } from './arrow/column-reader.js';
export { flattenArray, isMultidimensional, hasMultidimensional, isMultidimArrowType, multidimArrowType } from './arrow/multidim-array.js';
export { isExactFilter } from './scan/filter-batch.js';
export type { NodeOptimizingMetrics, NodeRewriteResult, NodeRewriteTask, OptimizeKind, OptimizingMetrics } from './optimize/optimize-result.js';
export type {
  NewOptimizingRun, OptimizerGroup, OptimizerRecord, OptimizingRun, OptimizingStatus, OptimizingTableRow, OptimizingTableState, SchedulingPolicy,
} from './optimize/optimizing-records.js';
export { OPTIMIZING_PROPERTIES, checkOptimizingProperty, optimizingSettings, type OptimizingSettings } from './table/optimizing-properties.js';
export {
  DEFAULT_OPTIMIZER_GROUP, OPTIMIZER_GROUP_OPTIONS, checkOptimizerGroupName, defaultGroupDropError, groupInUseError, optimizerGroupOptions,
} from './warehouse/check-optimizer-group.js';
export {
  dueOptimizingKind, majorNodeDue, minorAction, minorReason, splitDue, undersizedSiblingPairs, type LastOptimized, type MinorReason,
} from './optimize/optimizing-triggers.js';
// One node's rewrite, runnable on a worker thread (the self-optimizing service's pool).
export { executeNodeRewrite } from './optimize/execute-node-rewrite.js';
export { executeRewriteTask, rewriteResultOf } from './optimize/execute-rewrite-task.js';
export type { KeyedNodeRewriteResult, KeyedNodeRewriteTask, RewriteInputFile, RewritePart } from './optimize/keyed-node-rewrite-task.js';
export type { AppendFilesRewriteResult, AppendFilesRewriteTask, AppendRewriteInput } from './optimize/append-files-rewrite-task.js';
export { executeAppendFilesRewrite } from './optimize/execute-append-files-rewrite.js';
// The commit log (issue 24): one writer's segmented write-ahead log, and recovery of a log nobody appends to.
export type {
  AppendedRecord, CommitLog, LogRecordKind, OpenCommitLogOptions, RecoverCommitLog, RecoveredRecord,
} from './log/commit-log.js';
export { DEFAULT_SEGMENT_BYTES, SegmentedCommitLog, openCommitLog, recoverCommitLog } from './log/segmented-commit-log.js';
export { LOG_DIR, formatLogLocator, isLogPath, logWriterDir, parseLogLocator, type LogLocator } from './log/log-locator.js';
export type { TierOptions, TierResult } from './log/tier-log-files.js';
export type { IcebergExportOptions, IcebergExportResult } from './iceberg/export-iceberg-metadata.js';
export { writeChangeStoreFiles } from './iceberg/change-store-files.js';
export type { ChangeStoreFile, ChangeStoreJob, ChangeStoreWriter } from './iceberg/change-store-files.js';
export type { IcebergTableLoad } from './iceberg/newest-metadata-version.js';
export type { IcebergTableMetadataJson } from './iceberg/table-metadata-json.js';
export type { LogBacklog } from './log/log-backlog.js';
export { LOG_PROPERTIES, checkLogProperty, logSettings, type LogSettings } from './table/log-properties.js';
export { CHANGELOG_PROPERTIES, checkChangelogProperty } from './table/changelog-properties.js';
export { changelogCompleteBetween, keysUnchangedBetween } from './table/complete-changelog.js';
export { ICEBERG_PROPERTIES } from './table/iceberg-properties.js';
export { MERGE_ENGINE_PROPERTIES, isMergeEngineProperty, mergeEngineOf, type MergeEngine } from './merge/merge-engine.js';
export type { NewPublication, PublicationMetadata, PublishedActions } from './replication/publication-metadata.js';
export { slotNameProblem, type ReplicationSlotRecord } from './replication/replication-slot.js';
export type { ReplicationCatalog, ReplicationSlotHolder } from './replication/replication-catalog.js';
export type { RoleCatalog } from './security/role-catalog.js';
export { RoleGraph } from './security/role-graph.js';
export { tableReadAccess } from './security/table-read-access.js';
export { allDataRelationRights, allDataSchemaRights } from './security/all-data-roles.js';
export { PG_DATABASE_OWNER_OID, defaultObjectAcl, securedObjectKey } from './security/object-acl.js';
export type { DefaultAclObjectType, ObjectAclRecord, PrivilegeCatalog, SecuredObject } from './security/object-acl.js';
export type { PolicyCommand, RowPolicy, RowPolicyCatalog, RowSecuritySwitch } from './security/row-policies.js';
export * from './security/acl.js';
export * from './security/acl-check.js';
export * from './security/acl-grant.js';
export * from './security/acl-merge.js';
export { BOOTSTRAP_SUPERUSER_OID, DEFAULT_BOOTSTRAP_SUPERUSER, DEFAULT_ROLE_ATTRIBUTES, PG_READ_ALL_DATA_OID, PG_WRITE_ALL_DATA_OID } from './security/role-metadata.js';
export type { RoleAttributes, RoleMembership, RoleRecord } from './security/role-metadata.js';
export { commitEndLsn, commitLsn, firstSnapshotFrom, formatLsn, parseLsn } from './replication/replication-lsn.js';
export { decodeKeyMoves } from './table/key-moves.js';
export { SLOT_LEASE_MICROS, SlotRegistry, otherStreamer, processSlotRegistry } from './replication/slot-registry.js';
export { materializedViewLagMicros, type LagSource } from './table/materialized-view-lag.js';
