import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { memoryRows, textColumn } from '../result-columns.js';
import type { SessionContext } from '../session-context.js';
import { displayName } from '../settings-registry.js';
import { isolationText } from '../transaction-isolation.js';
import { commandTag, type UtilityHandlers } from './utility-handler.js';

/** SET, SET TRANSACTION, RESET and SHOW (settings-registry.ts checks and describes the values), and SHOW TBLPROPERTIES. */
export const settingCommands: Pick<UtilityHandlers, 'set' | 'setTransaction' | 'reset' | 'show' | 'showTblProperties'> = {
  async set(ctx, c) {
    if (c.local && !ctx.transaction.current) {
      ctx.notice('WARNING', SqlState.noActiveSqlTransaction, 'SET LOCAL can only be used in transaction blocks');
      return commandTag('SET');
    }
    if (c.name === 'transaction_isolation' && c.value !== null) {
      setIsolation(ctx, c.value, false);
      return commandTag('SET');
    }
    if (c.local) ctx.transaction.current!.localSettings.add(c.name);
    ctx.setSetting(c.name, c.value);
    return commandTag('SET');
  },

  async setTransaction(ctx, c) {
    if (c.modes.isolation !== undefined) setIsolation(ctx, c.modes.isolation, c.session);
    return commandTag('SET');
  },

  async reset(ctx, c) {
    if (c.name === 'all') ctx.settings.resetAll();
    else if (c.name === 'role') ctx.identity.setRole(null);
    else if (c.name === 'session_authorization') ctx.identity.setSessionAuthorization(null);
    else ctx.settings.reset(c.name);
    return commandTag('RESET');
  },

  async show(ctx, c) {
    if (c.name === 'all') {
      return memoryRows([textColumn('name'), textColumn('setting'), textColumn('description')], ctx.settings.showAll(), 'SHOW');
    }
    const v = ctx.settings.get(c.name);
    if (v === undefined) throw new FloeError(SqlState.undefinedObject, `unrecognized configuration parameter "${c.name}"`);
    return memoryRows([textColumn(displayName(c.name))], [[v]], 'SHOW');
  },

  async showTblProperties(ctx, c) {
    const t = ctx.deps.warehouse.getTable(c.table.namespace, c.table.name);
    if (!t) throw new FloeError(SqlState.undefinedTable, `relation "${c.table.name}" does not exist`);
    const rows = Object.entries(t.properties).sort(([a], [b]) => a.localeCompare(b));
    return memoryRows([textColumn('key'), textColumn('value')], rows, 'SHOW');
  },
};

/** SET TRANSACTION / SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL. */
function setIsolation(ctx: SessionContext, level: string, session: boolean): void {
  const text = isolationText(level);
  if (session) {
    ctx.settings.set('default_transaction_isolation', text);
    return;
  }
  const t = ctx.transaction.current;
  if (t === undefined || t.implicit) {
    ctx.notice('WARNING', SqlState.noActiveSqlTransaction, 'SET TRANSACTION can only be used in transaction blocks');
    return;
  }
  if (t.lake !== undefined && text !== t.isolation) {
    throw new FloeError('25001', 'SET TRANSACTION ISOLATION LEVEL must be called before any query');
  }
  t.isolation = text;
  ctx.settings.values.set('transaction_isolation', text);
}
