/**
 * src/sql: PostgreSQL's own grammar (libpg-query) plus the lakehouse extension
 * layer, and the binder that turns a raw parse tree into an executable plan.
 */
export { parseStatements, loadSqlParser } from './parser/parse-statements.js';
export { normalizedStatement, type NormalizedStatement } from './parser/normalized-statement.js';
export { bindStatement } from './binder/bind-statement.js';
export { bindTableCheckConstraints } from './binder/bind-check-constraints.js';
export { bindRowPredicate, type BoundRowPredicate } from './binder/row-predicate.js';
export type { ParsedStatement } from './parsed-statement.js';
export type { BindEnv, CatalogReader, CatalogTable } from './bind-env.js';
export type { BoundStatement } from './bound-statement.js';
export type { ResultColumn } from './result-column.js';
export type { PublicationDdl, PublicationTableRef } from './publication-ddl.js';
export type { DdlCommand, OptimizerGroupDdl, AlterTableAction, ColumnSpec, PartitionFieldSpec, TableName, TemporaryTableSpec, UniqueSpec, TypeDdl, AlterTypeAction, TypeNameRef } from './ddl-command.js';
export type { AlterSubscriptionAction, SubscriptionDdl, SubscriptionOption } from './ddl-command.js';
export type { PolicyDdl, PrivilegeDdl, PrivilegeSpec, RelationRef, RoleDdl, RoleOptions, RoleRef } from './ddl-command.js';
export type { RelationAccess, StatementAccesses, SuperuserOnlyAccess } from './relation-access.js';
export type { RowSecurityCommand, RowSecurityExprs } from './bind-env.js';
export { TEMP_SCHEMA_ALIAS, isTempNamespaceName, tempNamespaceName } from '../common/temp-namespace.js';
export type {
  UtilityCommand, CopyOptions, TransactionModes, IsolationLevel, ArgumentsPlan,
} from './utility-command.js';
export type { LakeClause, TimeTravelClause, RefDdlClause } from './parser/lake-clause.js';
export type { VirtualTable, VirtualTableRegistry, VirtualColumn, VirtualTableContext } from './binder/virtual-table.js';
// pg_catalog and information_schema, and the catalog functions (src/sql/system-catalog).
export { createSystemCatalog, registerCatalogFunctions, regprocName, regprocedureName } from './system-catalog/index.js';
export type { SystemCatalog } from './system-catalog/index.js';
export { fullRefreshReasonOf, planRefresh, type RefreshInput, type RefreshPlan, type RefreshRequest, type RefreshStatement } from './materialized-view/plan-refresh.js';
export type { NetChangeCheck } from './materialized-view/refresh-statements.js';
export { freshnessOf, refreshModeOf } from './materialized-view/view-options.js';
export type { RefreshTarget } from './materialized-view/refresh-statements.js';
export { splitQualifiedName } from './binder/resolve-relation.js';
export type { OfferedView } from './materialized-view/rewrite-with-views.js';
