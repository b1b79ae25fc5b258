import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import type { BoundStatement } from '../bound-statement.js';
import type { IsolationLevel, TransactionModes, UtilityCommand } from '../utility-command.js';
import { positionOf, unwrap, type Raw } from './ast.js';
import type { BindContext } from './bind-context.js';
import { bindArguments } from './bind-arguments.js';
import { defElemValue } from './def-elem.js';
import { resolveTypeName } from './resolve-type-name.js';
import { userTypeLookup } from './user-type-lookup.js';

function utility(command: UtilityCommand): BoundStatement {
  return { kind: 'utility', command };
}

function transactionModes(options: readonly Raw[] | undefined): TransactionModes {
  let modes: { isolation?: IsolationLevel; readOnly?: boolean; deferrable?: boolean } = {};
  for (const o of options ?? []) {
    const d = unwrap(o)[1];
    const v = defElemValue(d.arg);
    if (d.defname === 'transaction_isolation') modes = { ...modes, isolation: (v ?? 'read committed') as IsolationLevel };
    else if (d.defname === 'transaction_read_only') modes = { ...modes, readOnly: v === '1' || v === 'true' };
    else if (d.defname === 'transaction_deferrable') modes = { ...modes, deferrable: v === '1' || v === 'true' };
  }
  return modes;
}

export function bindTransaction(n: Raw): BoundStatement {
  switch (n.kind as string) {
    case 'TRANS_STMT_BEGIN': return utility({ kind: 'begin', modes: transactionModes(n.options) });
    case 'TRANS_STMT_START': return utility({ kind: 'begin', modes: transactionModes(n.options), start: true });
    case 'TRANS_STMT_COMMIT': return utility({ kind: 'commit', chain: Boolean(n.chain) });
    case 'TRANS_STMT_ROLLBACK': return utility({ kind: 'rollback', chain: Boolean(n.chain) });
    case 'TRANS_STMT_SAVEPOINT': return utility({ kind: 'savepoint', name: n.savepoint_name });
    case 'TRANS_STMT_RELEASE': return utility({ kind: 'release', name: n.savepoint_name });
    case 'TRANS_STMT_ROLLBACK_TO': return utility({ kind: 'rollbackTo', name: n.savepoint_name });
    default:
      throw new FloeError(SqlState.featureNotSupported, 'two-phase commit is not supported', { position: positionOf(n) });
  }
}

/** SET's value list as the text PostgreSQL would store (identifiers and strings joined by ", "). */
function setValue(args: readonly Raw[] | undefined): string {
  return (args ?? []).map((a) => {
    const [tag, v] = unwrap(a);
    if (tag === 'TypeCast') return defElemValue(v.arg) ?? '';
    return defElemValue(a) ?? '';
  }).join(', ');
}

export function bindVariableSet(n: Raw): BoundStatement {
  switch (n.kind as string) {
    case 'VAR_SET_VALUE': return utility({ kind: 'set', name: String(n.name).toLowerCase(), value: setValue(n.args), local: Boolean(n.is_local) });
    case 'VAR_SET_DEFAULT': return utility({ kind: 'set', name: String(n.name).toLowerCase(), value: null, local: Boolean(n.is_local) });
    case 'VAR_SET_CURRENT': return utility({ kind: 'noop', tag: 'SET' });
    case 'VAR_SET_MULTI': {
      const modes = transactionModes(n.args);
      return utility({ kind: 'setTransaction', modes, session: n.name === 'SESSION CHARACTERISTICS' });
    }
    case 'VAR_RESET': return utility({ kind: 'reset', name: String(n.name).toLowerCase() });
    case 'VAR_RESET_ALL': return utility({ kind: 'reset', name: 'all' });
    default:
      throw new FloeError(SqlState.featureNotSupported, `unsupported SET form ${n.kind}`);
  }
}

export function bindShow(n: Raw): BoundStatement {
  const name = String(n.name).toLowerCase();
  return utility({ kind: 'show', name: name === 'all' ? 'all' : name });
}

export function bindDiscard(n: Raw): BoundStatement {
  const map: Record<string, 'all' | 'plans' | 'sequences' | 'temp'> = {
    DISCARD_ALL: 'all', DISCARD_PLANS: 'plans', DISCARD_SEQUENCES: 'sequences', DISCARD_TEMP: 'temp',
  };
  return utility({ kind: 'discard', target: map[n.target as string] ?? 'all' });
}

export function bindPrepare(ctx: BindContext, n: Raw): BoundStatement {
  const paramTypes: SqlType[] = ((n.argtypes as Raw[] | undefined) ?? []).map((t) => resolveTypeName(unwrap(t)[1], userTypeLookup(ctx)));
  const query = n.query as Raw;
  const loc = positionOf(query);
  // The inner statement keeps the outer text and locations, so its errors point into what the client sent.
  return utility({
    kind: 'prepare', name: n.name, paramTypes,
    statement: { ...ctx.stmt, ast: query, lake: ctx.stmt.lake.filter((c) => loc === undefined || c.location >= loc - 1) },
  });
}

export function bindExecute(ctx: BindContext, n: Raw): BoundStatement {
  return utility({ kind: 'execute', name: n.name, args: bindArguments(ctx, (n.params as Raw[] | undefined) ?? []) });
}

const CURSOR_OPT_BINARY = 0x1;
const CURSOR_OPT_SCROLL = 0x2;
const CURSOR_OPT_HOLD = 0x20;

export function bindFetch(n: Raw): BoundStatement {
  const dir = n.direction as string;
  const direction = dir === 'FETCH_BACKWARD' ? 'backward' : dir === 'FETCH_ABSOLUTE' ? 'absolute' : dir === 'FETCH_RELATIVE' ? 'relative' : 'forward';
  const howMany = n.howMany === undefined ? 0 : Number(n.howMany);
  // FETCH ALL is encoded as FETCH_ALL (LONG_MAX); libpg-query reports 2^31-1 or larger.
  const count: bigint | 'all' = (direction === 'forward' || direction === 'backward') && howMany >= 2147483647 ? 'all' : BigInt(howMany);
  return utility({ kind: 'fetch', move: Boolean(n.ismove), cursor: n.portalname, direction, count });
}

export function bindClose(n: Raw): BoundStatement {
  return utility({ kind: 'closeCursor', name: n.portalname ?? null });
}

export function bindDeallocate(n: Raw): BoundStatement {
  return utility({ kind: 'deallocate', name: n.isall || !n.name ? null : n.name });
}

export function cursorOptions(options: number): { binary: boolean; scroll: boolean; hold: boolean } {
  return { binary: (options & CURSOR_OPT_BINARY) !== 0, scroll: (options & CURSOR_OPT_SCROLL) !== 0, hold: (options & CURSOR_OPT_HOLD) !== 0 };
}

export function bindListen(tag: string, n: Raw): BoundStatement {
  if (tag === 'ListenStmt') return utility({ kind: 'listen', channel: n.conditionname });
  if (tag === 'UnlistenStmt') return utility({ kind: 'unlisten', channel: n.conditionname ?? null });
  return utility({ kind: 'notify', channel: n.conditionname, payload: n.payload ?? null });
}
