import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, formatDecimal, parseDecimal } from '../../exec/index.js';
import { positionOf, type Raw } from './ast.js';
import { notePosition } from './coerce.js';

const boolType: SqlType = { kind: 'bool' };

export function bindConst(n: Raw): Expr {
  const e = bindConstValue(n);
  notePosition(e, positionOf(n));
  return e;
}

function bindConstValue(n: Raw): Expr {
  if (n.isnull) return Exprs.literal(null, { kind: 'unknown' });
  if (n.ival !== undefined) return Exprs.literal(Number(n.ival.ival ?? 0), { kind: 'int4' });
  if (n.fval !== undefined) {
    const text = String(n.fval.fval);
    if (/^[+-]?\d+$/.test(text)) {
      const big = BigInt(text);
      // As PostgreSQL's make_const: an integer too big for the lexer's int4 that still fits int4 (-2147483648) is int4.
      if (big >= -(2n ** 31n) && big < 2n ** 31n) return Exprs.literal(Number(big), { kind: 'int4' });
      if (big >= -(2n ** 63n) && big < 2n ** 63n) return Exprs.literal(big, { kind: 'int8' });
    }
    // The canonical text (1e3 → 1000), refused past numeric's limits (22003) as PostgreSQL's numeric_in does.
    try {
      return Exprs.literal(formatDecimal(parseDecimal(text)), { kind: 'numeric' });
    } catch (e) {
      throw e instanceof FloeError && positionOf(n) !== undefined ? e.withPosition(positionOf(n)!) : e;
    }
  }
  if (n.boolval !== undefined) return Exprs.literal(Boolean(n.boolval.boolval), boolType);
  if (n.sval !== undefined) return Exprs.literal(String(n.sval.sval ?? ''), { kind: 'unknown' });
  if (n.bsval !== undefined) throw new FloeError(SqlState.featureNotSupported, 'bit string constants are not supported', { position: positionOf(n) });
  return Exprs.literal(null, { kind: 'unknown' });
}
