import { isFloeError } from '../common/floe-error.js';
import type { ResponseFields } from './messages/response.js';
import type { Notice } from './session-handler.js';

/** Any thrown value as ErrorResponse fields; anything but a FloeError is an internal error (XX000). */
export function errorFields(e: unknown): ResponseFields {
  if (isFloeError(e)) {
    return {
      severity: e.severity,
      sqlstate: e.sqlstate,
      message: e.message,
      ...(e.detail === undefined ? {} : { detail: e.detail }),
      ...(e.hint === undefined ? {} : { hint: e.hint }),
      ...(e.position === undefined ? {} : { position: e.position }),
      ...e.objects,
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { severity: 'ERROR', sqlstate: 'XX000', message: message === '' ? 'internal error' : message };
}

export function isFatal(e: unknown): boolean {
  return isFloeError(e) && (e.severity === 'FATAL' || e.severity === 'PANIC');
}

export function noticeFields(n: Notice): ResponseFields {
  return {
    severity: n.severity,
    sqlstate: n.sqlstate,
    message: n.message,
    ...(n.detail === undefined ? {} : { detail: n.detail }),
    ...(n.hint === undefined ? {} : { hint: n.hint }),
  };
}
