import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/** The options of `EXPLAIN (…)` that change Floe's output. */
export interface ExplainOptions {
  readonly analyze: boolean;
  readonly verbose: boolean;
  /** ANALYZE: print per-operator times (TIMING OFF keeps rows and loops only). */
  readonly timing: boolean;
  /** ANALYZE: print the trailing Actual Rows / Execution Time lines (SUMMARY OFF drops them). */
  readonly summary: boolean;
  /** FORMAT TEXT (the default) or JSON. */
  readonly format: 'text' | 'json';
}

/** One `name [value]` item of EXPLAIN's option list, as the parser gives it. */
export interface ExplainOptionItem {
  readonly name: string;
  /** Absent for a bare option (`ANALYZE`), else the spelled value (`off`, `0`, `json`, true). */
  readonly value?: string | number | boolean;
}

const BOOLEAN_OPTIONS = new Set(['analyze', 'verbose', 'costs', 'settings', 'generic_plan', 'buffers', 'wal', 'timing', 'summary', 'memory']);

function booleanOf(name: string, value: ExplainOptionItem['value']): boolean {
  if (value === undefined) return true;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (value === 0 || value === 1) return value === 1;
  } else {
    const v = value.toLowerCase();
    // PostgreSQL's parse_bool: unique prefixes of true/false/yes/no, on/off, 1/0.
    if (v.length > 0 && ('true'.startsWith(v) || 'yes'.startsWith(v))) return true;
    if (v.length > 0 && ('false'.startsWith(v) || 'no'.startsWith(v))) return false;
    if (v === 'on' || v === '1') return true;
    if (v === 'off' || v === 'of' || v === '0') return false;
  }
  return ambiguous(name, value);
}

function ambiguous(name: string, value: string | number): never {
  throw new FloeError(SqlState.invalidParameterValue, `${name} requires a Boolean value`, { detail: `Got "${value}".` });
}

/**
 * Validates EXPLAIN's options the way PostgreSQL 16 does: unknown names are 42601,
 * bad values 22023, TIMING without ANALYZE 22023. COSTS, BUFFERS, WAL, SETTINGS and
 * MEMORY are accepted and have no effect (Floe prints no costs and has no shared
 * buffers); FORMAT XML and YAML, and GENERIC_PLAN, are 0A000.
 */
export function parseExplainOptions(items: readonly ExplainOptionItem[]): ExplainOptions {
  let analyze = false;
  let verbose = false;
  let timing: boolean | undefined;
  let summary: boolean | undefined;
  let format: ExplainOptions['format'] = 'text';
  for (const { name: raw, value } of items) {
    const name = raw.toLowerCase();
    if (name === 'format') {
      const f = String(value ?? '').toLowerCase();
      if (f === 'text' || f === 'json') {
        format = f;
        continue;
      }
      if (f === 'xml' || f === 'yaml') {
        throw new FloeError(SqlState.featureNotSupported, `EXPLAIN format "${f}" is not supported`, { hint: 'Floe prints EXPLAIN as TEXT or JSON.' });
      }
      throw new FloeError(SqlState.invalidParameterValue, `unrecognized value for EXPLAIN option "format": "${String(value ?? '')}"`);
    }
    if (name === 'serialize') {
      const v = String(value ?? 'text').toLowerCase();
      if (v === 'none' || v === 'text' || v === 'binary') continue;
      throw new FloeError(SqlState.invalidParameterValue, `unrecognized value for EXPLAIN option "serialize": "${String(value)}"`);
    }
    if (!BOOLEAN_OPTIONS.has(name)) throw new FloeError(SqlState.syntaxError, `unrecognized EXPLAIN option "${name}"`);
    const on = booleanOf(name, value);
    switch (name) {
      case 'analyze': analyze = on; break;
      case 'verbose': verbose = on; break;
      case 'timing': timing = on; break;
      case 'summary': summary = on; break;
      case 'generic_plan':
        if (on) throw new FloeError(SqlState.featureNotSupported, 'EXPLAIN option GENERIC_PLAN is not supported');
        break;
      default: break;
    }
  }
  if (timing === true && !analyze) throw new FloeError(SqlState.invalidParameterValue, 'EXPLAIN option TIMING requires ANALYZE');
  return { analyze, verbose, timing: timing ?? analyze, summary: summary ?? analyze, format };
}
