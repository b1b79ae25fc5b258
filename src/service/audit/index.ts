/** The audit trail's public API (issue 30): what the session, the wire and `floe serve` use. */
export type { AuditAction, AuditEvent, AuditOutcome } from './audit-event.js';
export { auditActionOf, type AuditedStatement } from './audit-action.js';
export { AuditTrail, type AuditTrailOptions, type AuditTrailStatus } from './audit-trail.js';
export { AUDIT_NAMESPACE, AUDIT_TABLE, type AuditWarehouse } from './audit-table.js';
export { AuditSpool } from './audit-spool.js';
export { recoverAuditSpools } from './audit-spool-recovery.js';
