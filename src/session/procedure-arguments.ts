import { FloeError } from '../common/floe-error.js';
import { SqlState } from '../common/sqlstate.js';

/** Parameter names of the lakehouse procedures, in order (Iceberg's names, so `older_than => …` reads the same). */
export const PROCEDURE_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  fast_forward: ['table', 'branch', 'to'],
  rollback_to_snapshot: ['table', 'snapshot_id'],
  rollback_to_timestamp: ['table', 'timestamp'],
  expire_snapshots: ['table', 'older_than', 'retain_last'],
  optimize: ['table', 'kind'],
  refresh_materialized_view: ['view', 'mode'],
};

/** How many leading parameters must be given. */
const REQUIRED: Readonly<Record<string, number>> = {
  fast_forward: 3, rollback_to_snapshot: 2, rollback_to_timestamp: 2, expire_snapshots: 2, optimize: 1, refresh_materialized_view: 1,
};

/**
 * Puts a CALL's arguments in parameter order: positional ones first, then
 * `name => value` ones by name. Missing trailing parameters stay undefined.
 */
export function procedureArguments(procedure: string, args: readonly unknown[], names: readonly (string | undefined)[] | undefined): unknown[] {
  const params = PROCEDURE_PARAMETERS[procedure];
  if (!params) throw new FloeError(SqlState.undefinedFunction, `procedure ${procedure} does not exist`);
  if (args.length > params.length) {
    throw new FloeError(SqlState.undefinedFunction, `procedure ${procedure} takes at most ${params.length} arguments (${params.join(', ')})`);
  }
  const out = new Array<unknown>(params.length).fill(undefined);
  const given = new Set<number>();
  args.forEach((v, i) => {
    const name = names?.[i];
    const at = name === undefined ? i : params.indexOf(name.toLowerCase());
    if (at < 0) {
      throw new FloeError(SqlState.undefinedFunction, `procedure ${procedure} has no parameter named "${name}"`, {
        hint: `Its parameters are ${params.join(', ')}.`,
      });
    }
    if (given.has(at)) throw new FloeError(SqlState.syntaxError, `parameter "${params[at]}" of ${procedure} is given more than once`);
    given.add(at);
    out[at] = v;
  });
  for (let i = 0; i < (REQUIRED[procedure] ?? params.length); i++) {
    if (!given.has(i)) throw new FloeError(SqlState.undefinedFunction, `procedure ${procedure} needs the ${params[i]} argument`);
  }
  return out;
}
