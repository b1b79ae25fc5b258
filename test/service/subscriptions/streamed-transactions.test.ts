import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamedTransactions } from '../../../src/service/subscriptions/streamed-transactions.js';

// The per-transaction store of protocol 2's streamed changes: memory until a bound, then a
// file; subtransaction aborts drop a tail, in memory and in the file alike.

const change = (n: number, size = 100) => Buffer.from(`${String(n).padStart(8, '0')}${'x'.repeat(size - 8)}`);
const names = (bufs: Iterable<Buffer>) => [...bufs].map((b) => Number(b.subarray(0, 8).toString()));

/** The same script of changes and aborts, run with a memory bound, returns what each transaction's commit yields. */
function run(memoryBytes: number, root: string): { committed: number[]; other: number[]; spilled: boolean; memoryAtEnd: number } {
  const s = new StreamedTransactions({ memoryBytes, spillRoot: root });
  try {
    s.start(100, true);
    for (let i = 0; i < 50; i++) s.add(100, 100, change(i));
    // Subtransaction 101 (changes 50..79, with 102 nested in it at 70..79) aborts: all of 50..79 go.
    for (let i = 50; i < 70; i++) s.add(100, 101, change(i));
    for (let i = 70; i < 80; i++) s.add(100, 102, change(i));
    s.abort(100, 101);
    // A second block: subtransaction 103 stays (released), 104 aborts, 105 aborts without a streamed change.
    s.start(100, false);
    for (let i = 80; i < 90; i++) s.add(100, 103, change(i));
    for (let i = 90; i < 95; i++) s.add(100, 104, change(i));
    s.abort(100, 104);
    s.abort(100, 105);
    for (let i = 95; i < 100; i++) s.add(100, 100, change(i));
    // Another transaction interleaved, then aborted whole; a third committed.
    s.start(200, true);
    for (let i = 0; i < 40; i++) s.add(200, 200, change(1000 + i));
    s.abort(200, 200);
    s.start(300, true);
    for (let i = 0; i < 5; i++) s.add(300, 300, change(2000 + i));
    const spilled = s.spilled(100);
    const committed = names(s.take(100));
    const other = names(s.take(300));
    return { committed, other, spilled, memoryAtEnd: s.memoryBytes };
  } finally {
    s.close();
  }
}

test('streamed changes come back in order, less what aborted subtransactions made, in memory and spilled to a file', () => {
  const root = mkdtempSync(join(tmpdir(), 'floe-streamed-test-'));
  try {
    const want = [...Array.from({ length: 50 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 80 + i), 95, 96, 97, 98, 99];
    const inMemory = run(1 << 30, root);
    assert.equal(inMemory.spilled, false);
    assert.deepEqual(inMemory.committed, want);
    assert.deepEqual(inMemory.other, [2000, 2001, 2002, 2003, 2004]);
    assert.equal(inMemory.memoryAtEnd, 0);

    // 2 KB of memory: transaction 100 goes to a file after about 20 changes, and its aborts truncate the file.
    const spilled = run(2048, root);
    assert.equal(spilled.spilled, true);
    assert.deepEqual(spilled.committed, want);
    assert.deepEqual(spilled.other, [2000, 2001, 2002, 2003, 2004]);
    assert.equal(spilled.memoryAtEnd, 0);
    assert.deepEqual(readdirSync(root), [], 'close removes the spill directory');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a first block starts a transaction afresh (the source resends it after a reconnect), and large spilled entries read back whole', () => {
  const root = mkdtempSync(join(tmpdir(), 'floe-streamed-test-'));
  const s = new StreamedTransactions({ memoryBytes: 1000, spillRoot: root });
  try {
    s.start(7, true);
    for (let i = 0; i < 30; i++) s.add(7, 7, change(i));
    assert.equal(s.spilled(7), true);
    s.start(7, true);
    assert.equal(s.spilled(7), false);
    // Entries larger than a read block, and many small ones after them, cross the reader's block edges.
    s.add(7, 7, change(1, 3 * 1024 * 1024 + 17));
    for (let i = 2; i < 5000; i++) s.add(7, 7, change(i, 300 + (i % 7)));
    assert.equal(s.spilled(7), true);
    const back = [...s.take(7)];
    assert.deepEqual(names(back), Array.from({ length: 4999 }, (_, i) => i + 1));
    assert.equal(back[0]!.byteLength, 3 * 1024 * 1024 + 17);
    assert.equal(back[4998]!.byteLength, 300 + (4999 % 7));
    assert.equal(s.size, 0);
  } finally {
    s.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a relation description that an aborted subtransaction needed first stays for the changes after it', () => {
  const s = new StreamedTransactions({ memoryBytes: 1 << 20 });
  try {
    const relation = Buffer.from('R\u0000\u0000\u0000\u0002items');
    s.start(1, true);
    s.add(1, 1, change(0));
    s.add(1, 2, relation);
    s.add(1, 2, change(1));
    s.abort(1, 2);
    s.add(1, 1, change(2));
    const back = [...s.take(1)];
    assert.deepEqual(back.map((b) => b.toString('latin1')), [change(0), relation, change(2)].map((b) => b.toString('latin1')));
  } finally {
    s.close();
  }
});

test('a spill directory of a process that is gone is removed; a live one stays', () => {
  const root = mkdtempSync(join(tmpdir(), 'floe-streamed-test-'));
  try {
    // PIDs above the kernel's pid_max (4194304 at most) belong to no process.
    const dead = join(root, 'floe-cdc-stream-4194999-abc');
    const live = join(root, `floe-cdc-stream-${process.ppid}-def`);
    mkdirSync(dead);
    mkdirSync(live);
    const s = new StreamedTransactions({ memoryBytes: 10, spillRoot: root });
    s.start(1, true);
    s.add(1, 1, change(1));
    assert.equal(s.spilled(1), true);
    assert.equal(existsSync(dead), false);
    assert.equal(existsSync(live), true);
    s.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
