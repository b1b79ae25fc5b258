import type { AuditEvent } from './audit-event.js';
import type { AuditRow } from './audit-table.js';
import { boundedText, utf8Bytes } from './bounded-text.js';

/**
 * The row an event becomes: its own copy of `objects` (the caller may reuse its array), a
 * statement cut to `maxStatementBytes`, and `rows` NULL unless a non-negative safe integer,
 * so that nothing the session hands in can make the table's insert fail later.
 */
export function auditRowOf(event: AuditEvent, maxStatementBytes: number): AuditRow {
  return {
    at: typeof event.at === 'bigint' ? event.at : BigInt(Date.now()) * 1000n,
    userName: String(event.userName),
    clientAddr: event.clientAddr === null || event.clientAddr === undefined ? null : String(event.clientAddr),
    applicationName: String(event.applicationName ?? ''),
    action: event.action,
    objects: Array.isArray(event.objects) ? event.objects.map(String) : [],
    statement: typeof event.statement === 'string' ? boundedText(event.statement, maxStatementBytes) : null,
    rows: Number.isSafeInteger(event.rows) && event.rows! >= 0 ? event.rows : null,
    sqlstate: String(event.sqlstate),
    outcome: event.outcome,
  };
}

/** Bytes a buffered row holds, roughly: what the buffer's byte bound counts. */
export function auditRowBytes(row: AuditRow): number {
  let n = 128 + row.userName.length + row.applicationName.length + (row.clientAddr?.length ?? 0);
  for (const o of row.objects) n += 16 + o.length;
  if (row.statement !== null) n += 2 * row.statement.length;
  return n;
}

/**
 * The fields of an event's log line (message `audit`), named like floe_audit's columns:
 * `at` in ISO 8601 with microseconds, the statement cut to `maxStatementBytes` (then
 * `statement_bytes` gives its full length).
 */
export function auditLogFields(event: AuditEvent, maxStatementBytes: number): Record<string, unknown> {
  const statement = typeof event.statement === 'string' ? event.statement : null;
  const shown = statement === null ? null : boundedText(statement, maxStatementBytes);
  return {
    at: isoMicros(event.at),
    user_name: event.userName,
    client_addr: event.clientAddr,
    application_name: event.applicationName,
    action: event.action,
    objects: event.objects,
    statement: shown,
    ...(shown !== statement ? { statement_bytes: utf8Bytes(statement!) } : {}),
    rows: event.rows,
    sqlstate: event.sqlstate,
    outcome: event.outcome,
  };
}

/** 2024-05-01T12:00:00.123456Z. */
export function isoMicros(micros: bigint): string {
  if (typeof micros !== 'bigint') return String(micros);
  let ms = micros / 1000n;
  let sub = micros % 1000n;
  if (sub < 0n) { ms -= 1n; sub += 1000n; }
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return String(micros);
  return `${d.toISOString().slice(0, -1)}${String(sub).padStart(3, '0')}Z`;
}
