import { type Expr, Exprs, resolveFunction, resolveOperator } from '../../exec/index.js';

/**
 * PostgreSQL's subscripting of its fixed-layout catalog types, which counts from 0:
 * `name[i]` is the i-th byte as "char" (pg_dump tests `typname[0] = '_'`), and an
 * int2vector / oidvector `v[i]` the i-th element (`indkey[0]`). Floe's arrays count
 * from 1, so the index is shifted; undefined for any other type.
 */
/** Marks a subscript the binder writes itself that counts from 1 on every array (_pg_expandarray's elements). */
export const ordinalSubscript = Symbol.for('floe.ordinalSubscript');

export function rawSubscript(e: Expr, index: Expr): Expr | undefined {
  const plusOne = (): Expr => {
    const add = resolveOperator('+', index.type, { kind: 'int4' })!;
    return Exprs.call(add.id, [index, Exprs.literal(1, { kind: 'int4' })], add.returnType);
  };
  if (e.type.kind === 'array' && e.type.catalogType !== undefined) {
    return { kind: 'subscript', arg: e, index: plusOne(), type: e.type.element };
  }
  if (e.type.kind === 'name') {
    const text = { kind: 'text' } as const;
    const substr = resolveFunction('substr', [text, { kind: 'int4' }, { kind: 'int4' }])!;
    const one = Exprs.literal(1, { kind: 'int4' });
    return Exprs.cast(Exprs.call(substr.id, [Exprs.cast(e, text), plusOne(), one], substr.returnType), { kind: 'char' });
  }
  return undefined;
}
