import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDurationMs, parseDurationSetting } from '../../src/common/duration-setting.js';

test('duration settings read PostgreSQL unit syntax and print the largest exact unit', () => {
  const cases: [string, number, string][] = [
    ['0', 0, '0'], ['3000', 3000, '3s'], ['3s', 3000, '3s'], [' 1min ', 60000, '1min'], ['1500', 1500, '1500ms'],
    ['90s', 90000, '90s'], ['120 s', 120000, '2min'], ['1.5s', 1500, '1500ms'], ['2h', 7200000, '2h'], ['1d', 86400000, '1d'],
    ['1500us', 2, '2ms'],
  ];
  for (const [text, ms, shown] of cases) {
    assert.equal(parseDurationSetting('statement_timeout', text), ms, text);
    assert.equal(formatDurationMs(ms), shown, text);
  }
  assert.throws(() => parseDurationSetting('statement_timeout', '3 apples'), /invalid value for parameter "statement_timeout": "3 apples"/);
  assert.throws(() => parseDurationSetting('lock_timeout', '-1'), /-1 ms is outside the valid range for parameter "lock_timeout" \(0 \.\. 2147483647\)/);
});
