import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_HTTP_PORT, parseHttpFlags } from '../../src/cli/http-flags.js';
import { UsageError } from '../../src/tools/command-line.js';

test('the management server defaults to 127.0.0.1:5480 with loopback trust', () => {
  assert.deepEqual(parseHttpFlags({}, false), { host: '127.0.0.1', port: DEFAULT_HTTP_PORT, auth: 'loopback' });
  assert.equal(DEFAULT_HTTP_PORT, 5480);
  assert.deepEqual(parseHttpFlags({ 'http-port': '0', 'http-auth': 'always', 'http-host': '::1' }, false), { host: '::1', port: 0, auth: 'always' });
});

test('off loopback it needs TLS; bad ports and modes are usage errors', () => {
  assert.throws(() => parseHttpFlags({ 'http-host': '0.0.0.0' }, false), (e) => e instanceof UsageError && /--tls-cert/.test(e.message));
  assert.deepEqual(parseHttpFlags({ 'http-host': '0.0.0.0' }, true), { host: '0.0.0.0', port: DEFAULT_HTTP_PORT, auth: 'loopback' });
  for (const port of ['-1', '65536', 'http', '']) assert.throws(() => parseHttpFlags({ 'http-port': port }, false), UsageError, port);
  assert.throws(() => parseHttpFlags({ 'http-auth': 'never' }, false), (e) => e instanceof UsageError && /loopback or always/.test(e.message));
});
