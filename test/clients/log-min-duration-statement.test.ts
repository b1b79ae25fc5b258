import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { targetFactories, type ClientTarget } from './client-targets.js';

/**
 * log_min_duration_statement as a client sees it: SET with and without units, SHOW's
 * spelling, pg_settings's facts and the errors for bad values, first on PostgreSQL 15
 * (which proves the expectations) and then on Floe.
 */

const SET_AND_SHOWN: readonly (readonly [string, string])[] = [
  ['0', '0'], ['-1', '-1'], ["'250ms'", '250ms'], ["'1s'", '1s'], ['1000', '1s'], ['60000', '1min'], ['1500', '1500ms'],
  ["'1.5s'", '1500ms'], ["'-1ms'", '-1'], ["'2h'", '2h'], ["'0.4ms'", '0'], ["'0.6'", '1ms'], ['2147483647', '2147483647ms'],
];

for (const target of targetFactories()) {
  describe(`log_min_duration_statement on ${target.label}`, () => {
    let server: ClientTarget | undefined;
    const started = async () => (server ??= await target.start());
    after(async () => { await server?.stop(); });

    test('SET takes milliseconds or units, SHOW prints the largest unit that divides, -1 is off', async () => {
      const c = new pg.Client({ connectionString: (await started()).url });
      await c.connect();
      try {
        assert.deepEqual((await c.query('SHOW log_min_duration_statement')).rows, [{ log_min_duration_statement: '-1' }]);
        const shown: string[] = [];
        for (const [value] of SET_AND_SHOWN) {
          await c.query(`SET log_min_duration_statement = ${value}`);
          shown.push((await c.query('SHOW log_min_duration_statement')).rows[0].log_min_duration_statement as string);
        }
        assert.deepEqual(shown, SET_AND_SHOWN.map(([, s]) => s));
        await c.query("SET log_min_duration_statement = '3s'");
        assert.deepEqual((await c.query(`SELECT setting, unit, vartype, context, min_val, max_val, boot_val, category
            FROM pg_settings WHERE name = 'log_min_duration_statement'`)).rows, [{
          setting: '3000', unit: 'ms', vartype: 'integer', context: 'superuser', min_val: '-1', max_val: '2147483647', boot_val: '-1',
          category: 'Reporting and Logging / When to Log',
        }]);
        assert.deepEqual((await c.query("SELECT current_setting('log_min_duration_statement') AS v")).rows, [{ v: '3s' }]);
        await c.query('RESET log_min_duration_statement');
        assert.deepEqual((await c.query('SHOW log_min_duration_statement')).rows, [{ log_min_duration_statement: '-1' }]);
      } finally {
        await c.end();
      }
    });

    test('values out of range or without a valid unit are refused with 22023 and PostgreSQL\'s words', async () => {
      const c = new pg.Client({ connectionString: (await started()).url });
      await c.connect();
      try {
        const refusal = async (value: string) => {
          try {
            await c.query(`SET log_min_duration_statement = ${value}`);
            return 'accepted';
          } catch (e) {
            const err = e as Error & { code?: string; hint?: string };
            return `${err.code} ${err.message}${err.hint === undefined ? '' : ` / ${err.hint}`}`;
          }
        };
        assert.deepEqual(await Promise.all(['-2', "'-1s'", "'3 apples'"].map(refusal)), [
          '22023 -2 ms is outside the valid range for parameter "log_min_duration_statement" (-1 .. 2147483647)',
          '22023 -1000 ms is outside the valid range for parameter "log_min_duration_statement" (-1 .. 2147483647)',
          '22023 invalid value for parameter "log_min_duration_statement": "3 apples" / Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".',
        ]);
        assert.deepEqual((await c.query('SHOW log_min_duration_statement')).rows, [{ log_min_duration_statement: '-1' }]);
      } finally {
        await c.end();
      }
    });
  });
}
