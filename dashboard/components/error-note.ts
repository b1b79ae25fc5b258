import { html } from 'htm/preact';
import { ApiError } from '../api.js';

/** An API error as a person reads it: what was refused and why, with the HTTP status and SQLSTATE. */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (error === undefined) return null;
  const code = error instanceof ApiError ? `${error.status} · SQLSTATE ${error.sqlstate}: ` : '';
  const detail = error instanceof ApiError && error.detail !== undefined ? ` ${error.detail}` : '';
  return html`<p class="error" role="alert">${code}${error.message}${detail}</p>`;
}
