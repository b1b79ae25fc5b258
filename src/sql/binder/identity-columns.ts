import { FloeError } from '../../common/floe-error.js';
import type { DmlTarget } from './bind-dml-target.js';

const ALWAYS_DETAIL = (name: string) => `Column "${name}" is an identity column defined as GENERATED ALWAYS.`;

/** INSERT's OVERRIDING clause: SYSTEM VALUE lets values into ALWAYS identity columns, USER VALUE ignores them. */
export type Overriding = 'none' | 'system' | 'user';

export function overridingOf(override: string | undefined): Overriding {
  return override === 'OVERRIDING_SYSTEM_VALUE' ? 'system' : override === 'OVERRIDING_USER_VALUE' ? 'user' : 'none';
}

/**
 * What an INSERT does with a value given for column `i`: keep it, or take the default
 * instead (OVERRIDING USER VALUE on an identity column). A value for a GENERATED ALWAYS
 * column without OVERRIDING SYSTEM VALUE is 428C9, as in PostgreSQL's rewriter.
 */
export function insertedValueUse(t: DmlTarget, i: number, overriding: Overriding): 'value' | 'default' {
  const col = t.table.columns[i]!;
  if (col.identity === undefined) return 'value';
  if (overriding === 'user') return 'default';
  if (col.identity.generation === 'always' && overriding !== 'system') {
    throw new FloeError('428C9', `cannot insert a non-DEFAULT value into column "${col.name}"`, {
      detail: ALWAYS_DETAIL(col.name), hint: 'Use OVERRIDING SYSTEM VALUE to override.',
    });
  }
  return 'value';
}

/** UPDATE … SET c = expr on a GENERATED ALWAYS identity column is 428C9 (only DEFAULT is allowed). */
export function checkIdentityUpdate(t: DmlTarget, i: number, toDefault: boolean): void {
  const col = t.table.columns[i]!;
  if (toDefault || col.identity?.generation !== 'always') return;
  throw new FloeError('428C9', `column "${col.name}" can only be updated to DEFAULT`, { detail: ALWAYS_DETAIL(col.name) });
}
