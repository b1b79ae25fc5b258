import type { StartupInfo } from '../common/session-handler.js';

/** server_version as clients see it: a PostgreSQL 15 version (clients gate features on it), then Floe's own. */
export const SERVER_VERSION = '15.18 (Floe 0.1.0)';
export const SERVER_VERSION_NUM = '150018';

/** Settings PostgreSQL reports with ParameterStatus, by lower-case name → the spelling PostgreSQL sends. */
export const REPORTED_SETTINGS: Readonly<Record<string, string>> = {
  server_version: 'server_version',
  server_version_num: 'server_version_num',
  server_encoding: 'server_encoding',
  client_encoding: 'client_encoding',
  datestyle: 'DateStyle',
  integer_datetimes: 'integer_datetimes',
  standard_conforming_strings: 'standard_conforming_strings',
  timezone: 'TimeZone',
  intervalstyle: 'IntervalStyle',
  application_name: 'application_name',
  is_superuser: 'is_superuser',
  session_authorization: 'session_authorization',
  default_transaction_read_only: 'default_transaction_read_only',
  in_hot_standby: 'in_hot_standby',
  search_path: 'search_path',
};

/** SHOW's column name: PostgreSQL's own spelling of the setting. */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  ...REPORTED_SETTINGS,
  transaction_isolation: 'transaction_isolation',
};

export function displayName(name: string): string {
  return DISPLAY_NAMES[name] ?? name;
}

export function defaultSettings(startup: StartupInfo): Map<string, string> {
  return new Map<string, string>([
    ['server_version', SERVER_VERSION],
    ['server_version_num', SERVER_VERSION_NUM],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['datestyle', 'ISO, MDY'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['timezone', 'UTC'],
    ['intervalstyle', 'postgres'],
    ['application_name', ''],
    ['is_superuser', 'on'],
    ['session_authorization', startup.user],
    ['default_transaction_read_only', 'off'],
    ['in_hot_standby', 'off'],
    ['search_path', '"$user", public'],
    ['extra_float_digits', '1'],
    ['max_identifier_length', '63'],
    // pg_recvlogical reads it on connecting (PostgreSQL's default mode of a data directory).
    ['data_directory_mode', '0700'],
    ['lc_collate', 'C.UTF-8'],
    ['lc_ctype', 'C.UTF-8'],
    ['lc_messages', 'C.UTF-8'],
    ['lc_monetary', 'C.UTF-8'],
    ['lc_numeric', 'C.UTF-8'],
    ['lc_time', 'C.UTF-8'],
    ['default_transaction_isolation', 'read committed'],
    ['transaction_isolation', 'read committed'],
    ['transaction_read_only', 'off'],
    ['statement_timeout', '0'],
    ['lock_timeout', '0'],
    ['idle_in_transaction_session_timeout', '0'],
    ['max_index_keys', '32'],
    ['block_size', '8192'],
    ['bytea_output', 'hex'],
    ['escape_string_warning', 'on'],
    ['client_min_messages', 'notice'],
    ['row_security', 'on'],
    ['max_connections', '100'],
    ['port', '5433'],
    ['work_mem', '4MB'],
    ['jit', 'off'],
  ]);
}

/** search_path text → schema names ("$user" kept, quotes removed). */
export function parseSearchPath(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => (s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s.toLowerCase()));
}
