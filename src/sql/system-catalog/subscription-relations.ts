import { formatLsn } from '../../common/pg-lsn.js';
import type { SubscriptionMetadata, SubscriptionRunner } from '../../lake/index.js';
import { BOOTSTRAP_SUPERUSER_OID, FLOE_DATABASE_OID } from './catalog-oids.js';
import type { CatalogView } from './catalog-view.js';

/**
 * Subscriptions (CDC in) in the catalogs: pg_subscription and pg_subscription_rel as
 * PostgreSQL 15 has them, pg_stat_subscription from what the runner last saved, and
 * Floe's floe_subscriptions with the stored position, the lag and the last error. All read
 * the lake's catalog, so every process of a warehouse shows the same rows. pg_lsn values
 * are text in Floe (PostgreSQL's `X/Y` form).
 */
export const subscriptionRelationShapes = [
  { schema: 'pg_catalog', name: 'pg_subscription_rel', oid: 6102, relkind: 'r', columns: 'srsubid:oid srrelid:oid srsubstate:char srsublsn:text' },
  {
    schema: 'pg_catalog', name: 'pg_stat_subscription', oid: 12244, relkind: 'v',
    columns: 'subid:oid subname:name pid:int4 relid:oid received_lsn:text last_msg_send_time:timestamptz '
      + 'last_msg_receipt_time:timestamptz latest_end_lsn:text latest_end_time:timestamptz',
  },
  {
    schema: 'pg_catalog', name: 'floe_subscriptions', oid: 16310, relkind: 'v',
    columns: 'subname:name enabled:bool slot_name:name publications:text[] tables:int4 tables_copying:int4 received_lsn:text '
      + 'applied_lsn:text source_wal_end:text lag_bytes:int8 lag_seconds:float8 last_applied_source_time:timestamptz '
      + 'last_applied_time:timestamptz last_msg_receipt_time:timestamptz pid:int4 last_error:text last_error_time:timestamptz '
      + 'runner:text runner_heartbeat:timestamptz',
  },
] as const;

type Row = Record<string, unknown>;

function subscriptionsOf(v: CatalogView): readonly SubscriptionMetadata[] {
  const w = v.ctx.warehouse as { listSubscriptions?: () => SubscriptionMetadata[] } | undefined;
  return typeof w?.listSubscriptions === 'function' ? w.listSubscriptions() : [];
}

const lsn = (x: bigint | undefined) => (x === undefined ? null : formatLsn(x));

/** The runner saves what it received once a second, and each commit moves the applied LSN: what was applied was received. */
const received = (s: SubscriptionMetadata) => (s.receivedLsn > s.appliedLsn ? s.receivedLsn : s.appliedLsn);

function pgSubscription(v: CatalogView): Row[] {
  return subscriptionsOf(v).map((s) => ({
    oid: s.id, subdbid: FLOE_DATABASE_OID, subskiplsn: '0/0', subname: s.name, subowner: BOOTSTRAP_SUPERUSER_OID,
    subenabled: s.enabled, subbinary: s.options.binary === 'true', substream: s.options.streaming === 'true',
    subtwophasestate: s.options.two_phase === 'true' ? 'p' : 'd', subdisableonerr: s.options.disable_on_error === 'true',
    subconninfo: s.conninfo, subslotname: s.slotName ?? null, subsynccommit: s.options.synchronous_commit ?? 'off',
    subpublications: s.publications,
  }));
}

function pgSubscriptionRel(v: CatalogView): Row[] {
  return subscriptionsOf(v).flatMap((s) => s.tables.map((t) => ({
    srsubid: s.id, srrelid: t.tableId, srsubstate: t.state === 'ready' ? 'r' : 'i', srsublsn: t.state === 'ready' ? lsn(t.syncLsn) : null,
  })));
}

/** Only subscriptions whose runner streams have a row with a pid, as in PostgreSQL (its apply worker's). */
function pgStatSubscription(v: CatalogView): Row[] {
  return subscriptionsOf(v).map((s) => ({
    subid: s.id, subname: s.name, pid: s.pid ?? null, relid: null,
    received_lsn: s.pid === undefined ? null : lsn(received(s)),
    last_msg_send_time: s.lastMsgSendMicros ?? null, last_msg_receipt_time: s.lastMsgReceiptMicros ?? null,
    latest_end_lsn: s.pid === undefined ? null : lsn(s.appliedLsn), latest_end_time: s.appliedMicros ?? null,
  }));
}

/** Who holds each subscription's runner lease (host:pid:…), by subscription id. */
function runnersOf(v: CatalogView): ReadonlyMap<number, SubscriptionRunner> {
  const w = v.ctx.warehouse as { listSubscriptionRunners?: () => SubscriptionRunner[] } | undefined;
  return new Map((typeof w?.listSubscriptionRunners === 'function' ? w.listSubscriptionRunners() : []).map((r) => [r.subscriptionId, r]));
}

function floeSubscriptions(v: CatalogView): Row[] {
  const nowMicros = BigInt(Date.now()) * 1000n;
  const runners = runnersOf(v);
  return subscriptionsOf(v).map((s) => {
    const behind = s.sourceWalEnd > s.appliedLsn ? s.sourceWalEnd - s.appliedLsn : 0n;
    const waiting = s.pendingSinceMicros === undefined ? 0 : Math.max(0, Number(nowMicros - s.pendingSinceMicros) / 1e6);
    return {
      subname: s.name, enabled: s.enabled, slot_name: s.slotName ?? null, publications: s.publications, tables: s.tables.length,
      tables_copying: s.tables.filter((t) => t.state !== 'ready').length, received_lsn: lsn(received(s)), applied_lsn: lsn(s.appliedLsn),
      source_wal_end: lsn(s.sourceWalEnd), lag_bytes: behind, lag_seconds: waiting,
      last_applied_source_time: s.appliedSourceMicros ?? null, last_applied_time: s.appliedMicros ?? null,
      last_msg_receipt_time: s.lastMsgReceiptMicros ?? null, pid: s.pid ?? null, last_error: s.lastError ?? null, last_error_time: s.lastErrorMicros ?? null,
      runner: runners.get(s.id)?.owner ?? null, runner_heartbeat: runners.get(s.id)?.heartbeatMicros ?? null,
    };
  });
}

export const subscriptionRowSources: Readonly<Record<string, (v: CatalogView) => Row[]>> = {
  'pg_catalog.pg_subscription': pgSubscription,
  'pg_catalog.pg_subscription_rel': pgSubscriptionRel,
  'pg_catalog.pg_stat_subscription': pgStatSubscription,
  'pg_catalog.floe_subscriptions': floeSubscriptions,
};
