import type { StatementResult } from '../../common/session-handler.js';
import type { UtilityCommand } from '../../sql/index.js';
import type { SessionCommands, SessionContext } from '../session-context.js';
import { callCommands } from './call.js';
import { copyCommands } from './copy.js';
import { cursorCommands } from './cursor-commands.js';
import { runDdl } from './ddl.js';
import { explainCommands } from './explain.js';
import { notificationCommands } from './notification-commands.js';
import { preparedCommands } from './prepared-commands.js';
import { sessionCommands } from './session-commands.js';
import { settingCommands } from './setting-commands.js';
import { transactionCommands } from './transaction-commands.js';
import type { UtilityHandler, UtilityHandlers } from './utility-handler.js';

/** Every utility command kind, by family; the type makes a kind without a handler a build error. */
const HANDLERS: UtilityHandlers = {
  ...transactionCommands,
  ...settingCommands,
  ...preparedCommands,
  ...cursorCommands,
  ...copyCommands,
  ...explainCommands,
  ...callCommands,
  ...notificationCommands,
  ...sessionCommands,
};

export function runUtility(ctx: SessionContext, c: UtilityCommand, signal: AbortSignal, params: readonly unknown[]): Promise<StatementResult> {
  const handler = HANDLERS[c.kind] as UtilityHandler<UtilityCommand['kind']>;
  return handler(ctx, c, signal, params);
}

/** What a SessionContext runs bound utility and DDL statements with. */
export const SESSION_COMMANDS: SessionCommands = { runUtility, runDdl };
