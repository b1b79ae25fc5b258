import { checkOptimizerGroupName, optimizerGroupOptions } from '../../lake/index.js';
import type { BoundStatement } from '../bound-statement.js';
import type { OptimizerGroupDdlClause } from '../parser/lake-clause.js';

/** CREATE / ALTER / DROP OPTIMIZER GROUP: the name and options checked by src/lake's rules (42602, 22023 with a hint). */
export function bindOptimizerGroupDdl(c: OptimizerGroupDdlClause): BoundStatement {
  if (c.action === 'drop') return { kind: 'ddl', command: { kind: 'dropOptimizerGroup', name: c.name, ifExists: c.ifClause } };
  const change = optimizerGroupOptions(Object.fromEntries(c.options.map((o) => [o.key, o.value])));
  if (c.action === 'alter') return { kind: 'ddl', command: { kind: 'alterOptimizerGroup', name: c.name, change } };
  checkOptimizerGroupName(c.name);
  return {
    kind: 'ddl',
    command: {
      kind: 'createOptimizerGroup', ifNotExists: c.ifClause,
      group: { name: c.name, threads: change.threads ?? 1, schedulingPolicy: change.schedulingPolicy ?? 'quota' },
    },
  };
}
