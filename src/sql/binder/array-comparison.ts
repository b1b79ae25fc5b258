import type { SqlType } from '../../common/sql-type.js';
import { type Expr, Exprs, functionById, registerScalarFunction, type ScalarImpl } from '../../exec/index.js';

/*
 * `x op ANY (array)` / `x op ALL (array)` for array-valued operands (psql's
 * `oid = any (pol.polroles)`, `'d' = any(stxkind)`). EXEC's expression IR has
 * no array comparison node, so these bind to two registry functions defined
 * here: they apply the element operator (a registry id, resolved at bind time)
 * to each element with SQL's three-valued rules.
 */
export const arrayAnyId = 'floe_array_any(text,text,any,any)';
export const arrayAllId = 'floe_array_all(text,text,any,any)';

const impls = new Map<string, ScalarImpl>();

function elementImpl(opId: string, typesJson: string): ScalarImpl {
  const key = `${opId}|${typesJson}`;
  let impl = impls.get(key);
  if (!impl) {
    const fn = functionById(opId);
    const types = JSON.parse(typesJson) as SqlType[];
    impl = fn?.scalar ?? fn?.scalarFor?.(types);
    if (!impl) throw new Error(`operator ${opId} has no implementation`);
    impls.set(key, impl);
  }
  return impl;
}

function arrayCompare(all: boolean): ScalarImpl {
  return (args, ctx) => {
    const [opId, typesJson, left, arr] = args as [string, string, unknown, (unknown[] | null)];
    if (arr === null || arr === undefined) return null;
    if (arr.length === 0) return all;
    if (left === null) return null;
    const impl = elementImpl(opId, typesJson);
    let sawNull = false;
    for (const el of arr) {
      if (el === null) { sawNull = true; continue; }
      const r = impl([left, el], ctx);
      if (r === null) { sawNull = true; continue; }
      if (all && r === false) return false;
      if (!all && r === true) return true;
    }
    return sawNull ? null : all;
  };
}

const bool: SqlType = { kind: 'bool' };
registerScalarFunction({ name: 'floe_array_any', id: arrayAnyId, args: ['any', 'any', 'any', 'any'], returns: bool, strict: false, impl: arrayCompare(false) });
registerScalarFunction({ name: 'floe_array_all', id: arrayAllId, args: ['any', 'any', 'any', 'any'], returns: bool, strict: false, impl: arrayCompare(true) });

/** The call for `left op ANY|ALL (array)` given the element operator's registry id and argument types. */
export function arrayComparison(all: boolean, opId: string, argTypes: readonly SqlType[], left: Expr, array: Expr): Expr {
  const text: SqlType = { kind: 'text' };
  return Exprs.call(all ? arrayAllId : arrayAnyId, [
    Exprs.literal(opId, text), Exprs.literal(JSON.stringify(argTypes), text), left, array,
  ], bool);
}
