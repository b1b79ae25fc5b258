import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { parseBool } from '../../exec/index.js';
import type { CatalogViewDefinition } from '../bind-env.js';
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

/** One WITH (…) / SET (…) item as `name=value`, checked as PostgreSQL checks a view's reloptions. */
function optionText(d: Raw, withValues: boolean): { name: string; text: string } {
  const name = String(d.defname);
  if (!withValues) {
    // RESET names what to remove; a name the view does not have removes nothing, as in PostgreSQL.
    if (d.arg !== undefined) throw new FloeError(SqlState.syntaxError, 'RESET must not include values for parameters');
    return { name, text: name };
  }
  if (d.defnamespace !== undefined) throw invalid(`unrecognized parameter namespace "${d.defnamespace}"`);
  if (name === 'check_option') throw new FloeError(SqlState.featureNotSupported, 'WITH CHECK OPTION is not supported: Floe views are read-only');
  if (!BOOLEAN_OPTIONS.has(name)) throw invalid(`unrecognized parameter "${name}"`);
  const value = d.arg === undefined ? 'true' : defElemValue(d.arg) ?? '';
  try {
    parseBool(value);
  } catch {
    throw invalid(`invalid value for boolean option "${name}": ${value}`);
  }
  return { name, text: `${name}=${value}` };
}

/** CREATE VIEW … WITH (…): the options in the order written (22023 for one given twice). */
export function viewOptions(defs: readonly Raw[] | undefined): string[] {
  const seen = new Set<string>();
  return (defs ?? []).map((raw) => {
    const { name, text } = optionText(raw.DefElem ?? raw, true);
    if (seen.has(name)) throw invalid(`parameter "${name}" specified more than once`);
    seen.add(name);
    return text;
  });
}

/** ALTER VIEW … SET (…) / RESET (…): the view's options after, the changed ones moved to the end as PostgreSQL orders them. */
export function changedViewOptions(current: readonly string[], defs: readonly Raw[], action: 'set' | 'reset'): string[] {
  const items = action === 'set' ? viewOptions(defs) : defs.map((raw) => optionText(raw.DefElem ?? raw, false).text);
  const names = new Set(items.map((t) => t.split('=')[0]!));
  const kept = current.filter((t) => !names.has(t.split('=')[0]!));
  return action === 'set' ? [...kept, ...items] : kept;
}

/** Whether a view's boolean option is on. */
export function viewOptionOn(view: Pick<CatalogViewDefinition, 'options'>, name: ViewOptionName): boolean {
  const text = view.options?.find((t) => t.split('=')[0] === name);
  return text !== undefined && parseBool(text.slice(name.length + 1));
}
