import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SubscriptionOption } from '../../sql/index.js';

/** CREATE SUBSCRIPTION's WITH options after PostgreSQL's defaults and checks, plus Floe's create_tables. */
export interface CreateSubscriptionOptions {
  readonly connect: boolean;
  readonly enabled: boolean;
  readonly createSlot: boolean;
  /** undefined: slot_name = NONE. */
  readonly slotName: string | undefined;
  readonly copyData: boolean;
  /** Floe's option (default true): missing target tables are created from the source's columns and key. */
  readonly createTables: boolean;
  /** What the catalog keeps (pg_subscription's columns): binary, streaming, synchronous_commit, two_phase, disable_on_error, create_tables. */
  readonly stored: Readonly<Record<string, string>>;
}

type Kind = 'create' | 'set' | 'refresh' | 'publication';

/** Which options each statement takes (PostgreSQL 15's parse_subscription_options masks). */
const SUPPORTED: Readonly<Record<Kind, readonly string[]>> = {
  create: ['connect', 'enabled', 'create_slot', 'slot_name', 'copy_data', 'synchronous_commit', 'binary', 'streaming', 'two_phase', 'disable_on_error', 'create_tables'],
  set: ['slot_name', 'synchronous_commit', 'binary', 'streaming', 'disable_on_error'],
  refresh: ['copy_data'],
  publication: ['refresh', 'copy_data'],
};

const BOOLEAN = new Set(['connect', 'enabled', 'create_slot', 'copy_data', 'binary', 'streaming', 'two_phase', 'disable_on_error', 'create_tables', 'refresh']);

const STORED_DEFAULTS: Readonly<Record<string, string>> = {
  binary: 'false', streaming: 'false', synchronous_commit: 'off', two_phase: 'false', disable_on_error: 'false', create_tables: 'true',
};

function syntaxError(message: string): FloeError {
  return new FloeError(SqlState.syntaxError, message);
}

/** PostgreSQL's parse_bool: true/false, yes/no, on/off, 1/0, and unique prefixes of them. */
export function parseBoolOption(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v.length > 0) {
    if ('true'.startsWith(v) || 'yes'.startsWith(v) || v === 'on' || v === '1') return true;
    if ('false'.startsWith(v) || 'no'.startsWith(v) || v === 'off' || v === '0') return false;
  }
  throw syntaxError(`${name} requires a Boolean value`);
}

/** The options as given, checked against the statement's set: unknown 42601, twice 42601, Booleans parsed. */
function readOptions(kind: Kind, options: readonly SubscriptionOption[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of options) {
    if (!SUPPORTED[kind].includes(o.name)) throw syntaxError(`unrecognized subscription parameter: "${o.name}"`);
    if (out.has(o.name)) throw syntaxError('conflicting or redundant options');
    let value = o.value;
    if (BOOLEAN.has(o.name)) value = String(parseBoolOption(o.name, o.value));
    if (o.name === 'slot_name') value = o.value.toLowerCase() === 'none' ? 'none' : o.value;
    if (o.name === 'slot_name' && value !== 'none') checkSlotName(value);
    if (o.name === 'synchronous_commit' && !['local', 'remote_write', 'remote_apply', 'on', 'off'].includes(value)) {
      throw new FloeError(SqlState.invalidParameterValue, `invalid value for parameter "synchronous_commit": "${value}"`);
    }
    out.set(o.name, value);
  }
  return out;
}

/** PostgreSQL's ReplicationSlotValidateName: lower-case letters, digits and underscores, 1 to 63 of them. */
export function checkSlotName(name: string): void {
  if (name.length === 0) throw new FloeError(SqlState.invalidName, `replication slot name "${name}" is too short`);
  if (name.length > 63) throw new FloeError(SqlState.nameTooLong, `replication slot name "${name}" is too long`);
  if (!/^[a-z0-9_]+$/.test(name)) {
    throw new FloeError(SqlState.invalidName, `replication slot name "${name}" contains invalid character`, {
      hint: 'Replication slot names may only contain lower case letters, numbers, and the underscore character.',
    });
  }
}

/** CREATE SUBSCRIPTION name … WITH (…): PostgreSQL's defaults and mutually exclusive pairs. */
export function createSubscriptionOptions(name: string, options: readonly SubscriptionOption[]): CreateSubscriptionOptions {
  const o = readOptions('create', options);
  const flag = (k: string, dflt: boolean) => (o.has(k) ? o.get(k) === 'true' : dflt);
  const connect = flag('connect', true);
  let enabled = flag('enabled', true);
  let createSlot = flag('create_slot', true);
  let copyData = flag('copy_data', true);
  if (!connect) {
    for (const k of ['enabled', 'create_slot', 'copy_data']) {
      if (o.get(k) === 'true') throw syntaxError(`connect = false and ${k} = true are mutually exclusive options`);
    }
    enabled = false;
    createSlot = false;
    copyData = false;
  }
  const slotNone = o.get('slot_name') === 'none';
  if (slotNone) {
    if (o.get('enabled') === 'true') throw syntaxError('slot_name = NONE and enabled = true are mutually exclusive options');
    if (o.get('create_slot') === 'true') throw syntaxError('slot_name = NONE and create_slot = true are mutually exclusive options');
    if (enabled) throw syntaxError('subscription with slot_name = NONE must also set enabled = false');
    if (createSlot) throw syntaxError('subscription with slot_name = NONE must also set create_slot = false');
  }
  if (!slotNone && !o.has('slot_name')) checkSlotName(name);
  const stored: Record<string, string> = { ...STORED_DEFAULTS };
  for (const k of Object.keys(STORED_DEFAULTS)) if (o.has(k)) stored[k] = o.get(k)!;
  return { connect, enabled, createSlot, slotName: slotNone ? undefined : (o.get('slot_name') ?? name), copyData, createTables: stored.create_tables === 'true', stored };
}

/** ALTER SUBSCRIPTION … SET (…): the stored options it changes, and slot_name (null: NONE). */
export function setSubscriptionOptions(options: readonly SubscriptionOption[], enabled: boolean): { stored: Record<string, string>; slotName?: string | null } {
  const o = readOptions('set', options);
  const stored: Record<string, string> = {};
  for (const [k, v] of o) if (k !== 'slot_name') stored[k] = v;
  if (!o.has('slot_name')) return { stored };
  const slot = o.get('slot_name')!;
  if (slot === 'none' && enabled) throw new FloeError(SqlState.syntaxError, 'cannot set slot_name = NONE for enabled subscription');
  return { stored, slotName: slot === 'none' ? null : slot };
}

/** REFRESH PUBLICATION WITH (copy_data), and SET/ADD/DROP PUBLICATION WITH (refresh, copy_data). */
export function refreshOptions(kind: 'refresh' | 'publication', options: readonly SubscriptionOption[]): { refresh: boolean; copyData: boolean } {
  const o = readOptions(kind, options);
  return { refresh: o.get('refresh') !== 'false', copyData: o.get('copy_data') !== 'false' };
}
