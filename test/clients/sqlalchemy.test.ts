import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runPython } from '../harness/run-python.js';
import { targetFactories } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';

const SCRIPT = fileURLToPath(new URL('./sqlalchemy_inspect.py', import.meta.url));

const EXPECTED = {
  columns: [
    { name: 'id', nullable: false, type: 'BIGINT' },
    { name: 'name', nullable: false, type: 'VARCHAR(30)' },
    { name: 'price', nullable: true, type: 'NUMERIC(8, 2)' },
    { name: 'made', nullable: true, type: 'TIMESTAMP' },
  ],
  default_schema: 'public',
  pk: { constrained_columns: ['id'], name: 'widgets_pkey' },
  pk_composite: ['sku', 'bin'],
  rows: [['1', 'w', '2.50']],
  schemas: ['information_schema', 'inv', 'public'],
  tables: { inv: ['stock'], public: ['widgets'] },
};

for (const target of targetFactories()) {
  describe(`psycopg2 + SQLAlchemy 1.4 against ${target.label}`, () => {
    let server: ClientTarget | undefined;
    after(async () => { await server?.stop(); });

    test('inspect(): schemas, tables, columns, primary keys', async () => {
      server = await target.start();
      const r = await runPython(SCRIPT, [`postgresql+psycopg2://${server.user}@127.0.0.1:${server.port}/${server.database}`]);
      assert.equal(r.code, 0, r.stderr);
      const got = JSON.parse(r.stdout) as Record<string, unknown>;
      const pk = got.pk as Record<string, unknown>;
      assert.deepEqual({ ...got, pk: { constrained_columns: pk.constrained_columns, name: pk.name } }, EXPECTED);
    });
  });
}
