import { parseStatements } from '../parser/parse-statements.js';
import type { CatalogView, CatalogViewInfo } from './catalog-view.js';

function quoteIdent(s: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(s) ? s : `"${s.replaceAll('"', '""')}"`;
}

/** Every RangeVar of a parse tree without a schema, with the WITH query names in scope anywhere in it. */
function unqualifiedRangeVars(node: unknown, out: { name: string; location: number }[], ctes: Set<string>): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) { for (const x of node) unqualifiedRangeVars(x, out, ctes); return; }
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'CommonTableExpr') ctes.add(String((value as { ctename?: string }).ctename));
    if (key === 'RangeVar') {
      const rv = value as { schemaname?: string; relname?: string; location?: number };
      if (rv.schemaname === undefined && rv.relname !== undefined && typeof rv.location === 'number') out.push({ name: rv.relname, location: rv.location });
      continue;
    }
    unqualifiedRangeVars(value, out, ctes);
  }
}

/**
 * pg_get_viewdef's text: the query as written, with each table or view it names unqualified
 * prefixed by the schema it resolves to (through the view's creation search_path) when
 * the current search_path does not reach that schema, as PostgreSQL qualifies names in its
 * deparse (pg_dump, which empties search_path, relies on it).
 */
export function viewDefinitionText(v: Pick<CatalogView, 'ctx' | 'tables' | 'views'> & Partial<Pick<CatalogView, 'materializedViews'>>, view: CatalogViewInfo): string {
  const text = view.definition.trim();
  let refs: { name: string; location: number }[] = [];
  const ctes = new Set<string>();
  try {
    const [stmt] = parseStatements(text);
    if (stmt !== undefined) unqualifiedRangeVars(stmt.ast, refs, ctes);
  } catch {
    return ` ${text};`;
  }
  const exists = (schema: string, name: string) => v.tables.some((t) => t.namespace === schema && t.name === name)
    || v.views.some((x) => x.namespace === schema && x.name === name)
    || (v.materializedViews ?? []).some((x) => x.namespace === schema && x.name === name);
  const current = v.ctx.searchPath;
  refs = refs.filter((r) => !ctes.has(r.name)).sort((a, b) => b.location - a.location);
  let out = text;
  for (const r of refs) {
    const base = r.name.includes('$') ? r.name.slice(0, r.name.indexOf('$')) : r.name;
    const schema = (view.searchPath ?? ['public']).find((s) => exists(s, base));
    if (schema === undefined || current.includes(schema)) continue;
    out = `${out.slice(0, r.location)}${quoteIdent(schema)}.${out.slice(r.location)}`;
  }
  return ` ${out};`;
}
