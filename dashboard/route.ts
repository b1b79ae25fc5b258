/** The dashboard's pages, addressed by the URL's hash so the server serves one page for all. */
export type Route =
  | { readonly page: 'overview' }
  | { readonly page: 'table'; readonly schema: string; readonly table: string }
  | { readonly page: 'optimizing' }
  | { readonly page: 'sessions' };

export function routeOf(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '').map(decodeURIComponent);
  if (parts[0] === 'tables' && parts.length === 3) return { page: 'table', schema: parts[1]!, table: parts[2]! };
  if (parts[0] === 'optimizing') return { page: 'optimizing' };
  if (parts[0] === 'sessions') return { page: 'sessions' };
  return { page: 'overview' };
}
