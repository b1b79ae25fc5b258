import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { RunState } from '../run-state.js';
import { castValue } from '../types/cast-value.js';

/** Types whose parameter values are taken as the client's text, not parsed from it. */
const KEPT_AS_TEXT = new Set(['text', 'varchar', 'unknown', 'numeric', 'bpchar', 'name', 'json', 'jsonb', 'uuid', 'char']);

/**
 * The value of `$index+1` in this run, as `type` (NULL as null). Parameters may
 * arrive as text when the client left their type open; those are parsed here.
 */
export function paramValue(run: RunState, index: number, type: SqlType): unknown {
  if (index >= run.params.length) {
    throw new FloeError(SqlState.undefinedParameter, `there is no parameter $${index + 1}`);
  }
  const v = run.params[index];
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && !KEPT_AS_TEXT.has(type.kind)) {
    return castValue(v, { kind: 'text' }, type, { timeZone: run.evalCtx.settings.get('timezone') ?? 'UTC' });
  }
  return v;
}
