import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, type Principal } from './api.js';
import { ErrorNote } from './components/error-note.js';

/** Logs in with a user of the server's users file; the server answers with a session cookie. */
export function LoginForm({ onLogin }: { onLogin: (p: Principal) => void }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onLogin(await api<Principal>('/api/v1/login', { method: 'POST', body: { user, password } }));
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="login" onSubmit=${submit}>
    <h2>Log in to Floe</h2>
    <p class="muted">A user of this warehouse (<code>floe user add</code>), with the password used for the PostgreSQL port.</p>
    <label>User <input name="user" autocomplete="username" value=${user} onInput=${(e: Event) => setUser((e.target as HTMLInputElement).value)} required /></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" value=${password} onInput=${(e: Event) => setPassword((e.target as HTMLInputElement).value)} /></label>
    <button type="submit" disabled=${busy}>Log in</button>
    <${ErrorNote} error=${error} />
  </form>`;
}
