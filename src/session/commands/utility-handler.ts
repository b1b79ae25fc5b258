import type { StatementResult } from '../../common/session-handler.js';
import type { UtilityCommand } from '../../sql/index.js';
import type { SessionContext } from '../session-context.js';

export type UtilityKind = UtilityCommand['kind'];

/** How one kind of utility command runs; `params` are the statement's bound parameters (EXPLAIN passes them on). */
export type UtilityHandler<K extends UtilityKind> = (
  ctx: SessionContext, c: Extract<UtilityCommand, { kind: K }>, signal: AbortSignal, params: readonly unknown[],
) => Promise<StatementResult>;

/** One handler per utility command kind: a new kind fails the build until a family file handles it. */
export type UtilityHandlers = { readonly [K in UtilityKind]: UtilityHandler<K> };

/** A result with a command tag and no rows. */
export function commandTag(tag: string): StatementResult {
  return { kind: 'command', tag };
}
