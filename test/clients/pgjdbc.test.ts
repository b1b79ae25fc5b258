import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runJava } from '../harness/run-java.js';
import { targetFactories } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';

const PROGRAM = fileURLToPath(new URL('./PgjdbcCheck.java', import.meta.url));
const CHECKS = ['getSchemas', 'getTables', 'getColumns', 'getPrimaryKeys', 'getIndexInfo', 'getTypeInfo', 'upserts', 'binary selects', 'fetchSize cursor'];

for (const target of targetFactories()) {
  describe(`pgjdbc 42.5 against ${target.label}`, () => {
    let server: ClientTarget | undefined;
    after(async () => { await server?.stop(); });

    test('DatabaseMetaData, binary prepared upserts past prepareThreshold, fetchSize cursor', async () => {
      server = await target.start();
      const r = await runJava(PROGRAM, [`jdbc:postgresql://127.0.0.1:${server.port}/${server.database}`, server.user]);
      const passed = r.stdout.split('\n').filter((l) => l.startsWith('ok ')).map((l) => l.slice(3));
      assert.deepEqual(passed, CHECKS, `${r.stdout}\n${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
    });
  });
}
