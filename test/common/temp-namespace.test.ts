import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withTempNamespace } from '../../src/common/temp-namespace.js';

// PostgreSQL's rule (docs: "The Schema Search Path"): the session's temporary schema is
// searched first unless search_path names pg_temp; without one, pg_temp means nothing.
test('the temporary schema is searched first unless search_path places it', () => {
  assert.deepEqual(withTempNamespace(['pg_catalog', 'public'], 'pg_temp_7'), ['pg_temp_7', 'pg_catalog', 'public']);
  assert.deepEqual(withTempNamespace(['pg_catalog', 'public', 'pg_temp'], 'pg_temp_7'), ['pg_catalog', 'public', 'pg_temp_7']);
  assert.deepEqual(withTempNamespace(['pg_catalog', 'pg_temp_7', 'public'], 'pg_temp_7'), ['pg_catalog', 'pg_temp_7', 'public']);
});

test('without a temporary schema, pg_temp and other sessions\' pg_temp_N drop out', () => {
  assert.deepEqual(withTempNamespace(['pg_catalog', 'pg_temp', 'public'], undefined), ['pg_catalog', 'public']);
  assert.deepEqual(withTempNamespace(['pg_catalog', 'pg_temp_3', 'public'], 'pg_temp_7'), ['pg_temp_7', 'pg_catalog', 'public']);
});
