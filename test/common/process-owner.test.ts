import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { PROCESS_OWNER, isDeadLocalOwner } from '../../src/common/process-owner.js';

/** The pid of a process that has run and exited (and, on a quiet box, not been reused yet). */
function exitedPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

test('a lease owner of this host is dead once its process is gone, with or without a nonce; others are never judged', () => {
  const gone = exitedPid();
  assert.equal(isDeadLocalOwner(`${hostname()}:${gone}`), true);
  assert.equal(isDeadLocalOwner(`${hostname()}:${gone}:1a2b3c4d`), true);
  assert.equal(isDeadLocalOwner(PROCESS_OWNER), false, 'this process');
  assert.equal(isDeadLocalOwner(`${hostname()}:${process.pid}`), false);
  assert.equal(isDeadLocalOwner(`${hostname()}:1`), false, 'pid 1 always runs');
  assert.equal(isDeadLocalOwner(`another-${hostname()}:${gone}`), false, 'another host: only its lease tells');
  for (const odd of ['', hostname(), `${hostname()}:`, `${hostname()}:0`, `${hostname()}:x`, `${hostname()}:${gone}:a:b`]) {
    assert.equal(isDeadLocalOwner(odd), false, JSON.stringify(odd));
  }
});
