import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT, startFloe } from '../harness/floe-server.js';
import { startPostgres } from '../harness/postgres-server.js';
import { threadNiceness } from '../harness/thread-niceness.js';
import { S3RVER_ENV, startS3Server } from '../harness/s3-server.js';

/*
 * The self-optimizing service end to end: `floe serve` with its default background
 * optimizer, a stream of small upserting commits through node-postgres, and nobody calling
 * optimize. The table must end under its read-amplification target, the history must show
 * the scheduler's minor runs, floe_optimizing must show the work, and every row must read
 * as committed. Only outcomes are asserted, polled with generous deadlines.
 */

const COMMITS = 150;
const KEYS = 60;
const READ_AMP_MAX = 8;

async function poll<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, deadlineMs = 120_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  let last: T;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > until) assert.fail(`${what}: still ${JSON.stringify(last, (_k, v) => (typeof v === 'bigint' ? String(v) : v))} after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('a stream of small commits stays under its read-amplification target with no manual optimize', { timeout: 300_000 }, async () => {
  const floe = await startFloe({ args: ['--optimizer-threads', '1'] });
  const client = new pg.Client({ connectionString: floe.url });
  try {
    await client.connect();
    await client.query(`CREATE TABLE t (id int PRIMARY KEY, v int, note text) WITH (
      'self-optimizing.minor.trigger.file-count' = '4', 'self-optimizing.read-amplification.max' = '${READ_AMP_MAX}')`);
    // A base big enough that a few upserted rows are no major's worth of duplicates: the stream is minors' work.
    await client.query(`INSERT INTO t SELECT g, -1, 'base' FROM generate_series(${KEYS}, ${KEYS + 4999}) g`);
    const expected = new Map<number, number>();
    for (let id = KEYS; id < KEYS + 5000; id++) expected.set(id, -1);
    let maxReadAmp = 0;
    for (let c = 0; c < COMMITS; c++) {
      const rows = [0, 1, 2].map((j) => (c * 7 + j * 13) % KEYS);
      for (const id of rows) expected.set(id, c);
      await client.query(`INSERT INTO t VALUES ${rows.map((id) => `(${id}, ${c}, 'c${c}')`).join(', ')}
        ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v, note = EXCLUDED.note`);
      if (c % 10 === 9) {
        const r = await client.query("SELECT read_amplification FROM floe_optimizing WHERE table_name = 't'");
        maxReadAmp = Math.max(maxReadAmp, Number(r.rows[0].read_amplification));
      }
    }
    // Without the service the table would hold one change file per commit.
    const state = await poll('read amplification under the target',
      async () => (await client.query("SELECT read_amplification, read_amplification_max, status, last_minor, health_score FROM floe_optimizing WHERE table_name = 't'")).rows[0],
      (r) => Number(r.read_amplification) < READ_AMP_MAX);
    assert.equal(Number(state.read_amplification_max), READ_AMP_MAX);
    const changeFiles = await poll('change files folded',
      async () => Number((await client.query("SELECT count(*) AS n FROM \"t$files\" WHERE store = 'change'")).rows[0].n),
      (n) => n < READ_AMP_MAX);
    assert.ok(changeFiles < READ_AMP_MAX);
    const runs = (await client.query(
      "SELECT kind, status, trigger, files_in, files_out, error FROM floe_optimizing_history WHERE table_name = 't'")).rows;
    const minors = runs.filter((r) => r.kind === 'minor' && r.status === 'success' && r.trigger === 'scheduler');
    // A run due by metrics that a just-finished run or a pinned low watermark left nothing to
    // fold is recorded with no files; the scheduler then pauses the table, so such runs stay
    // a minority and never write files from nothing.
    const working = minors.filter((r) => Number(r.files_in) > 0);
    assert.ok(working.length >= 1, `the scheduler ran minors that folded files: ${JSON.stringify(runs)}`);
    assert.ok(minors.length - working.length <= working.length, `runs with nothing to do do not spin: ${JSON.stringify(minors)}`);
    assert.ok(minors.every((r) => Number(r.files_out) === 0 || Number(r.files_in) > 0), JSON.stringify(minors));
    assert.deepEqual(runs.filter((r) => r.status === 'failed'), [], 'no process failed');
    const last = await poll('last_minor shown', async () => (await client.query("SELECT last_minor FROM floe_optimizing WHERE table_name = 't'")).rows[0].last_minor,
      (v) => v !== null);
    assert.ok(last instanceof Date);
    // Every acknowledged commit reads back.
    const got = new Map((await client.query('SELECT id, v FROM t')).rows.map((r) => [Number(r.id), Number(r.v)]));
    assert.deepEqual(got, expected);
    const groups = (await client.query("SELECT group_name, threads, tables FROM floe_optimizer_groups WHERE group_name = 'default'")).rows;
    assert.deepEqual(groups.map((g) => [g.group_name, Number(g.threads), Number(g.tables)]), [['default', 1, 1]]);
    // Diagnostic, not asserted (depends on how fast this machine optimizes against the stream).
    process.stdout.write(`# read amplification sampled during the stream: max ${maxReadAmp}; minor runs ${minors.length}\n`);
  } catch (e) {
    process.stderr.write(floe.log().split('\n').filter((l) => /optimiz|error|warn/i.test(l)).slice(-40).join('\n'));
    throw e;
  } finally {
    await client.end().catch(() => undefined);
    await floe.stop();
  }
});

/** A gateway that runs no optimizer itself, a client, and `floe optimizer` processes started on its warehouse. */
interface OptimizerBeside {
  readonly client: pg.Client;
  /** Starts `floe optimizer --data <the gateway's> …args`. */
  start(args: readonly string[]): ChildProcess;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Where the warehouse is: by default the gateway's directory, which the optimizer opens too.
 * `shared` flags (data and catalog elsewhere) go to both, each with a state directory of its own.
 */
interface Deployment {
  readonly shared?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

async function withOptimizerBeside(body: (o: OptimizerBeside) => Promise<void>, deployment: Deployment = {}): Promise<void> {
  const env = deployment.env ?? {};
  const states = deployment.shared === undefined ? undefined : [mkdtempSync(join(tmpdir(), 'floe-gateway-state-')), mkdtempSync(join(tmpdir(), 'floe-optimizer-state-'))] as const;
  const optimizerState = states?.[1];
  // No tiering either: under load it would put several commits' log files into one, and the
  // tests count the files the gateway leaves.
  const quiet = ['--optimizer-threads', '0', '--no-log-tiering'];
  const floe = states === undefined
    ? await startFloe({ args: quiet, env })
    : await startFloe({ dataDir: states[0], args: [...quiet, ...deployment.shared!, '--state-dir', states[0]], env });
  const client = new pg.Client({ connectionString: floe.url });
  let optimizer: ChildProcess | undefined;
  let log = '';
  try {
    await client.connect();
    await body({
      client,
      start(args) {
        const where = optimizerState === undefined ? ['--data', floe.dataDir] : [...deployment.shared!, '--state-dir', optimizerState];
        optimizer = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'optimizer', ...where, ...args],
          { cwd: REPO_ROOT, env: { ...process.env, FLOE_LOG_FORMAT: 'json', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        optimizer.stdout!.on('data', (b: Buffer) => { log += b.toString('utf8'); });
        optimizer.stderr!.on('data', (b: Buffer) => { log += b.toString('utf8'); });
        return optimizer;
      },
      async stop() {
        const exited = new Promise<number | null>((r) => optimizer!.once('exit', (code) => r(code)));
        optimizer!.kill('SIGTERM');
        const code = await exited;
        assert.equal(code, 0, log);
        assert.match(log, /"msg":"stopped"/);
        return code;
      },
    });
  } catch (e) {
    process.stderr.write(log);
    throw e;
  } finally {
    if (optimizer && optimizer.exitCode === null && optimizer.signalCode === null) optimizer.kill('SIGKILL');
    await client.end().catch(() => undefined);
    await floe.stop();
    for (const dir of states ?? []) rmSync(dir, { recursive: true, force: true });
  }
}

/** Ten small commits that the gateway leaves alone, folded by a `floe optimizer` process. */
async function foldedByTheOptimizerProcess({ client, start, stop }: OptimizerBeside): Promise<void> {
  {
    await client.query("CREATE TABLE s (id int PRIMARY KEY, v int) WITH ('self-optimizing.minor.trigger.file-count' = '3')");
    for (let i = 0; i < 10; i++) await client.query(`INSERT INTO s VALUES (${i}, ${i})`);
    const before = (await client.query("SELECT status, pending_change_files FROM floe_optimizing WHERE table_name = 's'")).rows[0];
    assert.deepEqual([before.status, Number(before.pending_change_files)], ['pending', 10], 'the gateway itself optimizes nothing');
    start(['--optimizer-threads', '1']);
    await poll('folded by the optimizer process',
      async () => Number((await client.query("SELECT pending_change_files FROM floe_optimizing WHERE table_name = 's'")).rows[0].pending_change_files),
      (n) => n === 0);
    const runs = (await client.query("SELECT kind, status, trigger FROM floe_optimizing_history WHERE table_name = 's'")).rows;
    assert.deepEqual(runs.map((r) => [r.kind, r.status, r.trigger]), [['minor', 'success', 'scheduler']]);
    assert.deepEqual((await client.query('SELECT count(*) AS n, sum(v) AS s FROM s')).rows.map((r) => [Number(r.n), Number(r.s)]), [[10, 45]]);
    await stop();
  }
}

test('floe optimizer optimizes the warehouse of a gateway that runs none itself, and stops on SIGTERM', { timeout: 300_000 }, async () => {
  await withOptimizerBeside(foldedByTheOptimizerProcess);
});

test('floe optimizer as on another host: no shared disk, the data in S3 and the catalog in PostgreSQL', { timeout: 300_000 }, async () => {
  const s3 = await startS3Server(['lake']);
  const catalog = await startPostgres();
  try {
    await withOptimizerBeside(foldedByTheOptimizerProcess, {
      shared: ['--data', 's3://lake/w', '--s3-endpoint', s3.endpoint, '--s3-path-style', '--catalog', catalog.url],
      env: S3RVER_ENV,
    });
  } finally {
    await catalog.stop();
    await s3.stop();
  }
});

test('floe optimizer --group optimizes only that group\'s tables, is listed in floe_optimizers while it runs, and runs its threads at --optimizer-nice', { timeout: 300_000 }, async () => {
  await withOptimizerBeside(async ({ client, start, stop }) => {
    await client.query('CREATE OPTIMIZER GROUP fast WITH (threads = 1)');
    // Due soon: three change files, or 200 ms after the first.
    const due = "'self-optimizing.minor.trigger.file-count' = '3', 'self-optimizing.minor.trigger.interval' = '200ms'";
    await client.query(`CREATE TABLE f (id int PRIMARY KEY, v int) WITH (${due}, 'self-optimizing.group' = 'fast')`);
    await client.query(`CREATE TABLE d (id int PRIMARY KEY, v int) WITH (${due})`);
    for (let i = 0; i < 6; i++) await client.query(`INSERT INTO f VALUES (${i}, ${i}); INSERT INTO d VALUES (${i}, ${i})`);
    assert.deepEqual((await client.query('SELECT * FROM floe_optimizers')).rows, [], 'a gateway with no background optimizer registers none');
    const optimizer = start(['--group', 'fast', '--optimizer-nice', '7']);
    const listed = await poll('the optimizer registered',
      async () => (await client.query('SELECT optimizer_id, host, pid, group_names, state, last_heartbeat >= started_at AS beat FROM floe_optimizers')).rows,
      (rows) => rows.length === 1);
    assert.deepEqual(listed, [{ optimizer_id: `${hostname()}:${optimizer.pid}`, host: hostname(), pid: optimizer.pid, group_names: ['fast'], state: 'running', beat: true }]);
    await poll('f folded by the optimizer of group fast',
      async () => Number((await client.query("SELECT pending_change_files FROM floe_optimizing WHERE table_name = 'f'")).rows[0].pending_change_files),
      (n) => n === 0);
    // d is due too, but no optimizer serves the default group.
    const d = (await client.query("SELECT status, pending_change_files FROM floe_optimizing WHERE table_name = 'd'")).rows[0];
    assert.equal(d.status, 'pending');
    assert.ok(Number(d.pending_change_files) > 0);
    assert.deepEqual((await client.query('SELECT DISTINCT table_name FROM floe_optimizing_history')).rows, [{ table_name: 'f' }]);
    if (process.platform === 'linux') {
      // The group's one optimizer thread lowered itself to 7; the process's own threads kept 0.
      const nice = [...threadNiceness(optimizer.pid!).values()];
      assert.deepEqual([nice.filter((n) => n === 7).length, nice.filter((n) => n !== 7 && n !== 0)], [1, []], `thread nice values: ${nice.join(', ')}`);
    }
    await stop();
    assert.deepEqual((await client.query('SELECT * FROM floe_optimizers')).rows, [], 'a stopped optimizer removes itself');
  });
});
