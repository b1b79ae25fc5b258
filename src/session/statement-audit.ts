import { FloeError } from '../common/floe-error.js';
import type { RowBatch, StatementResult } from '../common/session-handler.js';
import { auditActionOf, type AuditEvent, type AuditedStatement } from '../service/index.js';
import type { BoundStatement, DdlCommand } from '../sql/index.js';
import { whenSent } from './when-sent.js';

/** Where audit events go: floe serve's AuditTrail (src/service/audit). */
export interface AuditSink {
  record(event: AuditEvent): void;
}

/** Who ran the statement, from where, as the audit row names them. */
export interface AuditContext {
  readonly userName: string;
  readonly clientAddr: string | null;
  readonly applicationName: string;
  /** audit.log_reads, as the session has it now. */
  readonly logReads: string;
}

const ROLE_TAGS: Readonly<Partial<Record<DdlCommand['kind'], string>>> = {
  grant: 'GRANT', revoke: 'REVOKE', createRole: 'CREATE ROLE', alterRole: 'ALTER ROLE', renameRole: 'ALTER ROLE', dropRole: 'DROP ROLE',
  grantRole: 'GRANT ROLE', revokeRole: 'REVOKE ROLE',
};

/** The bound statement as the audit's classifier sees it (its tag before it runs: a failed statement has no other). */
function audited(bound: BoundStatement): AuditedStatement {
  switch (bound.kind) {
    case 'query': return { kind: 'query', commandTag: 'SELECT' };
    case 'dml': return { kind: 'dml', commandTag: bound.commandTag(0) };
    case 'ddl': return { kind: 'ddl', commandTag: ROLE_TAGS[bound.command.kind] ?? bound.command.kind, changesOwner: bound.command.kind === 'alterOwner' };
    case 'utility': {
      const c = bound.command;
      if (c.kind === 'copyFrom') return { kind: 'utility', commandTag: 'COPY', copyDirection: 'from' };
      if (c.kind === 'copyTo') return { kind: 'utility', commandTag: 'COPY', copyDirection: 'to' };
      if (c.kind === 'call') return { kind: 'utility', commandTag: 'CALL' };
      if (c.kind === 'declareCursor') return { kind: 'utility', commandTag: 'DECLARE CURSOR' };
      return { kind: 'utility', commandTag: c.kind.toUpperCase() };
    }
  }
}

/** Fields of DDL commands that name the objects acted on: relations (with their schema), types, schemas and roles. */
const RELATION_FIELDS = ['table', 'view', 'sequence', 'relation', 'tables', 'views', 'sequences', 'relations', 'type', 'types', 'target'] as const;

/** The objects a statement names: the relations it reads and writes, or what its DDL acts on (tables, schemas, roles). */
function objectsOf(bound: BoundStatement): string[] {
  const named = new Set((bound.accesses?.relations ?? []).map((a) => `${a.namespace}.${a.name}`));
  if (bound.kind !== 'ddl') return [...named];
  const c = bound.command as unknown as Record<string, unknown>;
  const add = (x: unknown) => {
    if (typeof x === 'string') named.add(x);
    if (typeof x !== 'object' || x === null) return;
    const o = x as { namespace?: unknown; schema?: unknown; name?: unknown; type?: unknown; kind?: unknown };
    if (typeof o.type === 'object') return add(o.type);
    if (typeof o.name !== 'string') return;
    const schema = typeof o.namespace === 'string' ? o.namespace : typeof o.schema === 'string' ? o.schema : undefined;
    named.add(schema === undefined ? o.name : `${schema}.${o.name}`);
  };
  for (const field of RELATION_FIELDS) for (const x of [c[field]].flat()) add(x);
  // Schemas, databases and roles are plain names.
  if (typeof c.name === 'string') named.add(c.name);
  for (const field of ['names', 'roles', 'grantees']) for (const x of [c[field] ?? []].flat()) add(x);
  return [...named];
}

/**
 * Audits one bound statement as it runs: an event when its result has been sent (with its
 * rows), or when it fails (with the SQLSTATE), if the statement is of a kind the trail keeps
 * (auditActionOf: DDL, privilege changes, writes, and reads under audit.log_reads).
 */
export async function audit(sink: AuditSink | undefined, who: () => AuditContext, bound: BoundStatement, text: string | undefined, run: () => Promise<StatementResult>): Promise<StatementResult> {
  if (sink === undefined) return run();
  const ctx = who();
  const action = auditActionOf(audited(bound), ctx.logReads);
  if (action === undefined) return run();
  const event = (outcome: 'success' | 'failure', sqlstate: string, rows: number | null): AuditEvent => ({
    at: BigInt(Date.now()) * 1000n, userName: ctx.userName, clientAddr: ctx.clientAddr, applicationName: ctx.applicationName, action,
    objects: objectsOf(bound), statement: text ?? null, rows, sqlstate, outcome,
  });
  const failed = (e: unknown) => sink.record(event('failure', e instanceof FloeError ? e.sqlstate : 'XX000', null));
  let result: StatementResult;
  try {
    result = await run();
  } catch (e) {
    failed(e);
    throw e;
  }
  return failedOnTheWay(whenSent(result, (rows) => sink.record(event('success', '00000', rows))), failed);
}

/** A rows result that fails while streaming (a write's RETURNING, a read) is audited as failed too. */
function failedOnTheWay(result: StatementResult, failed: (e: unknown) => void): StatementResult {
  if (result.kind !== 'rows') return result;
  return { ...result, batches: batchesReportingFailure(result.batches, failed) };
}

/** The batches as they come, calling `failed` with the error they fail with (which is rethrown). */
async function* batchesReportingFailure(batches: AsyncIterable<RowBatch>, failed: (e: unknown) => void): AsyncGenerator<RowBatch> {
  try {
    yield* batches;
  } catch (e) {
    failed(e);
    throw e;
  }
}
