import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';

/*
 * A durable replication slot of a warehouse served by two gateways is streamed by one
 * connection at a time, as PostgreSQL streams a slot (issue 28: replication slots "one
 * owner"): while pg_recvlogical streams it through one gateway, the other lists it active
 * with that connection's pid, refuses START_REPLICATION and a DROP without WAIT with 55006
 * "replication slot … is active for PID …", and serves it once the first stream ends.
 */

const PG_RECVLOGICAL = '/usr/lib/postgresql/15/bin/pg_recvlogical';

test('two gateways: a slot streamed through one is active and refused (55006) on the other until the stream ends', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-slot-gateways-'));
  const a = await startFloe({ dataDir: dir, args: ['--optimizer-threads', '0'] });
  const b = await startFloe({ dataDir: dir, args: ['--optimizer-threads', '0'] });
  const client = new pg.Client({ connectionString: a.url });
  const outDir = mkdtempSync(join(tmpdir(), 'floe-slot-gateways-out-'));
  let streaming: ReturnType<typeof spawn> | undefined;
  try {
    await client.connect();
    await client.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await client.query('CREATE PUBLICATION p FOR TABLE t');
    const conn = (f: FloeServer) => ['-h', f.host, '-p', String(f.port), '-U', f.user, '-d', f.database];
    const created = await runCommand(PG_RECVLOGICAL, [...conn(a), '--slot=s1', '--create-slot', '-P', 'pgoutput'], { timeoutMs: 30_000 });
    assert.equal(created.code, 0, created.stderr);
    await client.query("INSERT INTO t VALUES (1, 'a')");

    streaming = spawn(PG_RECVLOGICAL, [...conn(a), '--slot=s1', '--start', '-o', 'proto_version=1', '-o', 'publication_names=p', '-f', join(outDir, 'a.out')],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    const slotOn = async (f: FloeServer) => {
      const c = new pg.Client({ connectionString: f.url });
      await c.connect();
      try {
        return (await c.query<{ active: boolean; active_pid: number | null }>("SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = 's1'")).rows[0]!;
      } finally { await c.end(); }
    };
    let onB = await slotOn(b);
    for (const until = Date.now() + 30_000; !onB.active && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 100));
      onB = await slotOn(b);
    }
    assert.equal(onB.active, true, 'the other gateway lists the slot active');
    const onA = await slotOn(a);
    assert.equal(onB.active_pid, onA.active_pid, 'with the pid of the connection that streams it');

    const refused = await runCommand(PG_RECVLOGICAL, [...conn(b), '--slot=s1', '--start', '--no-loop', '-o', 'proto_version=1', '-o', 'publication_names=p',
      '-f', join(outDir, 'b.out')], { timeoutMs: 30_000 });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`replication slot "s1" is active for PID ${onA.active_pid}`));
    const repl = new pg.Client({ connectionString: b.url, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    try {
      await assert.rejects(repl.query('DROP_REPLICATION_SLOT s1'), (e: unknown) => (e as { code?: string }).code === '55006');
    } finally { await repl.end(); }

    // The first stream ends: its gateway gives the slot up, and the other serves it.
    streaming.kill('SIGTERM');
    await new Promise((r) => streaming!.once('exit', r));
    streaming = undefined;
    await client.query("INSERT INTO t VALUES (2, 'b')");
    const repl2 = new pg.Client({ connectionString: b.url, replication: 'database' } as pg.ClientConfig);
    await repl2.connect();
    const endpos = String((await repl2.query('IDENTIFY_SYSTEM')).rows[0].xlogpos);
    await repl2.end();
    const served = await runCommand(PG_RECVLOGICAL, [...conn(b), '--slot=s1', '--start', '--no-loop', `--endpos=${endpos}`, '-o', 'proto_version=1',
      '-o', 'publication_names=p', '-f', join(outDir, 'b2.out')], { timeoutMs: 60_000 });
    assert.equal(served.code, 0, served.stderr);
    assert.equal((await slotOn(a)).active, false, 'no gateway streams it now');
  } finally {
    streaming?.kill('SIGKILL');
    await client.end().catch(() => undefined);
    await b.stop();
    await a.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
});
