import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote } from './error-note.js';

interface ActionButtonProps {
  readonly label: string;
  readonly path: string;
  readonly body?: unknown;
  /** Asked before acting; none: act at once. */
  readonly confirm?: string;
  readonly onDone?: () => void;
}

/**
 * An admin action (POST). Shown to everyone: the server decides who may act, and a
 * refusal (403 for a user who is not a superuser) is shown beside the button.
 */
export function ActionButton({ label, path, body, confirm, onDone }: ActionButtonProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [done, setDone] = useState(false);
  const act = async () => {
    if (confirm !== undefined && !window.confirm(confirm)) return;
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await api(path, { method: 'POST', body: body ?? {} });
      setDone(true);
      onDone?.();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return html`<span class="action">
    <button type="button" class="admin" title="Needs a superuser" disabled=${busy} onClick=${act}>${busy ? `${label}…` : label}</button>
    ${done ? html`<span class="ok">done</span>` : null}
    <${ErrorNote} error=${error} />
  </span>`;
}
