/** An error answer of the management API: its HTTP status and SQLSTATE. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly sqlstate: string, message: string, readonly detail?: string) {
    super(message);
  }
}

/** Dispatched on window when the API answers 401: the app shows its login form. */
export const UNAUTHORIZED_EVENT = 'floe:unauthorized';

/**
 * Calls the management API. The header tells the server this is the dashboard, so a 401
 * does not carry a Basic challenge (which would open the browser's password dialog).
 */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers: { 'x-floe-dashboard': '1', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    credentials: 'same-origin',
  });
  const body = await res.json().catch(() => undefined);
  if (res.status === 401) window.dispatchEvent(new CustomEvent(UNAUTHORIZED_EVENT));
  if (!res.ok) {
    const e = (body as { error?: { sqlstate?: string; message?: string; detail?: string } } | undefined)?.error;
    throw new ApiError(res.status, e?.sqlstate ?? '', e?.message ?? `HTTP ${res.status}`, e?.detail);
  }
  return body as T;
}

/** Who the dashboard acts as. */
export interface Principal {
  readonly user: string;
  readonly superuser: boolean;
}
