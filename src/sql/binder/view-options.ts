import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseBool } from '../../exec/index.js';
import type { CatalogViewDefinition } from '../bind-env.js';
import { changedReloptions, reloptionChanges, reloptionList } from './reloption-list.js';
import type { Raw } from './ast.js';
import { defElemValue } from './def-elem.js';

/**
 * A view's options, PostgreSQL 15's: `security_barrier` (no predicate from outside the view
 * runs before the view's own, so none sees a row the view hides) and `security_invoker`
 * (what the view reads is checked as the user of the view, not its owner). They are kept
 * as pg_class.reloptions shows them, `name=value` with the value as written.
 */
export type ViewOptionName = 'security_barrier' | 'security_invoker';
const BOOLEAN_OPTIONS: ReadonlySet<string> = new Set<ViewOptionName>(['security_barrier', 'security_invoker']);

function invalid(message: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, message);
}

/** One WITH (…) / SET (…) item's `name=value`, checked as PostgreSQL checks a view's reloptions. */
function optionText(name: string, d: Raw): string {
  if (name === 'check_option') throw new FloeError(SqlState.featureNotSupported, 'WITH CHECK OPTION is not supported: Floe views are read-only');
  if (!BOOLEAN_OPTIONS.has(name)) throw invalid(`unrecognized parameter "${name}"`);
  const value = d.arg === undefined ? 'true' : defElemValue(d.arg) ?? '';
  try {
    parseBool(value);
  } catch {
    throw invalid(`invalid value for boolean option "${name}": ${value}`);
  }
  return `${name}=${value}`;
}

/** CREATE VIEW … WITH (…): the options in the order written. */
export function viewOptions(defs: readonly Raw[] | undefined): string[] {
  return reloptionList(defs, optionText);
}

/** ALTER VIEW … SET (…) / RESET (…): the options after. */
export function changedViewOptions(current: readonly string[], defs: readonly Raw[], action: 'set' | 'reset'): string[] {
  return changedReloptions(current, defs, action, optionText);
}

/** Whether a view's boolean option is on. */
export function viewOptionOn(view: Pick<CatalogViewDefinition, 'options'>, name: ViewOptionName): boolean {
  const text = view.options?.find((t) => t.split('=')[0] === name);
  return text !== undefined && parseBool(text.slice(name.length + 1));
}

/** ALTER VIEW … SET (…) / RESET (…) subcommands as one change of the options. */
export function viewOptionChanges(cmds: readonly Raw[]): (current: readonly string[]) => string[] {
  return reloptionChanges(cmds, optionText);
}
