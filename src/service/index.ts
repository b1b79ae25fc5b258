/** src/service's public API: the long-running work no statement owns, as the session and src/cli reach it. */
export type { OptimizingService } from './optimizing/optimizing-service.js';
export { OptimizingScheduler } from './optimizing/optimizing-scheduler.js';
export { optimizeKindArgument } from './optimizing/optimize-kind-argument.js';
export { InlineOptimizingService } from './optimizing/inline-optimizing-service.js';
export { Housekeeping } from './optimizing/housekeeping.js';
export { DEFAULT_OPTIMIZER_MEMORY_BYTES, DEFAULT_OPTIMIZER_NICENESS, createOptimizerPool } from './optimizing/optimizer-pool.js';
export type { ServiceLogger } from './optimizing/optimizing-warehouse.js';
export { LogTieringService } from './log-tiering/log-tiering-service.js';
export { IcebergMetadataService } from './iceberg-metadata/iceberg-metadata-service.js';
export { createIcebergExportPool } from './iceberg-metadata/iceberg-export-pool.js';
export type { IcebergExportPool } from './iceberg-metadata/iceberg-export-pool.js';
export { streamLogicalChanges } from './replication/logical-stream.js';
export { parseNameList } from './replication/published-tables.js';
export { runSubscriptionDdl } from './subscriptions/subscription-ddl.js';
export { SubscriptionManager } from './subscriptions/subscription-manager.js';
export type { SubscriptionWorkers } from './subscriptions/subscription-workers.js';
export * from './audit/index.js';
export { MaterializedViewRefresher, type RefreshRunner } from './materialized-views/materialized-view-refresher.js';
