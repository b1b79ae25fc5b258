/**
 * Roles as the catalog keeps them (PostgreSQL's pg_authid and pg_auth_members). A role
 * is a user when it may log in; the password is only ever a verifier
 * ("SCRAM-SHA-256$…" or "md5…"), never the text itself.
 */

/** pg_authid's oid of the bootstrap superuser, whatever its name (`floe` unless `--superuser` said otherwise). */
export const BOOTSTRAP_SUPERUSER_OID = 10;

/** PostgreSQL 15's predefined roles, with their oids: they exist in every catalog and cannot log in. */
export const PREDEFINED_ROLES: readonly { readonly oid: number; readonly name: string }[] = [
  { oid: 3373, name: 'pg_monitor' }, { oid: 3374, name: 'pg_read_all_settings' }, { oid: 3375, name: 'pg_read_all_stats' },
  { oid: 3377, name: 'pg_stat_scan_tables' }, { oid: 4200, name: 'pg_signal_backend' }, { oid: 4544, name: 'pg_checkpoint' },
  { oid: 4569, name: 'pg_read_server_files' }, { oid: 4570, name: 'pg_write_server_files' }, { oid: 4571, name: 'pg_execute_server_program' },
  { oid: 6171, name: 'pg_database_owner' }, { oid: 6181, name: 'pg_read_all_data' }, { oid: 6182, name: 'pg_write_all_data' },
];

/** Predefined roles whose members read (SELECT) or write (INSERT, UPDATE, DELETE) every table, with USAGE on every schema. */
export const PG_READ_ALL_DATA_OID = 6181;
export const PG_WRITE_ALL_DATA_OID = 6182;

/** The name the first start gives the bootstrap superuser when none is asked for. */
export const DEFAULT_BOOTSTRAP_SUPERUSER = 'floe';

export interface RoleAttributes {
  readonly superuser: boolean;
  readonly inherit: boolean;
  readonly createRole: boolean;
  readonly createDb: boolean;
  readonly canLogin: boolean;
  readonly replication: boolean;
  readonly bypassRls: boolean;
  /** -1: no limit. */
  readonly connectionLimit: number;
  /** A SCRAM-SHA-256 or md5 verifier; null: no password (password methods always fail). */
  readonly password: string | null;
  /** VALID UNTIL: the password stops working after this; null: forever. */
  readonly validUntilMicros: bigint | null;
}

export interface RoleRecord extends RoleAttributes {
  readonly oid: number;
  readonly name: string;
}

/** One GRANT role TO member (pg_auth_members). */
export interface RoleMembership {
  readonly roleOid: number;
  readonly memberOid: number;
  readonly grantorOid: number;
  readonly adminOption: boolean;
}

/** CREATE ROLE's defaults, as PostgreSQL's (CREATE USER differs only in LOGIN). */
export const DEFAULT_ROLE_ATTRIBUTES: RoleAttributes = {
  superuser: false, inherit: true, createRole: false, createDb: false, canLogin: false, replication: false,
  bypassRls: false, connectionLimit: -1, password: null, validUntilMicros: null,
};
