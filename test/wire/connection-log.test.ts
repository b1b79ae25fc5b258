import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { startWireServer, type WireServer } from '../../src/wire/server.js';
import { errorLogLevel } from '../../src/wire/error-log-level.js';
import { MAX_LOGGED_TEXT_CHARS, loggedText } from '../../src/wire/connection-log.js';
import { FakeSession, eventually, fakeAuth, newFakeState, type FakeState } from './fake-session.js';

/**
 * The wire's log lines, read back from a pino logger writing into memory: connection
 * authorized / disconnection, authentication failures, failed statements and
 * log_min_duration_statement's duration lines, over a session that needs no SQL.
 */

type Line = Record<string, unknown>;

/** A pino logger whose JSON lines land in `lines`. */
function memoryLogger(): { logger: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

interface LogServer {
  readonly server: WireServer;
  readonly state: FakeState;
  readonly lines: Line[];
  /** log_min_duration_statement every session reports to the wire. */
  minDurationMs: number;
  stop(): Promise<void>;
}

async function start(): Promise<LogServer> {
  const state = newFakeState();
  const { logger, lines } = memoryLogger();
  const out: LogServer = {
    state, lines, minDurationMs: -1, server: undefined as unknown as WireServer,
    async stop() {
      for (let i = 0; i < 100 && state.closed < state.started; i++) await new Promise((r) => setTimeout(r, 20));
      await out.server.close({ drainMs: 200 });
    },
  };
  (out as { server: WireServer }).server = await startWireServer({
    host: '127.0.0.1', port: 0, logger,
    auth: fakeAuth({ scram: { alice: 'sesame' }, md5: {}, password: {} }),
    createSession: (info) => Object.assign(new FakeSession(state, info), { logMinDurationMs: () => out.minDurationMs }),
  });
  return out;
}

const withMsg = (lines: Line[], msg: string) => lines.filter((l) => l.msg === msg);

describe('connection log lines', () => {
  test('one line when a session is authorized and one when it ends, with who, from where and for how long', async () => {
    const s = await start();
    try {
      const c = new pg.Client({ host: '127.0.0.1', port: s.server.port, user: 'floe', database: 'lake', application_name: 'loader' });
      await c.connect();
      await c.query('series 2');
      const port = (c as unknown as { connection: { stream: { localPort: number } } }).connection.stream.localPort;
      await c.end();
      await eventually(() => withMsg(s.lines, 'disconnection').length === 1, 'the disconnection line');
      const [open] = withMsg(s.lines, 'connection authorized');
      const [close] = withMsg(s.lines, 'disconnection');
      const who = { user: 'floe', database: 'lake', application_name: 'loader', client_addr: '127.0.0.1', client_port: port };
      assert.deepEqual({ ...open, time: 0, pid: 0, hostname: '' }, {
        level: 30, time: 0, pid: 0, hostname: '', backend_pid: s.state.startups[0]!.processId, ...who, msg: 'connection authorized',
      });
      assert.equal(close!.level, 30);
      assert.equal(close!.backend_pid, open!.backend_pid);
      assert.deepEqual({ user: close!.user, database: close!.database, application_name: close!.application_name, client_addr: close!.client_addr, client_port: close!.client_port }, who);
      assert.ok(typeof close!.session_ms === 'number' && close!.session_ms >= 0);
    } finally {
      await s.stop();
    }
  });

  test('a session ended by a FATAL says so on its disconnection line', async () => {
    const s = await start();
    const c = new pg.Client({ host: '127.0.0.1', port: s.server.port, user: 'floe', database: 'floe' });
    c.on('error', () => undefined);
    await c.connect();
    await s.server.close({ drainMs: 200 });
    await eventually(() => withMsg(s.lines, 'disconnection').length === 1, 'the disconnection line');
    const [close] = withMsg(s.lines, 'disconnection');
    assert.deepEqual([close!.sqlstate, close!.message], ['57P01', 'terminating connection due to administrator command']);
    await c.end().catch(() => undefined);
  });

  test('a failed password is logged with the user, the address and 28P01, and never the password', async () => {
    const s = await start();
    try {
      const c = new pg.Client({ host: '127.0.0.1', port: s.server.port, user: 'alice', password: 'open-sesame', database: 'floe' });
      await assert.rejects(c.connect(), (e: Error & { code?: string }) => e.code === '28P01');
      await eventually(() => withMsg(s.lines, 'authentication failed').length === 1, 'the authentication line');
      const [line] = withMsg(s.lines, 'authentication failed');
      assert.equal(line!.level, 40);
      assert.equal(line!.user, 'alice');
      assert.equal(line!.client_addr, '127.0.0.1');
      assert.equal(line!.sqlstate, '28P01');
      assert.equal(line!.message, 'password authentication failed for user "alice"');
      assert.ok(!JSON.stringify(s.lines).includes('sesame'), 'no log line carries the password');
      assert.equal(withMsg(s.lines, 'connection authorized').length, 0);
      assert.equal(withMsg(s.lines, 'disconnection').length, 0, 'a session that never started does not end');
    } finally {
      await s.stop();
    }
  });

  test('a failed statement: SQLSTATE, message, position and text; info for a client error, error with a stack for an internal one', async () => {
    const s = await start();
    try {
      const c = new pg.Client({ host: '127.0.0.1', port: s.server.port, user: 'floe', database: 'floe', application_name: 'app' });
      await c.connect();
      await assert.rejects(c.query('error'), (e: Error & { code?: string }) => e.code === '42601');
      await assert.rejects(c.query('crash'), (e: Error & { code?: string }) => e.code === 'XX000');
      await assert.rejects(c.query({ text: 'error', values: ['x'] }), (e: Error & { code?: string }) => e.code === '42601');
      await c.end();
      const failed = withMsg(s.lines, 'statement failed');
      assert.equal(failed.length, 3);
      const [user, internal, parse] = failed;
      assert.deepEqual([user!.level, user!.sqlstate, user!.message, user!.position, user!.statement, user!.user, user!.application_name],
        [30, '42601', 'syntax error at or near "error"', 3, 'error', 'floe', 'app']);
      assert.deepEqual([internal!.level, internal!.sqlstate, internal!.statement], [50, 'XX000', 'crash']);
      assert.match(String((internal!.err as { stack?: string }).stack), /Error/);
      assert.deepEqual([parse!.level, parse!.sqlstate, parse!.position, parse!.statement], [30, '42601', 1, 'error']);
    } finally {
      await s.stop();
    }
  });

  test('log_min_duration_statement: 0 logs each query string and each Parse, Bind and Execute with rows and parameters; -1 none', async () => {
    const s = await start();
    try {
      const c = new pg.Client({ host: '127.0.0.1', port: s.server.port, user: 'floe', database: 'floe' });
      await c.connect();
      await c.query('series 3');
      assert.equal(withMsg(s.lines, 'duration').length, 0, '-1 logs nothing');
      s.minDurationMs = 0;
      await c.query('series 10; series 2');
      await c.query({ name: 'e', text: 'echo $1 $2', values: ['it\'s', null] });
      s.minDurationMs = 60_000;
      await c.query('series 1');
      await c.end();
      const lines = withMsg(s.lines, 'duration');
      assert.deepEqual(lines.map((l) => [l.phase, l.statement, l.rows, l.statement_name, l.portal, l.params]), [
        ['statement', 'series 10; series 2', 12, undefined, undefined, undefined],
        ['parse', 'echo $1 $2', undefined, 'e', undefined, undefined],
        ['bind', 'echo $1 $2', undefined, 'e', '', "$1 = 'it''s', $2 = NULL"],
        ['execute', 'echo $1 $2', 1, 'e', '', "$1 = 'it''s', $2 = NULL"],
      ]);
      for (const l of lines) {
        assert.equal(l.level, 30);
        assert.equal(l.user, 'floe');
        assert.ok(typeof l.duration_ms === 'number' && l.duration_ms >= 0);
      }
    } finally {
      await s.stop();
    }
  });

  test('levels follow the SQLSTATE class, and long text is cut to a bound', () => {
    assert.deepEqual(['XX000', '58030', '53200', '57014', '40001', '55P03', '42601', '23505', '22012', '0A000'].map(errorLogLevel),
      ['error', 'error', 'warn', 'warn', 'warn', 'warn', 'info', 'info', 'info', 'info']);
    const long = 'x'.repeat(MAX_LOGGED_TEXT_CHARS + 10);
    assert.equal(loggedText(long), `${'x'.repeat(MAX_LOGGED_TEXT_CHARS)}… (${long.length} characters)`);
    assert.equal(loggedText('SELECT 1'), 'SELECT 1');
  });
});
