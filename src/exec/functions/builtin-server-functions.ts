import { cancellableSleep } from '../../common/cancellable-sleep.js';
import { FloeError } from '../../common/floe-error.js';
import type { Interval, SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import type { EvalContext } from '../expr/eval-context.js';
import type { AdvisoryLockKey, ServerFunctions } from '../server-functions.js';
import { registerAsyncScalarFunction, registerScalarFunction } from './function-registry.js';

const voidType: SqlType = { kind: 'void' };
const bool: SqlType = { kind: 'bool' };
const int4: SqlType = { kind: 'int4' };
const int8: SqlType = { kind: 'int8' };
const float8: SqlType = { kind: 'float8' };
const text: SqlType = { kind: 'text' };
/** A void function's value: PostgreSQL sends it as an empty, non-NULL field. */
const VOID = '';

function server(ctx: EvalContext, what: string): ServerFunctions {
  if (ctx.server === undefined) throw new FloeError(SqlState.featureNotSupported, `${what} needs a client session`);
  return ctx.server;
}

/** Seconds in an interval, as extract(epoch from interval) counts them (a year is 365.25 days, a month 30). */
function intervalSeconds(v: Interval): number {
  const years = Math.trunc(v.months / 12);
  const months = v.months % 12;
  return years * 365.25 * 86400 + months * 30 * 86400 + v.days * 86400 + Number(v.micros) / 1e6;
}

async function sleepSeconds(seconds: number, ctx: EvalContext, signal: AbortSignal | undefined): Promise<string> {
  const ms = Number.isFinite(seconds) ? seconds * 1000 : 0;
  if (ctx.server !== undefined) await ctx.server.sleep(ms, signal);
  else await cancellableSleep(ms, signal);
  return VOID;
}

/** pg_advisory_*(bigint): the key's high and low halves; (int4, int4): the two keys, a separate key space. */
function bigintKey(k: bigint): AdvisoryLockKey {
  const u = BigInt.asUintN(64, k);
  return { classid: Number(u >> 32n), objid: Number(u & 0xffffffffn), objsubid: 1 };
}

function pairKey(a: number, b: number): AdvisoryLockKey {
  return { classid: a >>> 0, objid: b >>> 0, objsubid: 2 };
}

const keyForms: readonly { readonly args: readonly SqlType[]; readonly key: (a: unknown[]) => AdvisoryLockKey }[] = [
  { args: [int8], key: (a) => bigintKey(a[0] as bigint) },
  { args: [int4, int4], key: (a) => pairKey(a[0] as number, a[1] as number) },
];

/**
 * pg_sleep and friends, pg_cancel_backend, pg_terminate_backend, pg_notify and the
 * advisory lock functions: volatile, and those that wait are async (compile-expr
 * awaits them row by row under the statement's cancel signal).
 */
export function registerBuiltinServerFunctions(): void {
  registerAsyncScalarFunction({ name: 'pg_sleep', args: [float8], returns: voidType, impl: (a, ctx, signal) => sleepSeconds(a[0] as number, ctx, signal) });
  registerAsyncScalarFunction({
    name: 'pg_sleep_for', args: [{ kind: 'interval' }], returns: voidType,
    impl: (a, ctx, signal) => sleepSeconds(intervalSeconds(a[0] as Interval), ctx, signal),
  });
  registerAsyncScalarFunction({
    name: 'pg_sleep_until', args: [{ kind: 'timestamptz' }], returns: voidType,
    impl: (a, ctx, signal) => sleepSeconds(Number((a[0] as bigint) - BigInt(Date.now()) * 1000n) / 1e6, ctx, signal),
  });

  registerScalarFunction({ name: 'pg_cancel_backend', args: [int4], returns: bool, volatile: true, impl: (a, ctx) => server(ctx, 'pg_cancel_backend').cancelBackend(a[0] as number) });
  registerAsyncScalarFunction({ name: 'pg_terminate_backend', args: [int4], returns: bool, impl: (a, ctx) => server(ctx, 'pg_terminate_backend').terminateBackend(a[0] as number, 0) });
  registerAsyncScalarFunction({
    name: 'pg_terminate_backend', args: [int4, int8], returns: bool,
    impl: (a, ctx) => {
      const timeout = a[1] as bigint;
      if (timeout < 0n) throw new FloeError(SqlState.numericValueOutOfRange, '"timeout" must not be negative');
      return server(ctx, 'pg_terminate_backend').terminateBackend(a[0] as number, Number(timeout));
    },
  });

  // Not strict: a NULL channel is the empty one (refused), a NULL payload the empty payload.
  registerScalarFunction({
    name: 'pg_notify', args: [text, text], returns: voidType, volatile: true, strict: false,
    impl: (a, ctx) => {
      server(ctx, 'pg_notify').notify((a[0] as string | null) ?? '', (a[1] as string | null) ?? '');
      return VOID;
    },
  });

  for (const { args, key } of keyForms) {
    for (const shared of [false, true]) {
      const suffix = shared ? '_shared' : '';
      for (const xact of [false, true]) {
        const level = xact ? '_xact' : '';
        const lock = `pg_advisory${level}_lock${suffix}`;
        registerAsyncScalarFunction({
          name: lock, args, returns: voidType,
          impl: async (a, ctx, signal) => {
            await server(ctx, lock).advisoryLock(key(a), { shared, xact, wait: true }, signal);
            return VOID;
          },
        });
        const tryLock = `pg_try_advisory${level}_lock${suffix}`;
        registerAsyncScalarFunction({
          name: tryLock, args, returns: bool,
          impl: (a, ctx, signal) => server(ctx, tryLock).advisoryLock(key(a), { shared, xact, wait: false }, signal),
        });
      }
      const unlock = `pg_advisory_unlock${suffix}`;
      registerScalarFunction({ name: unlock, args, returns: bool, volatile: true, impl: (a, ctx) => server(ctx, unlock).advisoryUnlock(key(a), shared) });
    }
  }
  // pg_stat_statements_reset()'s counterpart: floe_stat_statements starts over for every session.
  registerScalarFunction({
    name: 'floe_stat_statements_reset', args: [], returns: voidType, volatile: true,
    impl: (_a, ctx) => {
      server(ctx, 'floe_stat_statements_reset').resetStatementStatistics();
      return VOID;
    },
  });
  registerScalarFunction({
    name: 'pg_advisory_unlock_all', args: [], returns: voidType, volatile: true,
    impl: (_a, ctx) => {
      server(ctx, 'pg_advisory_unlock_all').advisoryUnlockAll();
      return VOID;
    },
  });
}
