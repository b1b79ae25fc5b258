import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { UNAUTHORIZED_EVENT, api, type Principal } from './api.js';
import { ErrorNote } from './components/error-note.js';
import { LoginForm } from './login-form.js';
import { OptimizingPage } from './pages/optimizing-page.js';
import { OverviewPage } from './pages/overview-page.js';
import { SessionsPage } from './pages/sessions-page.js';
import { TablePage } from './pages/table-page.js';
import { routeOf, type Route } from './route.js';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview': return html`<${OverviewPage} />`;
    case 'table': return html`<${TablePage} key=${`${route.schema}.${route.table}`} schema=${route.schema} table=${route.table} />`;
    case 'optimizing': return html`<${OptimizingPage} />`;
    case 'sessions': return html`<${SessionsPage} />`;
  }
}

/** The shell: who is logged in, the navigation, and the page the hash names (or the login form). */
export function App() {
  const [route, setRoute] = useState<Route>(routeOf(location.hash));
  // undefined: asking who we are; null: the server wants a login.
  const [principal, setPrincipal] = useState<Principal | null | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    const onUnauthorized = () => setPrincipal(null);
    window.addEventListener('hashchange', onHash);
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    api<Principal>('/api/v1/whoami').then(setPrincipal, (e: Error & { status?: number }) => { if (e.status !== 401) setError(e); });
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    };
  }, []);
  const logout = async () => {
    await api('/api/v1/logout', { method: 'POST' }).catch(() => undefined);
    setPrincipal(null);
  };
  const nav = (page: Route['page'], href: string, label: string) => html`<a href=${href} class=${route.page === page ? 'current' : ''}>${label}</a>`;
  return html`<header>
      <h1><a href="#/">Floe</a></h1>
      <nav>${nav('overview', '#/', 'Overview')}${nav('optimizing', '#/optimizing', 'Optimizing')}${nav('sessions', '#/sessions', 'Sessions')}</nav>
      ${principal ? html`<span class="who">${principal.user}${principal.superuser ? ' (superuser)' : ''} <button type="button" class="link" onClick=${logout}>Log out</button></span>` : null}
    </header>
    <main>
      <${ErrorNote} error=${error} />
      ${principal === null ? html`<${LoginForm} onLogin=${setPrincipal} />` : principal === undefined ? null : html`<${Page} route=${route} />`}
    </main>`;
}
