import { parseInterval } from '../../common/datetime.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { reloptionChanges, reloptionList } from '../binder/reloption-list.js';
import type { Raw } from '../binder/ast.js';
import { defElemValue } from '../binder/def-elem.js';

/*
 * A materialized view's options, Floe's own: `freshness` (the most its rows may lag the base
 * tables; the refresh service keeps them within it) and `refresh` ('incremental', 'full' or
 * 'auto': incremental when the query's shape allows, else full). Kept as pg_class.reloptions
 * shows options, `name=value`.
 */

export type RefreshMode = 'incremental' | 'full' | 'auto';
const MODES: ReadonlySet<string> = new Set(['incremental', 'full', 'auto']);

function invalid(message: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message);
}

/** Milliseconds of a freshness text ('30 seconds', '1 min'): months count 30 days. 22023 when it is no positive interval. */
export function freshnessMs(text: string): number {
  let iv;
  try {
    iv = parseInterval(text);
  } catch {
    throw invalid(`invalid value for option "freshness": "${text}"`);
  }
  const ms = (iv.months * 30 + iv.days) * 86_400_000 + Number(iv.micros) / 1000;
  if (!(ms > 0)) throw invalid(`invalid value for option "freshness": "${text}"`);
  return ms;
}

/** One WITH (…) / SET (…) item's `name=value`, checked. */
function optionText(name: string, d: Raw): string {
  const value = d.arg === undefined ? '' : defElemValue(d.arg) ?? '';
  if (name === 'freshness') freshnessMs(value);
  else if (name === 'refresh') {
    if (!MODES.has(value)) {
      throw new FloeError(SqlState.invalidParameterValue, `invalid value for option "refresh": "${value}"`, { hint: "Valid values are 'incremental', 'full' and 'auto'." });
    }
  } else throw invalid(`unrecognized parameter "${name}"`);
  return `${name}=${value}`;
}

/** CREATE MATERIALIZED VIEW … WITH (…): the options in the order written. */
export function materializedViewOptions(defs: readonly Raw[] | undefined): string[] {
  return reloptionList(defs, optionText);
}

/** ALTER MATERIALIZED VIEW … SET (…) / RESET (…) subcommands as one change of the options. */
export function materializedViewOptionChanges(cmds: readonly Raw[]): (current: readonly string[]) => string[] {
  return reloptionChanges(cmds, optionText);
}

function optionValue(options: readonly string[], name: string): string | undefined {
  const found = options.find((o) => o.startsWith(`${name}=`));
  return found?.slice(name.length + 1);
}

export function refreshModeOf(options: readonly string[]): RefreshMode {
  return (optionValue(options, 'refresh') as RefreshMode | undefined) ?? 'auto';
}

/** The declared freshness in milliseconds, or undefined: refreshed only by REFRESH. */
export function freshnessOf(options: readonly string[]): number | undefined {
  const v = optionValue(options, 'freshness');
  return v === undefined ? undefined : freshnessMs(v);
}
