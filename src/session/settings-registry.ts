import { DISABLED_OPTIMIZER_RULES, checkDisabledOptimizerRules } from './disabled-optimizer-rules.js';
import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';
import { formatDurationMs, parseDurationSetting } from '../common/duration-setting.js';
import { RUNTIME_FILTER_MAX_KEYS, RUNTIME_FILTER_MAX_KEYS_SETTING, RUNTIME_FILTERS_SETTING } from '../exec/index.js';
import { isolationText } from './transaction-isolation.js';
import { freshnessOf } from '../sql/index.js';
import { MV_MAX_STALENESS_SETTING, MV_REWRITE_SETTING } from './offered-materialized-views.js';

/**
 * Every setting Floe knows, as one declarative table in the manner of PostgreSQL's
 * guc_tables.c: SET/RESET/set_config check a value here, and SHOW, SHOW ALL,
 * pg_settings and the ParameterStatus messages read their facts from here. Names,
 * types, units and contexts are PostgreSQL 15's; test/session/settings-registry.test.ts
 * compares them with a live server. A name not in the table is still accepted by SET
 * and kept as text, as PostgreSQL keeps a custom option (psql scripts and pg_dump
 * output set options Floe has no use for).
 */

const CANT_CHANGE_RUNTIME_PARAM = '55P02';

/** pg_settings.vartype. */
export type SettingType = 'bool' | 'integer' | 'string' | 'enum';

/** pg_settings.context: who may change it. Floe's sessions are superuser, so superuser and user settings are both SET-able. */
export type SettingContext = 'internal' | 'postmaster' | 'sighup' | 'superuser' | 'user';

export interface SettingDefinition {
  /** The lower-case name settings are kept under. */
  readonly name: string;
  /** PostgreSQL's spelling (DateStyle, TimeZone): SHOW's column, pg_settings.name, the ParameterStatus name. */
  readonly display: string;
  readonly type: SettingType;
  /** pg_settings.unit: the unit of an integer setting's plain value (SHOW prints the best-fitting one). */
  readonly unit?: 'ms' | 'kB';
  readonly context: SettingContext;
  readonly category: string;
  readonly description: string;
  /** Sent with ParameterStatus at startup and whenever it changes (GUC_REPORT). */
  readonly reported?: boolean;
  /** Left out of SHOW ALL and pg_settings (GUC_NO_SHOW_ALL), as are Floe's own floe.* settings. */
  readonly hidden?: boolean;
  readonly enumValues?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** The boot value, as SHOW prints it; a function of the session for the few that depend on who connected. */
  readonly boot: string | ((user: string) => string);
  /** A value as SET gave it → the value kept, as SHOW prints it; throws 22023 for a bad one. */
  readonly check?: (name: string, value: string) => string;
}

/** server_version as clients see it: a PostgreSQL 15 version (clients gate features on it), then Floe's own. */
export const SERVER_VERSION = '15.18 (Floe 0.1.0)';
export const SERVER_VERSION_NUM = '150018';

/** Whether the audit trail records reads too (issue 30): superusers only may change it, so auditing cannot be turned down by whoever is audited. */
export const AUDIT_LOG_READS = 'audit.log_reads';

/** The setting that bounds one query's working set (sort buffers, hash tables). */
export const QUERY_MEMORY_LIMIT = 'floe.query_memory_limit';
export const DEFAULT_QUERY_MEMORY_LIMIT = '1GB';

/** Below this a query cannot hold even one batch; PostgreSQL's work_mem floor is 64kB, ours is one batch's worth. */
const MIN_QUERY_MEMORY_BYTES = 1024 * 1024;

const MEMORY_UNITS: Readonly<Record<string, number>> = {
  B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4,
};

/**
 * A memory setting's text → bytes, with PostgreSQL's memory-unit spelling
 * (case-sensitive units, kB when no unit is given as for work_mem).
 */
export function parseMemorySetting(name: string, text: string, minBytes = MIN_QUERY_MEMORY_BYTES): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  const unit = m?.[2] === '' ? 'kB' : m?.[2];
  const factor = unit === undefined ? undefined : MEMORY_UNITS[unit];
  if (!m || factor === undefined) {
    throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${text}"`, {
      hint: m ? 'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".' : undefined,
    });
  }
  const bytes = Math.round(Number(m[1]) * factor);
  if (bytes < minBytes || !Number.isSafeInteger(bytes)) {
    throw new FloeError(SqlState.invalidParameterValue, `${Math.floor(bytes / 1024)} kB is outside the valid range for parameter "${name}" (${minBytes / 1024} kB .. ${Math.floor(Number.MAX_SAFE_INTEGER / 1024)} kB)`);
  }
  return bytes;
}

/** A kB count as SHOW prints it: the largest unit that divides it ('4MB', '65kB'). */
function formatKb(kb: number): string {
  for (const [unit, per] of [['TB', 1024 ** 3], ['GB', 1024 ** 2], ['MB', 1024]] as const) if (kb !== 0 && kb % per === 0) return `${kb / per}${unit}`;
  return `${kb}kB`;
}

/** work_mem and its kin: a kB integer, at least 64kB as in PostgreSQL. */
function checkKb(name: string, value: string): string {
  return formatKb(Math.floor(parseMemorySetting(name, value, 64 * 1024) / 1024));
}

const TRUE_WORDS = /^\s*(on|true|yes|1|t|y)\s*$/i;
const FALSE_WORDS = /^\s*(off|false|no|0|f|n)\s*$/i;

function checkBool(name: string, value: string): string {
  if (TRUE_WORDS.test(value)) return 'on';
  if (FALSE_WORDS.test(value)) return 'off';
  throw new FloeError(SqlState.invalidParameterValue, `parameter "${name}" requires a Boolean value`);
}

/** An enum setting's check: one of its values, any case, kept lower-case. */
function checkEnum(values: readonly string[]): (name: string, value: string) => string {
  return (name, value) => {
    // Case-insensitive, answered in the canonical spelling (TLSv1.2), as PostgreSQL's enum settings are.
    const v = value.trim().toLowerCase();
    const found = values.find((x) => x.toLowerCase() === v);
    if (found !== undefined) return found;
    throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, { hint: `Available values: ${values.join(', ')}.` });
  };
}

function checkInteger(min: number, max: number): (name: string, value: string) => string {
  return (name, value) => {
    const m = /^\s*([+-]?\d+)\s*$/.exec(value);
    if (m === null) throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`);
    const n = Number(m[1]);
    if (n < min || n > max) throw new FloeError(SqlState.invalidParameterValue, `${n} is outside the valid range for parameter "${name}" (${min} .. ${max})`);
    return String(n);
  };
}

function checkDuration(name: string, value: string): string {
  return formatDurationMs(parseDurationSetting(name, value));
}

const ISOLATION_LEVELS = ['serializable', 'repeatable read', 'read committed', 'read uncommitted'];

// pg_settings categories, PostgreSQL's names.
const STATEMENT = 'Client Connection Defaults / Statement Behavior';
const LOCALE = 'Client Connection Defaults / Locale and Formatting';
const PRESET = 'Preset Options';
const CONNECTION = 'Connections and Authentication / Connection Settings';
const COMPATIBILITY = 'Version and Platform Compatibility / Previous PostgreSQL Versions';
const FLOE = 'Floe';
const SSL = 'Connections and Authentication / SSL';

/** ssl_min_protocol_version's values, as PostgreSQL spells them (node's TLS minVersion takes the same). */
export const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

type Row = Omit<SettingDefinition, 'name' | 'display'> & { readonly display?: string };

const bool = (boot: string, context: SettingContext, category: string, description: string, extra: Partial<Row> = {}): Row =>
  ({ type: 'bool', boot, context, category, description, check: checkBool, ...extra });
const text = (boot: SettingDefinition['boot'], context: SettingContext, category: string, description: string, extra: Partial<Row> = {}): Row =>
  ({ type: 'string', boot, context, category, description, ...extra });
const int = (boot: string, context: SettingContext, category: string, description: string, extra: Partial<Row> = {}): Row =>
  ({ type: 'integer', boot, context, category, description, ...extra });
const enumOf = (values: readonly string[], boot: string, category: string, description: string, extra: Partial<Row> = {}): Row =>
  ({ type: 'enum', boot, context: 'user', category, description, enumValues: values, check: checkEnum(values), ...extra });
const duration = (description: string, extra: Partial<Row> = {}): Row =>
  ({ type: 'integer', unit: 'ms', boot: '0', context: 'user', category: STATEMENT, description, min: 0, max: 2147483647, check: checkDuration, ...extra });

const TABLE: Readonly<Record<string, Row>> = {
  application_name: text('', 'user', 'Reporting and Logging / What to Log', 'Name of the client application, for pg_stat_activity.', { reported: true }),
  block_size: int('8192', 'internal', PRESET, 'Page size PostgreSQL reports (Floe stores Parquet files, not pages).', { min: 8192, max: 8192 }),
  bytea_output: enumOf(['escape', 'hex'], 'hex', STATEMENT, 'How bytea values are printed.'),
  client_encoding: text('UTF8', 'user', LOCALE, 'Client character set: UTF8 only.', {
    reported: true,
    check: (name, value) => {
      if (!/^(utf-?8|unicode)$/i.test(value)) throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, { detail: 'Floe speaks UTF8 only.' });
      return 'UTF8';
    },
  }),
  client_min_messages: enumOf(['debug5', 'debug4', 'debug3', 'debug2', 'debug1', 'log', 'notice', 'warning', 'error'], 'notice',
    'Reporting and Logging / When to Log', 'Lowest severity of message sent to the client.'),
  datestyle: text('ISO, MDY', 'user', LOCALE, 'Output format and field order of dates.', { display: 'DateStyle', reported: true }),
  default_transaction_isolation: enumOf(ISOLATION_LEVELS, 'read committed', STATEMENT, 'Isolation level of each new transaction.', { check: (_name, value) => isolationText(value) }),
  default_transaction_read_only: bool('off', 'user', STATEMENT, 'Whether new transactions start read-only.', { reported: true }),
  escape_string_warning: bool('on', 'user', COMPATIBILITY, 'Warn of backslash escapes in ordinary string literals.'),
  extra_float_digits: int('1', 'user', LOCALE, 'Digits of float output beyond the shortest exact form.', { min: -15, max: 3, check: checkInteger(-15, 3) }),
  idle_in_transaction_session_timeout: duration('Ends a session idle this long inside a transaction block (0 is never).'),
  idle_session_timeout: duration('Ends a session idle this long outside a transaction block (0 is never).'),
  in_hot_standby: bool('off', 'internal', PRESET, 'Whether the server is a hot standby.', { reported: true }),
  integer_datetimes: bool('on', 'internal', PRESET, 'Whether date and time values are 64-bit integers.', { reported: true }),
  intervalstyle: enumOf(['postgres', 'postgres_verbose', 'sql_standard', 'iso_8601'], 'postgres', LOCALE, 'Output format of intervals.', { display: 'IntervalStyle', reported: true }),
  is_superuser: bool('on', 'internal', 'Ungrouped', 'Whether the session user is a superuser.', { reported: true, hidden: true }),
  jit: bool('off', 'user', 'Query Tuning / Other Planner Options', 'JIT compilation (Floe has none).'),
  lc_collate: text('C.UTF-8', 'internal', PRESET, 'Collation order (Floe compares bytes).'),
  lc_ctype: text('C.UTF-8', 'internal', PRESET, 'Character classification.'),
  lc_messages: text('C.UTF-8', 'superuser', LOCALE, 'Language of messages.'),
  lc_monetary: text('C.UTF-8', 'user', LOCALE, 'Locale of money amounts.'),
  lc_numeric: text('C.UTF-8', 'user', LOCALE, 'Locale of numbers.'),
  lc_time: text('C.UTF-8', 'user', LOCALE, 'Locale of dates and times.'),
  lock_timeout: duration('Longest wait for a lock (0 is no limit).'),
  // A superuser setting, as in PostgreSQL: SET by other roles is 42501 (SessionContext.setSetting).
  log_min_duration_statement: duration('Sets the minimum execution time above which all statements will be logged.', {
    boot: '-1', context: 'superuser', category: 'Reporting and Logging / When to Log', min: -1,
  }),
  max_connections: int('100', 'postmaster', CONNECTION, 'Most concurrent connections.', { min: 1, max: 262143 }),
  max_identifier_length: int('63', 'internal', PRESET, 'Longest identifier, in bytes.', { min: 63, max: 63 }),
  // pg_recvlogical reads it on connecting (PostgreSQL's default mode of a data directory, shown in octal).
  data_directory_mode: int('0700', 'internal', PRESET, 'Mode of the data directory.'),
  max_index_keys: int('32', 'internal', PRESET, 'Most columns in an index key.', { min: 32, max: 32 }),
  password_encryption: enumOf(['md5', 'scram-sha-256'], 'scram-sha-256', 'Connections and Authentication / Authentication', 'Chooses the algorithm for encrypting passwords.'),
  port: int('5433', 'postmaster', CONNECTION, 'TCP port the server listens on.', { min: 1, max: 65535 }),
  role: text('none', 'user', 'Ungrouped', 'Sets the current role.', { hidden: true }),
  row_security: bool('on', 'user', STATEMENT, 'Enable row security.'),
  search_path: text('"$user", public', 'user', STATEMENT, 'Schemas searched for names not qualified by one.', { reported: true }),
  server_encoding: text('UTF8', 'internal', PRESET, 'Database character set.', { reported: true }),
  server_version: text(SERVER_VERSION, 'internal', PRESET, 'Server version.', { reported: true }),
  server_version_num: int(SERVER_VERSION_NUM, 'internal', PRESET, 'Server version as an integer.', { reported: true, min: Number(SERVER_VERSION_NUM), max: Number(SERVER_VERSION_NUM) }),
  session_authorization: text((user) => user, 'user', 'Ungrouped', 'Session user name.', { reported: true, hidden: true }),
  ssl: bool('off', 'sighup', SSL, 'Enables SSL connections.'),
  ssl_min_protocol_version: enumOf(TLS_VERSIONS, 'TLSv1.2', SSL, 'Sets the minimum SSL/TLS protocol version to use.', { context: 'sighup' }),
  standard_conforming_strings: bool('on', 'user', COMPATIBILITY, "Whether '...' strings treat backslashes literally.", { reported: true }),
  statement_timeout: duration('Cancels a statement running longer than this (0 is no limit).'),
  timezone: text('UTC', 'user', LOCALE, 'Time zone of displayed and interpreted time stamps.', {
    display: 'TimeZone', reported: true,
    check: (_name, value) => (/^(local|default)$/i.test(value) ? 'UTC' : value),
  }),
  transaction_isolation: enumOf(ISOLATION_LEVELS, 'read committed', STATEMENT, "The current transaction's isolation level.", { check: (_name, value) => isolationText(value) }),
  transaction_read_only: bool('off', 'user', STATEMENT, 'Whether the current transaction is read-only.'),
  work_mem: int('4MB', 'user', 'Resource Usage / Memory', 'Memory PostgreSQL clients expect a sort may use (Floe bounds a query by floe.query_memory_limit).', {
    unit: 'kB', min: 64, max: 2147483647, check: checkKb,
  }),
  'floe.backend_pid': int('0', 'internal', FLOE, 'This session\'s process id, as pg_backend_pid() reports it.', { hidden: true }),
  [MV_REWRITE_SETTING]: bool('on', 'user', FLOE, 'Whether a query matching a fresh-enough materialized view is answered from it.'),
  [MV_MAX_STALENESS_SETTING]: text('', 'user', FLOE, "How stale a materialized view may be to answer a query (an interval; empty: the view's own freshness).", {
    check: (name, value) => {
      if (value.trim() !== '') {
        try { freshnessOf([`freshness=${value}`]); } catch { throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, { hint: "An interval, such as '30 seconds'." }); }
      }
      return value;
    },
  }),
  [AUDIT_LOG_READS]: bool('off', 'superuser', FLOE, 'Whether the audit trail (audit.floe_audit) records SELECT and COPY TO too.', { hidden: true }),
  [QUERY_MEMORY_LIMIT]: text(DEFAULT_QUERY_MEMORY_LIMIT, 'user', FLOE, 'Working-set bound of one query (sort buffers, hash tables); past it, 53200.', {
    hidden: true,
    check: (name, value) => { parseMemorySetting(name, value); return value; },
  }),
  [DISABLED_OPTIMIZER_RULES]: text('', 'user', FLOE, 'Optimizer rules to skip, comma-separated (diagnosis and tests).', {
    hidden: true,
    check: (name, value) => { checkDisabledOptimizerRules(name, value); return value; },
  }),
  [RUNTIME_FILTERS_SETTING]: bool('on', 'user', FLOE, 'Whether hash joins filter their probe side\'s scans by the build side\'s keys.', { hidden: true }),
  [RUNTIME_FILTER_MAX_KEYS_SETTING]: int(String(RUNTIME_FILTER_MAX_KEYS), 'user', FLOE, 'Builds with more distinct keys than this get no runtime filter.', {
    hidden: true,
    check: (name, value) => {
      if (!/^\s*\d+\s*$/.test(value)) throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "${name}": "${value}"`, { hint: 'A whole number of keys, 0 or more, is expected.' });
      return value;
    },
  }),
};

const REGISTRY: ReadonlyMap<string, SettingDefinition> = new Map(
  Object.entries(TABLE).map(([name, row]): [string, SettingDefinition] => [name, { ...row, name, display: row.display ?? name }]),
);

/** The definition of a setting by its lower-case name, or undefined for a name Floe does not know. */
export function settingDefinition(name: string): SettingDefinition | undefined {
  return REGISTRY.get(name);
}

export function settingDefinitions(): Iterable<SettingDefinition> {
  return REGISTRY.values();
}

/** SHOW's column name and pg_settings.name: PostgreSQL's own spelling of the setting. */
export function displayName(name: string): string {
  return REGISTRY.get(name)?.display ?? name;
}

/** The name a ParameterStatus message carries, for a setting PostgreSQL reports to the client. */
export function reportedName(name: string): string | undefined {
  const def = REGISTRY.get(name);
  return def?.reported ? def.display : undefined;
}

/** Every setting's boot value, for a session of `user`. */
export function bootSettings(user: string): Map<string, string> {
  return new Map([...REGISTRY.values()].map((d): [string, string] => [d.name, typeof d.boot === 'string' ? d.boot : d.boot(user)]));
}

/** SET's value check: a bad value refuses (22023), a good one comes back in the form SHOW prints. */
export function checkSetting(name: string, value: string): string {
  const check = REGISTRY.get(name)?.check;
  return check === undefined ? value : check(name, value);
}

/** A setting only the server sets refuses any SET or RESET, as PostgreSQL's do (55P02). */
export function checkChangeable(name: string): void {
  const context = REGISTRY.get(name)?.context;
  if (context === 'internal') throw new FloeError(CANT_CHANGE_RUNTIME_PARAM, `parameter "${name}" cannot be changed`);
  if (context === 'postmaster') throw new FloeError(CANT_CHANGE_RUNTIME_PARAM, `parameter "${name}" cannot be changed without restarting the server`);
  if (context === 'sighup') throw new FloeError(CANT_CHANGE_RUNTIME_PARAM, `parameter "${name}" cannot be changed now`);
}

/** A pg_settings row (the view's columns, in its order). */
export type PgSettingsRow = {
  readonly name: string;
  readonly setting: string;
  readonly unit: string | null;
  readonly category: string;
  readonly short_desc: string;
  readonly extra_desc: null;
  readonly context: string;
  readonly vartype: string;
  readonly source: string;
  readonly min_val: string | null;
  readonly max_val: string | null;
  readonly enumvals: readonly string[] | null;
  readonly boot_val: string;
  readonly reset_val: string;
  readonly sourcefile: null;
  readonly sourceline: null;
  readonly pending_restart: false;
};

/** A value as pg_settings shows it: an integer with a unit in that unit, plainly ('3s' → '3000'). */
function plainValue(def: SettingDefinition, value: string): string {
  try {
    if (def.unit === 'ms') return String(parseDurationSetting(def.name, value));
    if (def.unit === 'kB') return String(Math.floor(parseMemorySetting(def.name, value, 0) / 1024));
  } catch {
    // A value the session holds always parses; a startup parameter might not.
  }
  return value;
}

/**
 * pg_settings's row for a setting the session holds: the table's facts for a known
 * one, text for a custom one. `boot` and `reset` are the server's and the session's
 * starting values.
 */
export function pgSettingsRow(name: string, value: string, boot: string | undefined, reset: string | undefined): PgSettingsRow {
  const def = REGISTRY.get(name);
  const common = { extra_desc: null, sourcefile: null, sourceline: null, pending_restart: false } as const;
  if (def === undefined) {
    return {
      ...common, name, setting: value, unit: null, category: 'Customized Options', short_desc: '', context: 'user', vartype: 'string',
      source: 'session', min_val: null, max_val: null, enumvals: null, boot_val: boot ?? '', reset_val: reset ?? value,
    };
  }
  const plain = (v: string | undefined) => (v === undefined ? '' : plainValue(def, v));
  return {
    ...common, name: def.display, setting: plainValue(def, value), unit: def.unit ?? null, category: def.category, short_desc: def.description,
    context: def.context, vartype: def.type, source: value === boot ? 'default' : 'session',
    min_val: def.min === undefined ? null : String(def.min), max_val: def.max === undefined ? null : String(def.max),
    enumvals: def.enumValues ?? null, boot_val: plain(boot), reset_val: plain(reset),
  };
}
