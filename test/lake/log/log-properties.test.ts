import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFloeError } from '../../../src/common/floe-error.js';
import { logSettings } from '../../../src/lake/index.js';
import { validateTableProperties } from '../../../src/session/table-properties.js';
import { tempWarehouse } from '../helpers/read-table.js';

test('log.tier-interval and log.tier-size: defaults 1s and 8MB, units, 22023 with a hint for a bad value', async () => {
  const { wh, cleanup } = await tempWarehouse();
  try {
    const cols = [{ name: 'id', type: { kind: 'int4' as const }, nullable: false }];
    const t = await wh.createTable({ namespace: 'public', name: 't', primaryKey: ['id'], columns: cols });
    assert.deepEqual(logSettings(t), { tierIntervalMs: 1000, tierSize: 8 * 1024 * 1024 });
    const u = await wh.alterTable('public', 't', { kind: 'setProperties', properties: { 'log.tier-interval': '250ms', 'log.tier-size': '1MB' } });
    assert.deepEqual(logSettings(u), { tierIntervalMs: 250, tierSize: 1024 * 1024 });
    await assert.rejects(wh.createTable({ namespace: 'public', name: 'bad', primaryKey: ['id'], columns: cols, properties: { 'log.tier-size': '-3' } }), (e: unknown) =>
      isFloeError(e) && e.sqlstate === '22023' && e.message === 'invalid value for log.tier-size: "-3"' && /log\.tier-size: bytes/.test(e.hint ?? ''));
    await assert.rejects(wh.alterTable('public', 't', { kind: 'setProperties', properties: { 'log.tier-interval': 'soon' } }), (e: unknown) => isFloeError(e) && e.sqlstate === '22023');
    // The session knows the keys (SHOW TBLPROPERTIES lists what was set; a typo is refused naming them).
    validateTableProperties(['log.tier-interval'], { 'log.tier-interval': '2s' });
    assert.throws(() => validateTableProperties(['log.tier-intervals']), (e: unknown) => isFloeError(e) && /log\.tier-interval/.test(e.hint ?? ''));
  } finally { await cleanup(); }
});
