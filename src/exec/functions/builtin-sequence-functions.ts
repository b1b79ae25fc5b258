import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';
import type { SessionSequences } from '../session-sequences.js';
import { registerScalarFunction } from './function-registry.js';

const regclass: SqlType = { kind: 'regclass' };
const int8: SqlType = { kind: 'int8' };
const bool: SqlType = { kind: 'bool' };

function sequences(ctx: EvalContext): SessionSequences {
  if (ctx.sequences === undefined) throw new FloeError(SqlState.featureNotSupported, 'sequence functions need a session');
  return ctx.sequences;
}

/** nextval, currval, setval and lastval: volatile, so evaluated per row and never folded or shipped to a worker. */
export function registerBuiltinSequenceFunctions(): void {
  const reg = registerScalarFunction;
  reg({ name: 'nextval', args: [regclass], returns: int8, volatile: true, impl: (a, ctx) => sequences(ctx).nextval(a[0] as number) });
  reg({ name: 'currval', args: [regclass], returns: int8, volatile: true, impl: (a, ctx) => sequences(ctx).currval(a[0] as number) });
  reg({ name: 'lastval', args: [], returns: int8, volatile: true, impl: (_a, ctx) => sequences(ctx).lastval() });
  reg({ name: 'setval', args: [regclass, int8], returns: int8, volatile: true, impl: (a, ctx) => sequences(ctx).setval(a[0] as number, a[1] as bigint, true) });
  reg({ name: 'setval', args: [regclass, int8, bool], returns: int8, volatile: true, impl: (a, ctx) => sequences(ctx).setval(a[0] as number, a[1] as bigint, a[2] as boolean) });
}
