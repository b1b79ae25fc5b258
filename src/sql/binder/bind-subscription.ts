import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { BoundStatement } from '../bound-statement.js';
import type { AlterSubscriptionAction, SubscriptionOption } from '../ddl-command.js';
import { strList, type Raw } from './ast.js';
import { defElemKey, defElemValue } from './def-elem.js';

/** CREATE / ALTER / DROP SUBSCRIPTION as libpg-query parses them; what the options mean is the service's to check. */
export function bindSubscriptionDdl(tag: string, n: Raw): BoundStatement {
  switch (tag) {
    case 'CreateSubscriptionStmt':
      return {
        kind: 'ddl',
        command: { kind: 'createSubscription', name: n.subname, conninfo: n.conninfo ?? '', publications: strList(n.publication), options: optionsOf(n.options) },
      };
    case 'DropSubscriptionStmt':
      return { kind: 'ddl', command: { kind: 'dropSubscription', name: n.subname, ifExists: n.missing_ok === true } };
    default:
      return { kind: 'ddl', command: { kind: 'alterSubscription', name: n.subname, action: alterAction(n) } };
  }
}

function optionsOf(defs: readonly Raw[] | undefined): SubscriptionOption[] {
  return (defs ?? []).map((d) => {
    const def = d.DefElem ?? d;
    return { name: defElemKey(def), value: defElemValue(def.arg) ?? 'true' };
  });
}

function alterAction(n: Raw): AlterSubscriptionAction {
  const options = optionsOf(n.options);
  switch (n.kind) {
    case 'ALTER_SUBSCRIPTION_ENABLED':
      return options.find((o) => o.name === 'enabled')?.value === 'false' ? { kind: 'disable' } : { kind: 'enable' };
    case 'ALTER_SUBSCRIPTION_REFRESH': return { kind: 'refresh', options };
    case 'ALTER_SUBSCRIPTION_OPTIONS': return { kind: 'setOptions', options };
    case 'ALTER_SUBSCRIPTION_CONNECTION': return { kind: 'connection', conninfo: n.conninfo ?? '' };
    case 'ALTER_SUBSCRIPTION_SET_PUBLICATION': return { kind: 'setPublication', publications: strList(n.publication), options };
    case 'ALTER_SUBSCRIPTION_ADD_PUBLICATION': return { kind: 'addPublication', publications: strList(n.publication), options };
    case 'ALTER_SUBSCRIPTION_DROP_PUBLICATION': return { kind: 'dropPublication', publications: strList(n.publication), options };
    default:
      throw new FloeError(SqlState.featureNotSupported, 'ALTER SUBSCRIPTION … SKIP is not supported');
  }
}
