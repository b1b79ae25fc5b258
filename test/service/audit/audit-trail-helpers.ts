import type { LakeTransaction, TableMetadata, Warehouse } from '../../../src/lake/index.js';
import { AUDIT_NAMESPACE, AUDIT_TABLE, type AuditEvent, type AuditWarehouse, type ServiceLogger } from '../../../src/service/index.js';
import { readRows, type Row } from '../../lake/helpers/read-table.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn';
  readonly obj: Record<string, unknown>;
  readonly msg: string | undefined;
}

/** A logger that keeps its lines. */
export function captureLogger(): { logger: ServiceLogger; lines: LogLine[]; messages: (msg: string) => LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg?: string) => { lines.push({ level, obj: obj as Record<string, unknown>, msg }); };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn') }, lines, messages: (msg) => lines.filter((l) => l.msg === msg) };
}

export const NOW = BigInt(Date.now()) * 1000n;

/** An event with defaults; `n` makes its statement unique. */
export function event(n: number, over: Partial<AuditEvent> = {}): AuditEvent {
  return {
    at: NOW + BigInt(n), userName: 'alice', clientAddr: '10.0.0.7', applicationName: 'psql', action: 'write',
    objects: ['public.t'], statement: `INSERT INTO t VALUES (${n})`, rows: 1, sqlstate: '00000', outcome: 'success', ...over,
  };
}

export function auditTable(wh: Pick<Warehouse, 'getTable'>): TableMetadata {
  const t = wh.getTable(AUDIT_NAMESPACE, AUDIT_TABLE);
  if (t === undefined) throw new Error('audit.floe_audit does not exist');
  return t;
}

/** floe_audit's rows in statement order (the tests' statements sort as their numbers do when padded). */
export async function auditRows(wh: Warehouse, at?: Parameters<Warehouse['resolveSnapshot']>[1]): Promise<Row[]> {
  const rows = await readRows(wh, { table: auditTable(wh), ...(at === undefined ? {} : { at }) });
  return rows.sort((a, b) => (a['at'] as bigint) < (b['at'] as bigint) ? -1 : (a['at'] as bigint) > (b['at'] as bigint) ? 1 : 0);
}

/** The statements of floe_audit's rows, in `at` order. */
export async function auditStatements(wh: Warehouse): Promise<unknown[]> {
  return (await auditRows(wh)).map((r) => r['statement']);
}

/**
 * The warehouse, except that the next `failures` commits fail (after staging their
 * rows: the transaction is aborted, as a failed commit leaves it).
 */
export function failingCommits(wh: Warehouse, failures: { count: number }): AuditWarehouse {
  return {
    getTable: (ns, name) => wh.getTable(ns, name),
    createNamespace: (name, opts) => wh.createNamespace(name, opts),
    createTable: (def, opts) => wh.createTable(def, opts),
    planScan: (req) => wh.planScan(req),
    begin: async (opts) => {
      const txn = await wh.begin(opts);
      return new Proxy(txn, {
        get(target, prop) {
          if (prop === 'commit') {
            return async () => {
              if (failures.count > 0) {
                failures.count--;
                await target.abort();
                throw new Error('injected commit failure');
              }
              return target.commit();
            };
          }
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }) as LakeTransaction;
    },
  };
}

export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
