import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachCatalogBackend } from '../harness/catalog-backends.js';
import { createKeyedTable, newFileRecord } from '../harness/catalog-rows.js';

/*
 * The log store keeps every segment from the oldest one a file row still reads: the catalog
 * answers with the least path under a writer's directory, removed files' rows included
 * (time travel reads them until expiry deletes the rows).
 */

forEachCatalogBackend((backend) => {
  test('the oldest file path under a prefix: removed rows count, other writers and literal wildcards do not', () => {
    const place = backend().place();
    try {
      const c = place.connect();
      const t = createKeyedTable(c);
      let at = 1n;
      const commit = (paths: string[], remove: number[] = []) => c.commit([{
        tableId: t.id, branch: 'main', operation: 'write', summary: {}, schemaId: t.schemaId, addFiles: paths.map((p) => newFileRecord(p)), removeFileIds: remove,
      }], undefined, ++at);
      assert.equal(c.oldestFilePathWithPrefix('log/w_1/'), undefined);
      commit(['log/w_1/00000000000000004096.wal#10+5', 'log/w_1/00000000000000008192.wal#7+5', 'log/wa1/00000000000000000000.wal#0+5']);
      commit(['log/w_2/00000000000000000000.wal#0+5', 'data/base-1.parquet']);
      // `_` is not a wildcard: w_1's oldest is its own, not wa1's.
      assert.equal(c.oldestFilePathWithPrefix('log/w_1/'), 'log/w_1/00000000000000004096.wal#10+5');
      const oldest = c.allFiles(t.id).find((f) => f.path.startsWith('log/w_1/00000000000000004096'))!;
      commit([], [oldest.fileId]);
      assert.equal(c.oldestFilePathWithPrefix('log/w_1/'), 'log/w_1/00000000000000004096.wal#10+5', 'a removed file still pins its segment');
      assert.equal(c.oldestFilePathWithPrefix('log/w_2/'), 'log/w_2/00000000000000000000.wal#0+5');
      assert.equal(c.oldestFilePathWithPrefix('log/w_3/'), undefined);
    } finally {
      place.dispose();
    }
  });
});
