import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadGateway, type KillableGateway } from '../killable-gateway.js';

/**
 * The audit trail under SIGKILL: a client inserts one row per statement through a
 * `floe serve --audit` that is killed at a random moment, KILLS times, each time within
 * the trail's flush interval of its last acknowledged statements. After the last restart,
 * every acknowledged INSERT has exactly one audit row (the spool carried the unflushed ones
 * across the kill; the recovery skipped those a flush had already committed), and the one
 * in flight at a kill has at most one.
 */
const KILLS = Number(process.env.FLOE_AUDIT_CRASH_KILLS ?? 4);

async function connect(port: number): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'floe', database: 'floe' });
  await c.connect();
  return c;
}

test(`audit rows survive SIGKILL: ${KILLS} kills at random moments, every acknowledged write audited once`, { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-audit-crash-'));
  const args = ['--data', dir, '--audit', '--optimizer-threads', '0', '--no-http'];
  const acked: number[] = [];
  const inFlight: number[] = [];
  let next = 1;
  let gateway: KillableGateway | undefined;
  try {
    for (let round = 0; round <= KILLS; round++) {
      const loaded = loadGateway();
      await loaded.loaded;
      gateway = await loaded.start(args);
      const c = await connect(gateway.port);
      if (round === 0) await c.query('CREATE TABLE t (id int PRIMARY KEY)');
      if (round === KILLS) {
        await c.end();
        break;
      }
      // Writes until the kill; the kill lands within about a flush interval of the last acknowledgement.
      const killAt = Date.now() + 300 + Math.floor(Math.random() * 1500);
      c.on('error', () => undefined);
      const writer = (async () => {
        for (;;) {
          const id = next++;
          try {
            await c.query(`INSERT INTO t VALUES (${id})`);
            acked.push(id);
          } catch {
            inFlight.push(id);
            return;
          }
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, killAt - Date.now())));
      await gateway.kill();
      await writer;
      gateway = undefined;
    }
    assert.ok(acked.length > 0, 'no write was acknowledged');
    // The restarted gateway recovered the spools at start; its own flushes finish within a second or so.
    const c = await connect(gateway!.port);
    try {
      const counts = new Map<number, number>();
      for (let i = 0; i < 50; i++) {
        counts.clear();
        const rows = (await c.query("SELECT statement FROM audit.floe_audit WHERE action = 'write' AND outcome = 'success'")).rows;
        for (const r of rows) {
          const m = /^INSERT INTO t VALUES \((\d+)\)$/.exec(r.statement as string);
          if (m !== null) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
        }
        if (acked.every((id) => counts.has(id))) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const missing = acked.filter((id) => !counts.has(id));
      assert.deepEqual(missing, [], `acknowledged writes without an audit row (of ${acked.length})`);
      const doubled = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
      assert.deepEqual(doubled, [], 'writes audited twice');
      const unexpected = [...counts.keys()].filter((id) => !acked.includes(id) && !inFlight.includes(id));
      assert.deepEqual(unexpected, [], 'audit rows of writes never sent');
      // What was recovered is gone from the spool directory; only the live gateway's own file is left.
      assert.deepEqual(readdirSync(join(dir, 'audit-spool')).filter((f) => f !== `${gateway!.pid}.jsonl`), []);
    } finally {
      await c.end();
    }
  } finally {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
