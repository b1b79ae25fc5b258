import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FloeError } from '../../../src/common/floe-error.js';
import type { RecoveredRecord } from '../../../src/lake/log/commit-log.js';
import { logIoError } from '../../../src/lake/log/log-io-error.js';
import { FRAME_HEADER_BYTES, decodeFrame, encodeFrameHeader } from '../../../src/lake/log/log-record-frame.js';
import { segmentFileName } from '../../../src/lake/log/log-segment-files.js';
import { openCommitLog, recoverCommitLog } from '../../../src/lake/log/segmented-commit-log.js';
import { recordPayload } from './commit-log-writer-child.js';
import { seededRandom } from '../helpers/seeded-random.js';

const WRITER = 'w1';

function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), 'floe-wal-'));
}

async function recoverAll(root: string, fromLsn = 0n, writerId = WRITER): Promise<RecoveredRecord[]> {
  const out: RecoveredRecord[] = [];
  for await (const r of recoverCommitLog(root, writerId, fromLsn)) out.push(r);
  return out;
}

function bytes(n: number, salt: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + salt) & 0xff;
  return b;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}

function segmentPath(root: string, firstLsn: bigint, writerId = WRITER): string {
  return join(root, 'log', writerId, segmentFileName(firstLsn));
}

test('frame: header and decode agree; every kind of damage reads as torn', () => {
  const payload = bytes(50, 7);
  const header = encodeFrameHeader('void', [payload.subarray(0, 20), payload.subarray(20)]);
  const rec = concat([header, payload]);
  const ok = decodeFrame(rec, 0);
  assert.deepEqual(ok, { ok: true, kind: 'void', payloadStart: FRAME_HEADER_BYTES, end: rec.byteLength });
  assert.equal(decodeFrame(rec.subarray(0, rec.byteLength - 1), 0).ok, false);
  assert.equal(decodeFrame(rec.subarray(0, 5), 0).ok, false);
  const flipped = Uint8Array.from(rec);
  flipped[30]! ^= 0x10;
  assert.deepEqual(decodeFrame(flipped, 0), { ok: false, reason: 'checksum', needed: 0 });
  const zeroed = Uint8Array.from(rec);
  zeroed.fill(0, 0, 4);
  assert.deepEqual(decodeFrame(zeroed, 0), { ok: false, reason: 'zero-length', needed: 0 });
});

test('round trip: records of several sizes and kinds come back with their LSNs and payload offsets', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER });
    const written: { kind: 'commit' | 'void'; payload: Uint8Array; at: ReturnType<typeof log.append> }[] = [];
    // Past 4 MiB, so records straddle replay's read chunks, and one is bigger than a chunk.
    const sizes = [0, 1, 200, 4096, 70_000, 1_000_000, 3, 3_000_000, 5_000_000, 17];
    for (const [i, size] of sizes.entries()) {
      const kind = i % 3 === 2 ? 'void' : 'commit';
      const payload = bytes(size, i);
      // A JSON-like header part then bodies: parts are framed as one payload.
      const parts = size > 10 ? [payload.subarray(0, 7), payload.subarray(7, size >> 1), payload.subarray(size >> 1)] : payload;
      written.push({ kind, payload, at: log.append(kind, parts) });
    }
    assert.equal(written[0]!.at.lsn, 0n);
    for (let i = 1; i < written.length; i++) assert.equal(written[i]!.at.lsn, written[i - 1]!.at.end);
    await log.sync();
    assert.equal(log.syncsDone, 1);
    await log.close();

    const got = await recoverAll(root);
    assert.equal(got.length, written.length);
    for (const [i, r] of got.entries()) {
      const w = written[i]!;
      assert.equal(r.kind, w.kind);
      assert.equal(r.lsn, w.at.lsn);
      assert.equal(r.end, w.at.end);
      assert.equal(r.segmentKey, w.at.segmentKey);
      assert.equal(r.payloadOffset, w.at.payloadOffset);
      assert.deepEqual(Buffer.from(r.payload), Buffer.from(w.payload));
      // The payload lies exactly where append said: what log locators are made of.
      const file = readFileSync(join(root, w.at.segmentKey));
      assert.deepEqual(file.subarray(w.at.payloadOffset, w.at.payloadOffset + w.payload.byteLength), Buffer.from(w.payload));
    }
    assert.equal(written[0]!.at.segmentKey, `log/${WRITER}/00000000000000000000.wal`);
    // Recovery from a record boundary starts there.
    const tail = await recoverAll(root, written[4]!.at.lsn);
    assert.deepEqual(tail.map((r) => r.lsn), written.slice(4).map((w) => w.at.lsn));
    // A reader that stops early cuts nothing.
    for await (const r of recoverCommitLog(root, WRITER, 0n)) if (r.lsn > 0n) break;
    assert.equal((await recoverAll(root)).length, written.length);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('close writes what is still buffered; a reopened log of several segments appends after its last record', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 500 });
    for (let i = 0; i < 5; i++) log.append('commit', bytes(200, i));
    await log.close();
    assert.equal(log.syncsDone, 1);
    assert.throws(() => log.append('commit', bytes(1, 1)));
    const got = await recoverAll(root);
    assert.equal(got.length, 5);
    const reopened = await openCommitLog({ root, writerId: WRITER, segmentBytes: 500 });
    assert.equal(reopened.nextLsn, got[4]!.end);
    assert.deepEqual(reopened.segments().map((s) => s.firstLsn), [0n, 418n, 836n]);
    const next = reopened.append('void', bytes(20, 9));
    assert.equal(next.segmentKey, `log/${WRITER}/${segmentFileName(836n)}`);
    await reopened.close();
    assert.deepEqual((await recoverAll(root)).map((r) => r.kind), ['commit', 'commit', 'commit', 'commit', 'commit', 'void']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** A log of three records; returns the segment's bytes and the LSN of the last record. */
async function threeRecordLog(root: string): Promise<{ file: Buffer; lastLsn: number; ends: bigint[] }> {
  const log = await openCommitLog({ root, writerId: WRITER });
  const ends: bigint[] = [];
  for (const size of [50, 80, 120]) ends.push(log.append('commit', bytes(size, size)).end);
  await log.sync();
  await log.close();
  return { file: readFileSync(segmentPath(root, 0n)), lastLsn: Number(ends[1]), ends };
}

/** Recovery of a damaged last record keeps the first two, cuts the file, and a reopened log appends after them. */
async function checkTornTail(root: string, damaged: Buffer, lastLsn: number): Promise<void> {
  writeFileSync(segmentPath(root, 0n), damaged);
  const got = await recoverAll(root);
  assert.equal(got.length, 2);
  assert.deepEqual(Buffer.from(got[1]!.payload), Buffer.from(bytes(80, 80)));
  assert.equal(statSync(segmentPath(root, 0n)).size, lastLsn);
  const log = await openCommitLog({ root, writerId: WRITER });
  assert.equal(log.nextLsn, BigInt(lastLsn));
  const again = log.append('void', bytes(10, 1));
  assert.equal(again.lsn, BigInt(lastLsn));
  await log.close();
  const after = await recoverAll(root);
  assert.deepEqual(after.map((r) => [r.lsn, r.kind]), [[0n, 'commit'], [got[1]!.lsn, 'commit'], [BigInt(lastLsn), 'void']]);
}

test('torn tails: a last record cut at every byte is dropped, the file cut, and appending resumes after the last good record', async () => {
  const root = tempRoot();
  try {
    const { file, lastLsn } = await threeRecordLog(root);
    for (let cut = lastLsn; cut < file.byteLength; cut++) {
      await checkTornTail(root, file.subarray(0, cut), lastLsn);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('torn tails: a flipped payload byte, a zeroed length, garbage or zeroes after the last record', async () => {
  const root = tempRoot();
  try {
    const { file, lastLsn } = await threeRecordLog(root);
    const flipped = Buffer.from(file);
    flipped[lastLsn + FRAME_HEADER_BYTES + 40]! ^= 0x01;
    await checkTornTail(root, flipped, lastLsn);

    const zeroLength = Buffer.from(file);
    zeroLength.fill(0, lastLsn, lastLsn + 4);
    await checkTornTail(root, zeroLength, lastLsn);

    // The full log plus trailing garbage: all three survive, the garbage goes.
    for (const trailer of [Buffer.from('garbage after the log'), Buffer.alloc(4096), Buffer.from([1, 0, 0, 0, 9, 9, 9, 9, 1])]) {
      writeFileSync(segmentPath(root, 0n), Buffer.concat([file, trailer]));
      const got = await recoverAll(root);
      assert.equal(got.length, 3);
      assert.equal(statSync(segmentPath(root, 0n)).size, file.byteLength);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('group commit: 200 append+sync pairs share at most two fsyncs; appends during a sync are covered by the next', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER });
    const syncs: Promise<void>[] = [];
    const ats = [];
    for (let i = 0; i < 200; i++) {
      ats.push(log.append('commit', bytes(200, i)));
      syncs.push(log.sync());
    }
    await Promise.all(syncs);
    assert.ok(log.syncsDone <= 2, `${log.syncsDone} syncs for 200 concurrent commits`);
    assert.equal(log.durableLsn, ats[199]!.end);

    const before = log.syncsDone;
    const a = log.append('commit', bytes(300, 1));
    const first = log.sync();
    const b = log.append('commit', bytes(300, 2));
    const second = log.sync();
    const c = log.append('commit', bytes(300, 3)); // before the first finishes: the second covers it
    const third = log.sync();
    assert.equal(third, second, 'callers arriving during a sync share the next one');
    const onDisk = (at: typeof a, salt: number) => {
      const file = readFileSync(join(root, at.segmentKey));
      return file.byteLength >= at.payloadOffset + 300
        && file.subarray(at.payloadOffset, at.payloadOffset + 300).equals(Buffer.from(bytes(300, salt)));
    };
    await first;
    assert.ok(onDisk(a, 1));
    await second;
    assert.ok(onDisk(b, 2) && onDisk(c, 3));
    assert.equal(log.syncsDone - before, 2);
    // A sync with nothing new to write does no I/O.
    await log.sync();
    assert.equal(log.syncsDone - before, 2);
    await log.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('segments: rollover, a record bigger than a segment, truncateBelow keeps what is still needed', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 1000 });
    const ats = [];
    for (let i = 0; i < 4; i++) ats.push(log.append('commit', bytes(300, i))); // 309 bytes each: 3 fit
    ats.push(log.append('commit', bytes(5000, 9))); // bigger than a segment: its own
    ats.push(log.append('void', bytes(10, 10)));
    await log.sync();
    const firsts = [0n, 927n, 1236n, 6245n];
    assert.deepEqual(log.segments().map((s) => s.firstLsn), firsts);
    assert.deepEqual(log.segments().map((s) => s.endLsn), [927n, 1236n, 6245n, 6264n]);
    assert.deepEqual(ats.map((a) => a.segmentKey), [0, 0, 0, 1, 2, 3].map((i) => `log/${WRITER}/${segmentFileName(firsts[i]!)}`));
    assert.equal(ats[3]!.payloadOffset, FRAME_HEADER_BYTES);
    assert.deepEqual(readdirSync(join(root, 'log', WRITER)).sort(), firsts.map(segmentFileName));
    for (const [i, r] of (await recoverAll(root)).entries()) {
      assert.equal(r.lsn, ats[i]!.lsn);
      assert.equal(r.payloadOffset, ats[i]!.payloadOffset);
    }

    // Bound inside the second segment: only the first goes.
    await log.truncateBelow(ats[3]!.lsn + 1n);
    assert.deepEqual(log.segments().map((s) => s.firstLsn), firsts.slice(1));
    // Bound exactly at a segment's end: that segment goes too.
    await log.truncateBelow(1236n);
    assert.deepEqual(log.segments().map((s) => s.firstLsn), firsts.slice(2));
    assert.deepEqual((await recoverAll(root, 1236n)).map((r) => r.lsn), [ats[4]!.lsn, ats[5]!.lsn]);
    // Never the segment being written.
    await log.truncateBelow(1n << 60n);
    assert.deepEqual(log.segments().map((s) => s.firstLsn), [6245n]);
    assert.deepEqual(readdirSync(join(root, 'log', WRITER)), [segmentFileName(6245n)]);
    const next = log.append('commit', bytes(1, 1));
    assert.equal(next.lsn, 6264n);
    await log.close();
    const reopened = await openCommitLog({ root, writerId: WRITER, segmentBytes: 1000 });
    assert.equal(reopened.nextLsn, next.end);
    await reopened.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** Waits until the file reaches `size` bytes (a zero-fill runs after its round, off the commit path). */
async function untilSize(path: string, size: number): Promise<void> {
  for (let i = 0; i < 1000 && statSync(path).size < size; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(statSync(path).size, size);
}

test('preallocation: zeroes ahead of the last record read as the log\'s end; a crash leaves them and recovery cuts them', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 64 << 10, preallocateBytes: 8192 });
    const ats = [1, 2, 3].map((i) => log.append('commit', bytes(100, i)));
    await log.sync();
    const end = Number(ats[2]!.end);
    const path = segmentPath(root, 0n);
    await untilSize(path, end + 8192);
    assert.ok(readFileSync(path).subarray(end).every((b) => b === 0), 'zeroes past the last record');
    // The writer dies here (never closed): recovery reads the three records and cuts the zeroes.
    assert.deepEqual((await recoverAll(root)).map((r) => r.lsn), ats.map((a) => a.lsn));
    assert.equal(statSync(path).size, end);
    const reopened = await openCommitLog({ root, writerId: WRITER, segmentBytes: 64 << 10, preallocateBytes: 8192 });
    assert.equal(reopened.nextLsn, BigInt(end));
    const fourth = reopened.append('void', bytes(10, 4));
    await reopened.close();
    // A closed log ends at its last record.
    assert.equal(statSync(path).size, Number(fourth.end));
    assert.deepEqual((await recoverAll(root)).map((r) => r.kind), ['commit', 'commit', 'commit', 'void']);
    await log.close(); // the "dead" writer's file handle (it has nothing left to write)
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('preallocation: a rollover cuts the zeroes, so every earlier segment ends where the next begins; 0 appends only', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 4096, preallocateBytes: 1024 });
    const ats = [];
    for (let i = 0; i < 40; i++) {
      ats.push(log.append('commit', bytes(300, i)));
      await log.sync(); // one round each, so zero-fills run between them
    }
    const segments = log.segments();
    assert.ok(segments.length >= 3, `${segments.length} segments`);
    for (const s of segments.slice(0, -1)) assert.equal(statSync(join(root, s.key)).size, Number(s.endLsn - s.firstLsn), s.key);
    await log.close();
    const last = segments[segments.length - 1]!;
    assert.equal(statSync(join(root, last.key)).size, Number(last.endLsn - last.firstLsn));
    const got = await recoverAll(root);
    assert.deepEqual(got.map((r) => r.lsn), ats.map((a) => a.lsn));
    got.forEach((r, i) => assert.deepEqual(Buffer.from(r.payload), Buffer.from(bytes(300, i))));

    const plain = tempRoot();
    try {
      const appendOnly = await openCommitLog({ root: plain, writerId: WRITER, preallocateBytes: 0 });
      const at = appendOnly.append('commit', bytes(100, 1));
      await appendOnly.sync();
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(statSync(segmentPath(plain, 0n)).size, Number(at.end));
      await appendOnly.close();
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a torn record in an earlier segment ends the log: later segments are removed', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 1000 });
    const ats = [];
    for (let i = 0; i < 9; i++) ats.push(log.append('commit', bytes(300, i)));
    await log.sync();
    await log.close();
    // Damage the second record of the second segment.
    const path = join(root, ats[4]!.segmentKey);
    const file = readFileSync(path);
    file[ats[4]!.payloadOffset + 5]! ^= 0xff;
    writeFileSync(path, file);
    assert.deepEqual((await recoverAll(root)).map((r) => r.lsn), ats.slice(0, 4).map((a) => a.lsn));
    assert.deepEqual(readdirSync(join(root, 'log', WRITER)).sort(), [0n, 927n].map(segmentFileName));
    assert.equal(statSync(path).size, Number(ats[4]!.lsn - 927n));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a failed write poisons the log: that sync and every later call reject', async () => {
  const root = tempRoot();
  try {
    const log = await openCommitLog({ root, writerId: WRITER, segmentBytes: 1000 });
    log.append('commit', bytes(900, 1));
    await log.sync();
    // The next segment's file cannot be created: something already sits at its name.
    mkdirSync(segmentPath(root, log.nextLsn));
    log.append('commit', bytes(900, 2));
    await assert.rejects(log.sync(), (e: unknown) => e instanceof FloeError && e.sqlstate === '58030' && /could not create file/.test(e.message));
    assert.throws(() => log.append('commit', bytes(1, 1)), (e: unknown) => e instanceof FloeError && e.sqlstate === '58030');
    await assert.rejects(log.sync(), (e: unknown) => e instanceof FloeError && e.sqlstate === '58030');
    await assert.rejects(log.close(), (e: unknown) => e instanceof FloeError);
    // What was durable before stays readable.
    assert.equal((await recoverAll(root)).length, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a write cut short by a full disk says so: 53100 disk_full', () => {
  const full = logIoError(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 'write to', 'log/w/0.wal');
  assert.equal(full.sqlstate, '53100');
  assert.equal(full.message, 'could not write to file "log/w/0.wal": No space left on device');
  assert.equal(logIoError(Object.assign(new Error('EIO'), { code: 'EIO' }), 'fdatasync', 'x').sqlstate, '58030');
});

// ---- SIGKILL at random moments --------------------------------------------------------

const child = fileURLToPath(new URL('./commit-log-writer-child.ts', import.meta.url));
const ROUNDS = Number(process.env['FLOE_WAL_KILLS'] ?? 20);


/** Runs the writer child until a SIGKILL `delayMs` after its first acknowledgement; returns what it acknowledged. */
function runAndKill(root: string, seed: number, delayMs: number): Promise<Map<bigint, bigint>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, root, WRITER, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<bigint, bigint>();
    let out = '';
    let err = '';
    let armed = false;
    const deadline = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (!line.startsWith('ack ')) continue;
        for (const pair of line.slice(4).split(' ')) {
          const [lsn, id] = pair.split(':');
          acked.set(BigInt(lsn!), BigInt(id!));
        }
      }
      if (!armed) {
        armed = true;
        setTimeout(() => proc.kill('SIGKILL'), delayMs);
      }
    });
    proc.stderr.on('data', (d) => { err += d; });
    proc.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (${code}): ${err}`));
      else resolve(acked);
    });
  });
}

test('SIGKILL at random moments: every acknowledged record survives intact and in order, nothing torn remains', async () => {
  const seed = Number(process.env['FLOE_WAL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`commit log SIGKILL test: FLOE_WAL_SEED=${seed}`);
  const random = seededRandom(seed);
  const root = tempRoot();
  try {
    const acked = new Map<bigint, bigint>();
    for (let round = 1; round <= ROUNDS; round++) {
      const delay = Math.floor(random() * 150);
      for (const [lsn, id] of await runAndKill(root, seed % 1000 + round * 1000, delay)) acked.set(lsn, id);
      const records = await recoverAll(root);
      const byLsn = new Map(records.map((r) => [r.lsn, r]));
      let expectedLsn = records[0]?.lsn ?? 0n;
      for (const r of records) {
        assert.equal(r.lsn, expectedLsn, `round ${round}: records are contiguous`);
        expectedLsn = r.end;
        const id = Buffer.from(r.payload).readBigUInt64LE(0);
        assert.deepEqual(Buffer.from(r.payload), Buffer.from(recordPayload(id, r.payload.byteLength)), `round ${round}: record ${r.lsn} intact`);
      }
      for (const [lsn, id] of acked) {
        const r = byLsn.get(lsn);
        assert.ok(r !== undefined, `round ${round} (seed ${seed}): acknowledged record at ${lsn} lost`);
        assert.equal(Buffer.from(r.payload).readBigUInt64LE(0), id, `round ${round}: record at ${lsn} is the acknowledged one`);
      }
      // Nothing torn remains: the last segment ends at the last record, and recovery is idempotent.
      const dir = join(root, 'log', WRITER);
      const names = readdirSync(dir).sort();
      const lastFirst = BigInt(names[names.length - 1]!.slice(0, 20));
      assert.equal(lastFirst + BigInt(statSync(join(dir, names[names.length - 1]!)).size), expectedLsn);
      assert.equal((await recoverAll(root)).length, records.length);
    }
    assert.ok(acked.size > 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

