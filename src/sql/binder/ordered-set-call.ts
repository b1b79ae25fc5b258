import { FloeError } from '../../common/floe-error.js';
import { ORDERED_SET_AGGREGATES } from '../../exec/functions/builtin-ordered-set-aggregates.js';

/** WITHIN GROUP belongs to the ordered-set aggregates, and they need it (PostgreSQL's 42809 errors). */
export function checkOrderedSetCall(name: string, withinGroup: boolean, position: number | undefined): void {
  const orderedSet = ORDERED_SET_AGGREGATES.has(name);
  if (withinGroup && !orderedSet) {
    throw new FloeError('42809', `${name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP`, { position });
  }
  if (!withinGroup && orderedSet) {
    throw new FloeError('42809', `WITHIN GROUP is required for ordered-set aggregate ${name}`, { position });
  }
}
