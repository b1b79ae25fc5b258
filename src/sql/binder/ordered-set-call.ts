import { FloeError } from '../../common/floe-error.js';
import { ORDERED_SET_AGGREGATES } from '../../exec/index.js';

/** The ordered-set aggregates need WITHIN GROUP (42809); WITHIN GROUP on another aggregate fails to resolve (42883), as in PostgreSQL. */
export function checkOrderedSetCall(name: string, withinGroup: boolean, position: number | undefined): void {
  const orderedSet = ORDERED_SET_AGGREGATES.has(name);
  if (!withinGroup && orderedSet) {
    throw new FloeError('42809', `WITHIN GROUP is required for ordered-set aggregate ${name}`, { position });
  }
}
