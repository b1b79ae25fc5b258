import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { FileSlice } from '../../../src/lake/storage/file-slice.js';

type Cut = [number | undefined, number | undefined];

/** Bytes of the slice reached by applying each cut in turn, through `slice` and `arrayBuffer`. */
async function readCuts(root: { slice(a?: number, b?: number): { arrayBuffer(): Promise<ArrayBuffer> } }, cuts: readonly Cut[]): Promise<number[]> {
  let s = root as { slice(a?: number, b?: number): typeof s; arrayBuffer(): Promise<ArrayBuffer> };
  for (const [a, b] of cuts) s = s.slice(a, b);
  return [...new Uint8Array(await s.arrayBuffer())];
}

const cut = fc.tuple(fc.option(fc.integer({ min: -80, max: 80 }), { nil: undefined }), fc.option(fc.integer({ min: -80, max: 80 }), { nil: undefined }));

test('FileSlice slices like a Blob (negative and clamped bounds, nested slices) on the main thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-slice-'));
  try {
    const bytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff);
    const path = join(dir, 'f.bin');
    writeFileSync(path, bytes);
    const file = new FileSlice(path, 0, bytes.length);
    assert.equal(file.size, 64);
    await fc.assert(fc.asyncProperty(fc.array(cut, { maxLength: 3 }), async (cuts) => {
      assert.deepEqual(await readCuts(file, cuts), await readCuts(new Blob([bytes]), cuts));
    }), { numRuns: 200 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('FileSlice reads the same bytes in a worker thread (synchronous reads) and fails on a file cut short', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-slice-'));
  try {
    const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 13 + 7) & 0xff);
    const path = join(dir, 'f.bin');
    writeFileSync(path, bytes);
    const api = import.meta.resolve('tsx/esm/api');
    const moduleUrl = new URL('../../../src/lake/storage/file-slice.ts', import.meta.url).href;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(moduleUrl)}, ${JSON.stringify(import.meta.url)})).then(async ({ FileSlice }) => {
        const f = new FileSlice(workerData.path, 0, workerData.size);
        const out = [];
        for (const [a, b] of workerData.cuts) out.push([...new Uint8Array(await f.slice(a, b).arrayBuffer())]);
        let err = '';
        try { await new FileSlice(workerData.path, 0, workerData.size + 10).slice(workerData.size - 5).arrayBuffer(); } catch (e) { err = String(e.message); }
        parentPort.postMessage({ out, err });
      });`;
    const cuts: Cut[] = [[0, 4096], [100, 2000], [-300, undefined], [4000, 5000], [10, 5]];
    const worker = new Worker(code, { eval: true, workerData: { path, size: bytes.length, cuts } });
    const got = await new Promise<{ out: number[][]; err: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    const blob = new Blob([bytes]);
    for (let i = 0; i < cuts.length; i++) assert.deepEqual(got.out[i], await readCuts(blob, [cuts[i]!]), `cut ${cuts[i]}`);
    assert.match(got.err, /unexpected end of file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
