import type { SessionEvents, StartupInfo } from '../common/session-handler.js';
import { formatDurationMs, isDurationSetting, parseDurationSetting } from '../common/duration-setting.js';
import { DEFAULT_QUERY_MEMORY_LIMIT, QUERY_MEMORY_LIMIT, bootSettings, checkChangeable, checkSetting, displayName, pgSettingsRow, reportedName, settingDefinition } from './settings-registry.js';
import type { PgSettingsRow } from './settings-registry.js';
import type { Txn } from './transaction-state.js';

/**
 * Settings a StartupMessage carries: its parameters, plus `options` (-c name=value
 * / --name=value, as PGOPTIONS sends them). Floe speaks UTF8 only, so
 * client_encoding is reported as UTF8 whatever was asked, and a bare DateStyle
 * gets PostgreSQL's default order.
 */
function startupSettings(parameters: Readonly<Record<string, string>>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(parameters)) {
    const name = k.toLowerCase();
    if (name === 'user' || name === 'database' || name === 'replication') continue;
    if (name === 'options') {
      const re = /(?:-c\s*|--)([A-Za-z_.][\w.-]*)=((?:\\ |\S)*)/g;
      for (const m of v.matchAll(re)) out.push([m[1]!.toLowerCase().replaceAll('-', '_'), m[2]!.replaceAll('\\ ', ' ')]);
      continue;
    }
    out.push([name, v]);
  }
  return out.map(([name, v]): [string, string] => {
    if (name === 'client_encoding') return [name, 'UTF8'];
    if (name === 'datestyle' && !v.includes(',')) return [name, /^(iso|sql|postgres|german)$/i.test(v) ? `${v.toUpperCase() === 'POSTGRES' ? 'Postgres' : v.toUpperCase()}, MDY` : v];
    return [name, v];
  });
}

/** Settings session-identity.ts owns: SET ROLE and SET SESSION AUTHORIZATION change them, with their checks. */
export const IDENTITY_SETTINGS: ReadonlySet<string> = new Set(['role', 'session_authorization', 'is_superuser']);

/** search_path text → schema names ("$user" kept, quotes removed). */
export function parseSearchPath(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => (s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s.toLowerCase()));
}

export interface SessionSettingsOptions {
  readonly startup: StartupInfo;
  /** Port the server listens on, reported by SHOW port. */
  readonly port?: number;
  /** The server's default for floe.query_memory_limit. */
  readonly queryMemoryLimit?: string;
  /** Server defaults of other settings (checked values), which RESET returns to. */
  readonly serverSettings?: ReadonlyMap<string, string>;
  /** The client's events (ParameterStatus), once the session has started. */
  readonly events: () => SessionEvents | undefined;
  /** The open transaction block, which remembers values to restore (settings are transactional). */
  readonly txn: () => Txn | undefined;
}

/**
 * One session's settings: the values in force (what the executor reads), the values
 * RESET returns to (the registry's boot values overlaid with the server's and the
 * StartupMessage's), and the bookkeeping that makes SET transactional and tells the
 * client of a reported setting's change. The facts about each setting are in
 * settings-registry.ts.
 */
export class SessionSettings {
  /** Values in force by lower-case name; the executor reads them (current_setting, timezone, …). */
  readonly values: Map<string, string>;
  readonly #boot: ReadonlyMap<string, string>;
  readonly #reset: ReadonlyMap<string, string>;
  readonly #options: SessionSettingsOptions;

  constructor(options: SessionSettingsOptions) {
    this.#options = options;
    const { startup } = options;
    this.#boot = bootSettings(startup.user);
    this.values = new Map(this.#boot);
    if (options.port !== undefined) this.values.set('port', String(options.port));
    this.values.set('floe.backend_pid', String(startup.processId));
    this.values.set(QUERY_MEMORY_LIMIT, options.queryMemoryLimit ?? DEFAULT_QUERY_MEMORY_LIMIT);
    for (const [name, v] of options.serverSettings ?? []) this.values.set(name, v);
    for (const [name, v] of startupSettings(startup.parameters)) this.values.set(name, isDurationSetting(name) ? formatDurationMs(parseDurationSetting(name, v)) : v);
    this.#reset = new Map(this.values);
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  /** The reported settings' values by their wire names, for the startup's ParameterStatus messages. */
  reported(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, v] of this.values) {
      const wireName = reportedName(name);
      if (wireName !== undefined) out[wireName] = v;
    }
    return out;
  }

  /** Puts a value in force: remembered for a rollback, and sent to the client when PostgreSQL reports the setting. */
  assign(name: string, value: string): void {
    const t = this.#options.txn();
    if (t && !t.settingsBefore.has(name)) t.settingsBefore.set(name, this.values.get(name));
    this.values.set(name, value);
    const wireName = reportedName(name);
    if (wireName) this.#options.events()?.parameterStatus(wireName, value);
  }

  /** SET name TO value, or TO DEFAULT (null): checked against the registry. */
  set(name: string, value: string | null): void {
    checkChangeable(name);
    // SET … TO DEFAULT puts back the session's starting value, which needs no check.
    this.assign(name, value === null ? this.#reset.get(name) ?? '' : checkSetting(name, value));
  }

  reset(name: string): void {
    checkChangeable(name);
    this.assign(name, this.#reset.get(name) ?? '');
  }

  /** RESET ALL: every setting but who the session is (role, session_authorization), as in PostgreSQL (GUC_NO_RESET_ALL). */
  resetAll(): void {
    for (const [k, v] of this.#reset) if (!IDENTITY_SETTINGS.has(k)) this.assign(k, v);
  }

  /** Settings are transactional, as in PostgreSQL: undo a rolled-back transaction's SETs, and SET LOCAL always. */
  restore(t: Txn, committed: boolean): void {
    for (const [name, before] of t.settingsBefore) {
      if (committed && !t.localSettings.has(name)) continue;
      if (before === undefined) this.values.delete(name);
      else if (this.values.get(name) !== before) {
        this.values.set(name, before);
        const wireName = reportedName(name);
        if (wireName) this.#options.events()?.parameterStatus(wireName, before);
      }
    }
  }

  /** SHOW ALL's rows (name, setting, description), sorted by name, without Floe's own and the hidden ones. */
  showAll(): string[][] {
    return this.#listed().map(([k, v]) => [displayName(k), v, settingDefinition(k)?.description ?? '']);
  }

  /** pg_settings's rows, in SHOW ALL's order. */
  pgSettingsRows(): PgSettingsRow[] {
    return this.#listed().map(([k, v]) => pgSettingsRow(k, v, this.#boot.get(k), this.#reset.get(k)));
  }

  #listed(): [string, string][] {
    return [...this.values].filter(([k]) => !k.startsWith('floe.') && settingDefinition(k)?.hidden !== true).sort(([a], [b]) => a.localeCompare(b));
  }
}
