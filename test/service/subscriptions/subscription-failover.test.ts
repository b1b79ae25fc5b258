import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGateway } from '../killable-gateway.js';
import type { KillableGateway } from '../killable-gateway.js';
import { startPostgres } from '../../harness/postgres-server.js';
import { connect, conninfoOf, createSourceSchema, dropSlotsOf, randomTransaction, rng, uniqueSlot, waitFor, waitForEquality } from './cdc-source.js';

// Two gateways on one warehouse, one subscription (issue 28: "subscriptions each have one
// owner with failover"). Exactly one gateway runs it (floe_subscriptions names the lease's
// holder, and no runner fails on a slot the other holds); when that gateway stops, the other
// takes the lease at once and streams on; when it is SIGKILLed, likewise (a holder on this
// host whose process is gone is not waited out). Floe's tables equal the source's at the end.
const url = process.env.FLOE_TEST_PG_URL;
const skip = url === undefined || url === '' ? 'needs FLOE_TEST_PG_URL (a PostgreSQL with wal_level=logical)' : false;
const SERVE_ARGS = ['--optimizer-threads', '0', '--scan-threads', '1'];

test('one gateway of two runs a subscription; the other takes it over on stop and on SIGKILL', { skip, timeout: 300_000 }, async () => {
  const pgs = await startPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), 'floe-cdc-failover-'));
  const source = await connect(pgs.url);
  const started: KillableGateway[] = [];
  const start = async () => {
    const g = await loadGateway().start(['--data', dataDir, ...SERVE_ARGS]);
    started.push(g);
    return g;
  };
  const floeUrl = (g: KillableGateway) => `postgres://floe@127.0.0.1:${g.port}/floe`;
  const status = async (g: KillableGateway) => {
    const f = await connect(floeUrl(g));
    try {
      return (await f.query<{ runner: string | null; last_error: string | null }>(`SELECT runner, last_error FROM floe_subscriptions WHERE subname = 'sf'`)).rows[0]!;
    } finally { await f.end(); }
  };
  const runnerPid = (runner: string | null) => (runner === null ? undefined : Number(runner.split(':').at(-2)));
  try {
    await createSourceSchema(source, 'pub_failover');
    const rand = rng(2805);
    for (let i = 0; i < 20; i++) await randomTransaction(source, rand);
    const a = await start();
    const b = await start();
    const f = await connect(floeUrl(a));
    await f.query(`CREATE SUBSCRIPTION sf CONNECTION '${conninfoOf(pgs)}' PUBLICATION pub_failover WITH (slot_name = ${uniqueSlot()})`);
    await f.end();
    await waitForEquality(source, floeUrl(b));

    // One runner, and it stays the same one: the other gateway never tries the slot.
    const first = await waitFor(() => status(b), (s) => s.runner !== null, 'a runner lease');
    const holderPid = runnerPid(first.runner);
    assert.ok(holderPid === a.pid || holderPid === b.pid, `the lease names a gateway: ${first.runner}`);
    for (let i = 0; i < 10; i++) await randomTransaction(source, rand);
    await waitForEquality(source, floeUrl(a));
    const later = await status(a);
    assert.equal(later.runner, first.runner, 'the lease stayed with its holder');
    assert.equal(later.last_error, null, 'no runner failed on a slot the other gateway streams');

    // A clean stop gives the lease up; the other gateway takes it at its next poll.
    const [holder, other] = holderPid === a.pid ? [a, b] : [b, a];
    await holder.stop();
    for (let i = 0; i < 10; i++) await randomTransaction(source, rand);
    const taken = await waitFor(() => status(other), (s) => runnerPid(s.runner) === other.pid, 'the other gateway takes the lease', 20_000);
    assert.notEqual(taken.runner, first.runner);
    await waitForEquality(source, floeUrl(other));

    // A third gateway joins; the holder is SIGKILLed mid-stream; the newcomer takes over at once.
    const third = await start();
    let writing = true;
    const writer = (async () => { while (writing) { await randomTransaction(source, rand); await new Promise((r) => setTimeout(r, 5)); } })();
    await new Promise((r) => setTimeout(r, 500));
    await other.kill();
    const killedAt = Date.now();
    await waitFor(() => status(third), (s) => runnerPid(s.runner) === third.pid, 'the new gateway takes the dead one\'s lease', 20_000);
    const takeoverMs = Date.now() - killedAt;
    writing = false;
    await writer;
    await waitForEquality(source, floeUrl(third));
    assert.ok(takeoverMs < 10_000, `taken over in ${takeoverMs} ms, not after the 15 s lease`);
    const f3 = await connect(floeUrl(third));
    try { await f3.query('DROP SUBSCRIPTION sf'); } finally { await f3.end(); }
  } finally {
    for (const g of started) await g.stop().catch(() => undefined);
    await source.end().catch(() => undefined);
    await dropSlotsOf(pgs.adminUrl, pgs.database).catch(() => undefined);
    await pgs.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
