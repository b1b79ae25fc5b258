import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, startFloe } from '../harness/floe-server.js';
import { runCommand } from '../harness/run-command.js';

// Kysely's own PostgreSQL integration suite against a fresh gateway. CI has no GitHub, so
// this runs only where a built checkout is named by FLOE_KYSELY_DIR (test/external/README.md).
const checkout = process.env.FLOE_KYSELY_DIR;

test("Kysely's PostgreSQL suite fails only what the blocklist names", { skip: checkout === undefined || !existsSync(checkout) ? 'FLOE_KYSELY_DIR is not set to a Kysely checkout' : false, timeout: 20 * 60_000 }, async () => {
  const floe = await startFloe({ args: ['--optimizer-threads', '0'] });
  try {
    const out = await runCommand('bash', [join(REPO_ROOT, 'test/external/run-kysely.sh'), checkout!, String(floe.port)], { timeoutMs: 18 * 60_000 });
    process.stdout.write(out.stdout);
    assert.equal(out.code, 0, `unexpected failures:\n${out.stdout}\n${out.stderr.slice(-4000)}`);
  } finally {
    await floe.stop();
  }
});
