import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { Raw } from './ast.js';

/*
 * Options kept as pg_class.reloptions shows them (`name=value`, the value as written), for
 * views and materialized views alike. `item` checks one WITH / SET item and returns its text.
 */
export type ReloptionItem = (name: string, d: Raw) => string;

function itemText(d: Raw, item: ReloptionItem): { name: string; text: string } {
  const name = String(d.defname);
  if (d.defnamespace !== undefined) throw new FloeError(SqlState.invalidParameterValue, `unrecognized parameter namespace "${d.defnamespace}"`);
  return { name, text: item(name, d) };
}

/** RESET names what to remove; a name the relation does not have removes nothing, as in PostgreSQL. */
function resetName(d: Raw): string {
  if (d.arg !== undefined) throw new FloeError(SqlState.syntaxError, 'RESET must not include values for parameters');
  return String(d.defname);
}

/** WITH (…): the options in the order written (22023 for one given twice). */
export function reloptionList(defs: readonly Raw[] | undefined, item: ReloptionItem): string[] {
  const seen = new Set<string>();
  return (defs ?? []).map((raw) => {
    const { name, text } = itemText(raw.DefElem ?? raw, item);
    if (seen.has(name)) throw new FloeError(SqlState.invalidParameterValue, `parameter "${name}" specified more than once`);
    seen.add(name);
    return text;
  });
}

/** SET (…) / RESET (…): the options after, the changed ones moved to the end as PostgreSQL orders them. */
export function changedReloptions(current: readonly string[], defs: readonly Raw[], action: 'set' | 'reset', item: ReloptionItem): string[] {
  const items = action === 'set' ? reloptionList(defs, item) : defs.map((raw) => resetName(raw.DefElem ?? raw));
  const names = new Set(items.map((t) => t.split('=')[0]!));
  const kept = current.filter((t) => !names.has(t.split('=')[0]!));
  return action === 'set' ? [...kept, ...items] : kept;
}

/**
 * ALTER … SET (…) / RESET (…) subcommands as one change of the options; each is checked
 * now, so a bad option fails before the relation is looked up, as in PostgreSQL.
 */
export function reloptionChanges(cmds: readonly Raw[], item: ReloptionItem): (current: readonly string[]) => string[] {
  const changes = cmds.map((c) => {
    const defs = (c.def?.List?.items ?? c.def ?? []) as Raw[];
    const action = c.subtype === 'AT_SetRelOptions' ? 'set' as const : 'reset' as const;
    changedReloptions([], defs, action, item);
    return (current: readonly string[]) => changedReloptions(current, defs, action, item);
  });
  return (current) => changes.reduce<string[]>((acc, change) => change(acc), [...current]);
}
