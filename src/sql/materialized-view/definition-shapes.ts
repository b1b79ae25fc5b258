import { unwrap, type Raw } from '../binder/ast.js';
import type { BindEnv } from '../bind-env.js';
import { BindContext } from '../binder/bind-context.js';
import { parsedDefinition, shapeOfDefinition } from '../binder/bind-materialized-view.js';
import { tryResolveRelation } from '../binder/resolve-relation.js';
import type { ParsedStatement } from '../parsed-statement.js';
import type { ViewShape } from './view-shape.js';

/*
 * A view's definition, parsed, and its shape, kept between uses. Every refresh and every
 * query a view might answer needs the shape, and finding it binds the whole definition:
 * milliseconds for a seven-table join, on the thread that answers queries. An entry holds
 * while every relation the definition names resolves as it did when the entry was made
 * (the same table, key and columns, or the same view or system relation); a shape depends
 * on nothing else but the text, as no function a definition calls can change volatility.
 *
 * What an entry holds is frozen: its users build new trees from it, and one that changed
 * it would change every later refresh's and rewrite's.
 */

export interface DefinitionShape {
  readonly parsed: ParsedStatement;
  /** The definition's SELECT (unwrapped). */
  readonly select: Raw;
  readonly shape: ViewShape;
}

interface Entry extends DefinitionShape {
  /** Each RangeVar of the definition and what it resolved to (resolutionOf), in tree order. */
  readonly resolutions: readonly { readonly rv: Raw; readonly resolved: string }[];
}

const MAX_ENTRIES = 256;
const entries = new Map<string, Entry>();

/** The parsed definition and its shape as `env` (the view's search_path) binds it. */
export function definitionShape(definition: string, env: BindEnv): DefinitionShape {
  const key = `${JSON.stringify(env.searchPath)}\u0000${definition}`;
  const cached = entries.get(key);
  const probe = cached === undefined ? undefined : new BindContext(cached.parsed, env);
  if (cached !== undefined && cached.resolutions.every((r) => resolutionOf(probe!, r.rv) === r.resolved)) {
    // Most recently used last: the first entry is the one to drop.
    entries.delete(key);
    entries.set(key, cached);
    return cached;
  }
  // A copy: the parse cache's tree is shared with every statement of the same text, and this one is frozen.
  const parsed = structuredClone(parsedDefinition(definition));
  const ctx = new BindContext(parsed, env);
  const select = unwrap(parsed.ast)[1];
  const { shape } = shapeOfDefinition(ctx, select);
  const entry: Entry = deepFreeze({ parsed, select, shape, resolutions: rangeVars(parsed.ast).map((rv) => ({ rv, resolved: resolutionOf(ctx, rv) })) });
  entries.delete(key);
  entries.set(key, entry);
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  return entry;
}

/** What a RangeVar names, as a string that differs whenever a shape computed over it could. */
function resolutionOf(ctx: BindContext, rv: Raw): string {
  const rel = tryResolveRelation(ctx, rv.schemaname as string | undefined, rv.relname as string);
  if (rel === undefined) return 'none';
  if (rel.kind === 'virtual') return `virtual ${rel.table.schema}.${rel.table.name}`;
  if (rel.kind === 'view') return `view ${rel.view.id} ${rel.view.definition}`;
  const t = rel.table;
  return JSON.stringify(['lake', t.id, t.namespace, t.name, rel.branch ?? null, t.primaryKey, t.columns.map((c) => [c.name, c.type, c.hidden === true])]);
}

function rangeVars(node: unknown, out: Raw[] = []): Raw[] {
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const x of node) rangeVars(x, out);
    return out;
  }
  const n = node as Raw;
  if (n.RangeVar !== undefined) out.push(n.RangeVar);
  for (const v of Object.values(n)) rangeVars(v, out);
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
