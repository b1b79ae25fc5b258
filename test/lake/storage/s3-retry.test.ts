import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FloeError } from '../../../src/common/floe-error.js';
import { TransientS3Error, withRetries } from '../../../src/lake/storage/s3-retry.js';

const FAST = { attempts: 4, baseMs: 1, capMs: 2 };

async function attemptsUntilDone(error: () => unknown): Promise<{ attempts: number; thrown: unknown }> {
  let attempts = 0;
  try {
    await withRetries('read data file "k"', async () => { attempts++; throw error(); }, FAST);
  } catch (e) {
    return { attempts, thrown: e };
  }
  return { attempts, thrown: undefined };
}

const httpError = (status: number) => Object.assign(new Error('answer'), { name: `Http${status}`, $metadata: { httpStatusCode: status } });

test('transient failures are retried up to the policy, then reported as 58030 with the attempts', async () => {
  for (const make of [() => httpError(503), () => httpError(429), () => new TransientS3Error('body cut short'), () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })]) {
    const { attempts, thrown } = await attemptsUntilDone(make);
    assert.equal(attempts, 4);
    assert.ok(thrown instanceof FloeError && thrown.sqlstate === '58030', String(thrown));
    assert.match((thrown as Error).message, /^could not read data file "k": .*\(after 4 attempts\)$/);
  }
});

test('answers that will not change are not retried: client errors, missing credentials, FloeErrors', async () => {
  for (const make of [() => httpError(403), () => httpError(400), () => Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' })]) {
    const { attempts, thrown } = await attemptsUntilDone(make);
    assert.equal(attempts, 1);
    assert.equal((thrown as FloeError).sqlstate, '58030');
  }
  const missing = new FloeError('58030', 'could not open data file "k": file is missing');
  const { attempts, thrown } = await attemptsUntilDone(() => missing);
  assert.deepEqual([attempts, thrown], [1, missing]);
});
