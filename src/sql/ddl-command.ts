import type { SqlType } from '../common/sql-type.js';
import type { AlterTableChange, EnumLabelPosition, IndexKey, OptimizerGroup, SchedulingPolicy, SequenceOptions, TableConstraint, ViewDefinition } from '../lake/index.js';
import type { ParsedStatement } from './parsed-statement.js';
import type { PublicationDdl } from './publication-ddl.js';

/** A partition field as src/lake's PartitionField spells it (src/lake/partition/partition-transform.ts). */
export interface PartitionFieldSpec {
  readonly sourceColumn: string;
  readonly transform:
    | { readonly kind: 'identity' }
    | { readonly kind: 'year' | 'month' | 'day' | 'hour' }
    | { readonly kind: 'truncate'; readonly width: number }
    | { readonly kind: 'bucket'; readonly buckets: number };
  /** Partition field name: the column for identity, else `<column>_<transform>` (Iceberg's convention). */
  readonly name: string;
}

export interface ColumnSpec {
  readonly name: string;
  readonly type: SqlType;
  readonly nullable: boolean;
  /** DEFAULT as SQL text (checked by binding it at CREATE time). */
  readonly defaultExpr?: string;
  /** serial / bigserial / smallserial, or GENERATED … AS IDENTITY: the table owns a sequence made with it. */
  readonly sequence?: { readonly kind: 'serial' | 'always' | 'byDefault'; readonly options: SequenceOptions };
}

/** OWNED BY table.column. */
export interface SequenceOwnerSpec {
  readonly table: TableName;
  readonly column: string;
}

/** UNIQUE (a, b) as written; an unnamed one is named by the session as PostgreSQL names it (`t_a_b_key`). */
export interface UniqueSpec {
  readonly name?: string;
  readonly columns: readonly string[];
  readonly nullsNotDistinct: boolean;
  /** DEFERRABLE [INITIALLY IMMEDIATE | DEFERRED]; absent: NOT DEFERRABLE. */
  readonly deferrable?: 'immediate' | 'deferred';
}

/** How a view came to be temporary: TEMP / pg_temp as written, or by reading a temporary relation. */
export type ViewTemporariness = 'explicit' | 'implied';

/** A temporary table's ON COMMIT action (PRESERVE ROWS when none is written). */
export interface TemporaryTableSpec {
  readonly onCommit: 'preserveRows' | 'deleteRows' | 'drop';
}

/** A table name as resolved against search_path (namespace is always filled in). */
export interface TableName {
  readonly namespace: string;
  readonly name: string;
}

export type AlterTableAction =
  | {
      readonly kind: 'addColumn';
      readonly column: ColumnSpec;
      readonly ifNotExists: boolean;
      /** CHECK / REFERENCES written on the column, added with it. */
      readonly constraints?: readonly TableConstraint[];
    }
  | { readonly kind: 'dropColumn'; readonly name: string; readonly ifExists: boolean }
  // RENAME COLUMN (with the CHECK texts it rewrites) and ALTER COLUMN as src/lake applies them.
  | Extract<AlterTableChange, { kind: 'renameColumn' | 'alterColumn' }>
  | { readonly kind: 'addConstraint'; readonly constraint: TableConstraint }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists: boolean }
  | { readonly kind: 'renameTable'; readonly to: string }
  | Extract<AlterTableChange, { kind: 'renameConstraint' }>
  | { readonly kind: 'setProperties'; readonly properties: Readonly<Record<string, string>> }
  | { readonly kind: 'resetProperties'; readonly keys: readonly string[] }
  | { readonly kind: 'addUnique'; readonly spec: UniqueSpec }
  | { readonly kind: 'dropConstraint'; readonly name: string; readonly ifExists: boolean }
  | {
      readonly kind: 'createRef';
      readonly refKind: 'branch' | 'tag';
      readonly name: string;
      readonly orReplace: boolean;
      readonly ifNotExists: boolean;
      /** AS OF VERSION n: the snapshot to start from (else the current main head). */
      readonly fromSnapshot?: bigint;
      /** RETAIN n DAYS|HOURS|MINUTES, in microseconds. */
      readonly retainMicros?: bigint;
    }
  | { readonly kind: 'dropRef'; readonly refKind: 'branch' | 'tag'; readonly name: string; readonly ifExists: boolean }
  // ADD PRIMARY KEY: the lake rewrites the table into the keyed layout.
  | Extract<AlterTableChange, { kind: 'addPrimaryKey' }>;

/** A materialized view's table column: the query's (hidden false), then its key and state. */
export interface MaterializedViewColumn {
  readonly name: string;
  readonly type: SqlType;
  readonly hidden: boolean;
}

/** CREATE / REFRESH / DROP / ALTER MATERIALIZED VIEW (issue 31). */
export type MaterializedViewDdl =
  | {
      readonly kind: 'createMaterializedView';
      readonly view: TableName;
      readonly ifNotExists: boolean;
      readonly columns: readonly MaterializedViewColumn[];
      /** The query after AS, as written. */
      readonly definition: string;
      readonly searchPath: readonly string[];
      readonly dependsOn: readonly number[];
      readonly options: readonly string[];
      readonly withData: boolean;
      /** Why its refreshes are full ones; absent when they can be incremental. */
      readonly fullRefreshReason?: string;
      /** refresh = 'auto' over a query refreshed in full: the NOTICE saying why. */
      readonly notice?: string;
    }
  | { readonly kind: 'refreshMaterializedView'; readonly view: TableName; readonly concurrently: boolean; readonly withData: boolean }
  | { readonly kind: 'dropMaterializedView'; readonly views: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean }
  | {
      /** ALTER MATERIALIZED VIEW … SET (…) / RESET (…). */
      readonly kind: 'alterMaterializedView';
      readonly view: TableName;
      readonly ifExists: boolean;
      readonly options: (current: readonly string[]) => string[];
    };

/** Schema-changing statements; the session runs them against src/lake. */
export type DdlCommand =
  | MaterializedViewDdl
  | { readonly kind: 'createSchema'; readonly name: string; readonly ifNotExists: boolean }
  | { readonly kind: 'dropSchema'; readonly names: readonly string[]; readonly ifExists: boolean; readonly cascade: boolean }
  | {
      readonly kind: 'createTable';
      readonly table: TableName;
      readonly ifNotExists: boolean;
      readonly columns: readonly ColumnSpec[];
      readonly primaryKey: readonly string[];
      readonly partitionBy: readonly PartitionFieldSpec[];
      /** WITH (key = value, …): keys lower-cased, values as text; validated by src/lake. */
      readonly properties: Readonly<Record<string, string>>;
      /** UNIQUE column and table constraints. */
      readonly unique?: readonly UniqueSpec[];
      /** CHECK and FOREIGN KEY constraints, named. */
      readonly constraints?: readonly TableConstraint[];
      /** CREATE TEMP TABLE: the table lives in the session's temporary schema (table.namespace is `pg_temp`). */
      readonly temporary?: TemporaryTableSpec;
    }
  | {
      readonly kind: 'createSequence';
      readonly sequence: TableName;
      readonly ifNotExists: boolean;
      readonly options: SequenceOptions;
      readonly ownedBy?: SequenceOwnerSpec;
    }
  | {
      readonly kind: 'alterSequence';
      readonly sequence: TableName;
      readonly ifExists: boolean;
      readonly options: SequenceOptions;
      /** OWNED BY t.c, or null for OWNED BY NONE. */
      readonly ownedBy?: SequenceOwnerSpec | null;
      readonly rename?: string;
    }
  | { readonly kind: 'dropSequence'; readonly sequences: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean }
  | { readonly kind: 'dropTable'; readonly tables: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean; /** As the statement spelled them, for messages. */ readonly writtenNames?: readonly string[] }
  | {
      readonly kind: 'alterTable';
      readonly table: TableName;
      readonly ifExists: boolean;
      readonly actions: readonly AlterTableAction[];
      /** The statement's tag when it is not ALTER TABLE (ALTER MATERIALIZED VIEW … RENAME). */
      readonly tag?: string;
    }
  | {
      /** CREATE [UNIQUE] INDEX; a plain index is accepted and not built (scans prune by file statistics). */
      readonly kind: 'createIndex';
      readonly table: TableName;
      readonly name?: string;
      readonly columns: readonly string[];
      readonly unique: boolean;
      readonly nullsNotDistinct: boolean;
      readonly ifNotExists: boolean;
      /** USING method, lower-cased (btree when omitted). */
      readonly method: string;
      /** Every key as written (columns and expression texts, with sort orders); `columns` is its plain columns. */
      readonly keys: readonly IndexKey[];
      readonly include: readonly string[];
      /** WHERE of a partial index, as written. */
      readonly predicate?: string;
      /** The columns the key expressions and the predicate read. */
      readonly expressionColumns: readonly string[];
    }
  | { readonly kind: 'dropIndex'; readonly names: readonly { readonly schema?: string; readonly name: string }[]; readonly ifExists: boolean }
  | OptimizerGroupDdl
  | SubscriptionDdl
  | ViewDdl
  | TypeDdl
  | PublicationDdl
  | RoleDdl
  | PrivilegeDdl
  | PolicyDdl;

/** Row-level security: CREATE / ALTER / DROP POLICY and ALTER TABLE … ROW LEVEL SECURITY. Expressions are the SQL text written. */
export type PolicyDdl =
  | {
      readonly kind: 'createPolicy'; readonly name: string; readonly table: TableName; readonly permissive: boolean;
      readonly command: 'all' | 'select' | 'insert' | 'update' | 'delete'; readonly roles: readonly RoleRef[];
      readonly using?: string; readonly check?: string;
    }
  | {
      readonly kind: 'alterPolicy'; readonly name: string; readonly table: TableName; readonly rename?: string;
      readonly roles?: readonly RoleRef[]; readonly using?: string; readonly check?: string;
    }
  | { readonly kind: 'dropPolicy'; readonly name: string; readonly table: TableName; readonly ifExists: boolean; /** The table as written, for the IF EXISTS notice. */ readonly written: string }
  | { readonly kind: 'rowSecurity'; readonly table: TableName; readonly enabled?: boolean; readonly forced?: boolean };

/** One privilege of GRANT / REVOKE as written: its name, lower-cased, and the columns it names, if any. */
export interface PrivilegeSpec {
  readonly name: string;
  readonly columns?: readonly string[];
}

/** A relation named in GRANT / REVOKE: found through search_path when unqualified. */
export interface RelationRef {
  readonly schema?: string;
  readonly name: string;
}

/** GRANT / REVOKE on objects, and ALTER … OWNER TO. */
export type PrivilegeDdl =
  | {
      readonly kind: 'grant' | 'revoke';
      /** What ON names: TABLE (tables, views, sequences), SEQUENCE, TYPE, SCHEMA or DATABASE. */
      readonly objectKind: 'table' | 'sequence' | 'type' | 'schema' | 'database';
      /** The relations, or the types, named. */
      readonly relations: readonly RelationRef[];
      /** Schema or database names. */
      readonly names: readonly string[];
      /** ON ALL TABLES | SEQUENCES IN SCHEMA s, …: every such relation of these schemas. */
      readonly allInSchemas?: readonly string[];
      /** 'all': ALL [PRIVILEGES], with its column list if it has one. */
      readonly privileges: readonly PrivilegeSpec[] | { readonly all: true; readonly columns?: readonly string[] };
      readonly grantees: readonly RoleRef[];
      /** WITH GRANT OPTION; REVOKE GRANT OPTION FOR. */
      readonly grantOption: boolean;
      readonly cascade: boolean;
      readonly grantedBy?: RoleRef;
    }
  | { readonly kind: 'alterOwner'; readonly objectKind: 'table' | 'view' | 'materialized view' | 'sequence' | 'schema'; readonly relation?: RelationRef; readonly name?: string; readonly owner: RoleRef }
  | {
      /** ALTER DEFAULT PRIVILEGES [FOR ROLE …] [IN SCHEMA …] GRANT | REVOKE … ON TABLES | SEQUENCES | TYPES | SCHEMAS. */
      readonly kind: 'alterDefaultPrivileges';
      /** FOR ROLE; empty: the current role. */
      readonly roles: readonly RoleRef[];
      /** IN SCHEMA; empty: every schema. */
      readonly schemas: readonly string[];
      readonly isGrant: boolean;
      readonly objectKind: 'table' | 'sequence' | 'type' | 'schema';
      readonly privileges: readonly PrivilegeSpec[] | { readonly all: true };
      readonly grantees: readonly RoleRef[];
      readonly grantOption: boolean;
      readonly cascade: boolean;
    };

/** A role named in a statement: a name, or one of the special role specifications. */
export type RoleRef =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'current_user' | 'session_user' | 'current_role' | 'public' };

/** CREATE / ALTER ROLE options as written (undefined: not given). */
export interface RoleOptions {
  readonly superuser?: boolean;
  readonly createDb?: boolean;
  readonly createRole?: boolean;
  readonly inherit?: boolean;
  readonly canLogin?: boolean;
  readonly replication?: boolean;
  readonly bypassRls?: boolean;
  readonly connectionLimit?: number;
  /** PASSWORD 'text' (hashed by the session unless already a verifier); null: PASSWORD NULL. */
  readonly password?: string | null;
  /** VALID UNTIL as written: a timestamptz in the session's TimeZone, or 'infinity'. */
  readonly validUntil?: string;
  /** IN ROLE: roles the new role joins. */
  readonly inRoles?: readonly string[];
  /** ROLE / USER: roles that join the new role. */
  readonly members?: readonly string[];
  /** ADMIN: roles that join the new role with ADMIN OPTION. */
  readonly adminMembers?: readonly string[];
}

/** CREATE / ALTER / DROP ROLE | USER | GROUP, ALTER ROLE … RENAME, GRANT role TO, REVOKE role FROM. */
export type RoleDdl =
  | { readonly kind: 'createRole'; readonly name: string; readonly options: RoleOptions }
  | { readonly kind: 'alterRole'; readonly role: RoleRef; readonly options: RoleOptions }
  | { readonly kind: 'renameRole'; readonly from: string; readonly to: string }
  | { readonly kind: 'dropRole'; readonly roles: readonly RoleRef[]; readonly ifExists: boolean }
  | {
      readonly kind: 'grantRole' | 'revokeRole';
      readonly roles: readonly string[];
      readonly grantees: readonly RoleRef[];
      /** GRANT … WITH ADMIN OPTION; REVOKE ADMIN OPTION FOR. */
      readonly adminOption: boolean;
      readonly grantedBy?: RoleRef;
      readonly cascade: boolean;
    };

/** Views, derived tables, COMMENT ON and SET SCHEMA (issue 25). */
export type ViewDdl =
  | ({
      readonly kind: 'createView';
      readonly view: TableName;
      readonly orReplace: boolean;
      /** A temporary view (view.namespace is `pg_temp`); 'implied' when it reads a temporary relation (PostgreSQL's NOTICE). */
      readonly temporary?: ViewTemporariness;
    } & Pick<ViewDefinition, 'definition' | 'columns' | 'searchPath' | 'dependsOn' | 'options'>)
  | { readonly kind: 'dropView'; readonly views: readonly TableName[]; readonly ifExists: boolean; readonly cascade: boolean }
  | {
      /** ALTER VIEW … RENAME TO / SET SCHEMA (and ALTER TABLE naming a view). */
      readonly kind: 'alterView';
      readonly view: TableName;
      readonly ifExists: boolean;
      readonly rename?: string;
      readonly setSchema?: string;
      /** The name as written (schema-qualified if it was), for the error when there is no such relation. */
      readonly writtenName?: string;
      /** SET (…) / RESET (…): the view's options after (view-options.ts), from the options it has. */
      readonly options?: (current: readonly string[]) => string[];
      /** The statement's own word (ALTER VIEW or ALTER TABLE), for the tag. */
      readonly tag: string;
    }
  | { readonly kind: 'setTableSchema'; readonly table: TableName; readonly schema: string; readonly ifExists: boolean; readonly tag?: string }
  | {
      /** CREATE TABLE … AS / SELECT … INTO: the table, then (unless WITH NO DATA) `insert` fills it. */
      readonly kind: 'createTableAs';
      readonly table: TableName;
      readonly ifNotExists: boolean;
      readonly columns: readonly ColumnSpec[];
      readonly primaryKey: readonly string[];
      readonly properties: Readonly<Record<string, string>>;
      /** INSERT INTO table <the query>, bound once the table exists; undefined for WITH NO DATA. */
      readonly insert: ParsedStatement | undefined;
      /** CREATE TEMP TABLE … AS / SELECT … INTO TEMP: table.namespace is `pg_temp`. */
      readonly temporary?: TemporaryTableSpec;
      /** The query's $1..$n (a client's extended protocol binds them to the CREATE TABLE AS). */
      readonly paramTypes?: readonly SqlType[];
    }
  | {
      readonly kind: 'comment';
      /** The relation (and column) commented on; objectKind is what the statement called it. */
      readonly relation: TableName;
      readonly objectKind: 'table' | 'view' | 'materialized view' | 'column';
      readonly column?: string;
      readonly text: string | null;
    };

/** CREATE / ALTER / DROP OPTIMIZER GROUP, options checked by src/lake's rules (CREATE's defaults: 1 thread, quota). */
export type OptimizerGroupDdl =
  | { readonly kind: 'createOptimizerGroup'; readonly group: OptimizerGroup; readonly ifNotExists: boolean }
  | { readonly kind: 'alterOptimizerGroup'; readonly name: string; readonly change: { readonly threads?: number; readonly schedulingPolicy?: SchedulingPolicy } }
  | { readonly kind: 'dropOptimizerGroup'; readonly name: string; readonly ifExists: boolean };

/** A type named in DDL: where search_path found it (or the creation schema), and as written for messages. */
export interface TypeNameRef {
  readonly type: TableName;
  readonly written: string;
}

/** ALTER TYPE's actions on an enum (or any user type, for RENAME / SET SCHEMA / OWNER). */
export type AlterTypeAction =
  | { readonly kind: 'addValue'; readonly label: string; readonly position: EnumLabelPosition; readonly ifNotExists: boolean }
  | { readonly kind: 'renameValue'; readonly from: string; readonly to: string }
  | { readonly kind: 'rename'; readonly to: string }
  | { readonly kind: 'setSchema'; readonly schema: string }
  | { readonly kind: 'ownerTo'; readonly role: string };

/** CREATE TYPE … AS ENUM, CREATE TYPE name (a shell), ALTER TYPE, DROP TYPE (issue 25). */
export type TypeDdl =
  | { readonly kind: 'createType'; readonly type: TableName; /** undefined: a shell type. */ readonly labels: readonly string[] | undefined }
  | { readonly kind: 'alterType'; readonly target: TypeNameRef; readonly action: AlterTypeAction }
  | { readonly kind: 'dropType'; readonly types: readonly TypeNameRef[]; readonly ifExists: boolean; readonly cascade: boolean };

/** One WITH option of a subscription statement as written (no argument: 'true', as PostgreSQL's defGetBoolean reads it). */
export interface SubscriptionOption {
  readonly name: string;
  readonly value: string;
}

/** ALTER SUBSCRIPTION's forms (RENAME and OWNER TO are not among them). */
export type AlterSubscriptionAction =
  | { readonly kind: 'enable' }
  | { readonly kind: 'disable' }
  | { readonly kind: 'refresh'; readonly options: readonly SubscriptionOption[] }
  | { readonly kind: 'setOptions'; readonly options: readonly SubscriptionOption[] }
  | { readonly kind: 'connection'; readonly conninfo: string }
  | { readonly kind: 'setPublication' | 'addPublication' | 'dropPublication'; readonly publications: readonly string[]; readonly options: readonly SubscriptionOption[] };

/** CREATE / ALTER / DROP SUBSCRIPTION (CDC in, issue 27): PostgreSQL's grammar; options are checked by src/service/subscriptions. */
export type SubscriptionDdl =
  | {
      readonly kind: 'createSubscription'; readonly name: string; readonly conninfo: string;
      readonly publications: readonly string[]; readonly options: readonly SubscriptionOption[];
    }
  | { readonly kind: 'alterSubscription'; readonly name: string; readonly action: AlterSubscriptionAction }
  | { readonly kind: 'dropSubscription'; readonly name: string; readonly ifExists: boolean };
