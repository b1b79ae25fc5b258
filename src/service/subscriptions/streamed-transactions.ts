import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../common/process-alive.js';

/** Bytes of streamed changes held in memory, over all open transactions, before the largest goes to a file. */
export const DEFAULT_STREAM_MEMORY_BYTES = 64 * 1024 * 1024;
/** Appends to a transaction's file are gathered up to this size before a write. */
const WRITE_BUFFER_BYTES = 1024 * 1024;
const READ_BLOCK_BYTES = 1024 * 1024;
const DIR_PREFIX = 'floe-cdc-stream-';
const RELATION = 'R'.charCodeAt(0);
const TYPE = 'Y'.charCodeAt(0);

/** Where a subtransaction's first change sits: its abort drops it and everything after it. */
interface SubtransactionStart {
  readonly entries: number;
  readonly bytes: number;
}

interface SpillFile {
  readonly path: string;
  readonly fd: number;
  /** Framed entries not yet written. */
  pending: Buffer[];
  pendingBytes: number;
  /** Bytes written: where the next write goes. */
  written: number;
}

/** One in-progress transaction's changes, in the order they came. */
interface OpenStream {
  /** In memory until spilled; then empty and every entry is in the file. */
  chunks: Buffer[];
  memoryBytes: number;
  entries: number;
  /** The file's size once every entry is written: 4 bytes of length before each payload. */
  bytes: number;
  /** Subtransactions by xid, in the order their first changes came. */
  readonly subtransactions: Map<number, SubtransactionStart>;
  /** Relation and Type messages, and where they sit: they outlive a subtransaction's abort (see `abort`). */
  schemas: { readonly entries: number; readonly payload: Buffer }[];
  file: SpillFile | undefined;
}

/**
 * The changes of in-progress source transactions that pgoutput streams ahead of their
 * commit (protocol 2, `streaming = on`), held per top-level xid until Stream Commit
 * applies them or Stream Abort drops them. A subtransaction's abort drops its changes
 * and those after them (its own subtransactions: the parent makes no change while a
 * subtransaction is open), as PostgreSQL's apply worker truncates its file, except the
 * relation descriptions among them, which the changes after them may need. Past a memory
 * bound the largest transaction goes to a file in the temp directory (or FLOE_SPILL_DIR),
 * and its later changes are appended there; the files go when the transaction ends and
 * the directory with `close`. A directory left by a killed process is removed by the next
 * one that makes its own.
 */
export class StreamedTransactions {
  readonly #memoryLimit: number;
  readonly #spillRoot: string;
  readonly #open = new Map<number, OpenStream>();
  #memoryBytes = 0;
  #dir: string | undefined;
  #nextFile = 0;

  constructor(opts: { readonly memoryBytes?: number; readonly spillRoot?: string } = {}) {
    this.#memoryLimit = opts.memoryBytes ?? DEFAULT_STREAM_MEMORY_BYTES;
    this.#spillRoot = opts.spillRoot ?? process.env.FLOE_SPILL_DIR ?? tmpdir();
  }

  /** Bytes held in memory now. */
  get memoryBytes(): number {
    return this.#memoryBytes;
  }

  /** Whether `xid`'s changes are in a file. */
  spilled(xid: number): boolean {
    return this.#open.get(xid)?.file !== undefined;
  }

  /** Open transactions. */
  get size(): number {
    return this.#open.size;
  }

  /** A stream block of `xid` begins; its first block starts it afresh (a resent transaction). */
  start(xid: number, firstSegment: boolean): void {
    if (firstSegment) this.#drop(xid);
    if (!this.#open.has(xid)) {
      this.#open.set(xid, { chunks: [], memoryBytes: 0, entries: 0, bytes: 0, subtransactions: new Map(), schemas: [], file: undefined });
    }
  }

  /** A change of `xid` made by `changeXid` (the transaction itself or one of its subtransactions): the message as received. */
  add(xid: number, changeXid: number, payload: Buffer): void {
    let t = this.#open.get(xid);
    if (t === undefined) {
      this.start(xid, false);
      t = this.#open.get(xid)!;
    }
    if (changeXid !== xid && !t.subtransactions.has(changeXid)) t.subtransactions.set(changeXid, { entries: t.entries, bytes: t.bytes });
    if (payload[0] === RELATION || payload[0] === TYPE) t.schemas.push({ entries: t.entries, payload });
    t.entries++;
    t.bytes += 4 + payload.byteLength;
    if (t.file !== undefined) {
      this.#append(t.file, payload);
      return;
    }
    t.chunks.push(payload);
    t.memoryBytes += payload.byteLength;
    this.#memoryBytes += payload.byteLength;
    if (this.#memoryBytes > this.#memoryLimit) this.#spillLargest();
  }

  /** Stream Abort: the whole transaction (`subxid` = `xid`) or one subtransaction and what came after it. */
  abort(xid: number, subxid: number): void {
    if (subxid === xid) {
      this.#drop(xid);
      return;
    }
    const t = this.#open.get(xid);
    const at = t?.subtransactions.get(subxid);
    // A subtransaction none of whose changes were streamed: the source dropped them itself.
    if (t === undefined || at === undefined) return;
    for (const [sub, start] of t.subtransactions) if (start.entries >= at.entries) t.subtransactions.delete(sub);
    // The source sends a relation's description once per streamed transaction, tagged with the xid of the
    // change that needed it: one a subtransaction needed first is still needed by the changes after it.
    const schemas = t.schemas.filter((x) => x.entries >= at.entries);
    t.schemas = t.schemas.filter((x) => x.entries < at.entries);
    t.entries = at.entries;
    t.bytes = at.bytes;
    if (t.file !== undefined) {
      this.#writePending(t.file);
      ftruncateSync(t.file.fd, at.bytes);
      t.file.written = at.bytes;
    } else {
      const dropped = t.chunks.splice(at.entries);
      const freed = dropped.reduce((n, b) => n + b.byteLength, 0);
      t.memoryBytes -= freed;
      this.#memoryBytes -= freed;
    }
    for (const x of schemas) this.add(xid, xid, x.payload);
  }

  /** Stream Commit: the transaction's changes in order, read back from its file if it spilled; then it is gone. */
  *take(xid: number): Generator<Buffer> {
    const t = this.#open.get(xid);
    if (t === undefined) return;
    try {
      if (t.file === undefined) {
        yield* t.chunks;
        return;
      }
      this.#writePending(t.file);
      yield* readEntries(t.file.fd, t.bytes);
    } finally {
      this.#drop(xid);
    }
  }

  /** Drops every open transaction and removes the spill directory (the source resends what was not committed). */
  close(): void {
    for (const xid of [...this.#open.keys()]) this.#drop(xid);
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  #drop(xid: number): void {
    const t = this.#open.get(xid);
    if (t === undefined) return;
    this.#open.delete(xid);
    this.#memoryBytes -= t.memoryBytes;
    if (t.file !== undefined) {
      closeSync(t.file.fd);
      rmSync(t.file.path, { force: true });
    }
  }

  #spillLargest(): void {
    let largest: OpenStream | undefined;
    for (const t of this.#open.values()) if (t.file === undefined && (largest === undefined || t.memoryBytes > largest.memoryBytes)) largest = t;
    if (largest === undefined || largest.memoryBytes === 0) return;
    const path = join(this.#directory(), `${this.#nextFile++}.changes`);
    const file: SpillFile = { path, fd: openSync(path, 'w+'), pending: [], pendingBytes: 0, written: 0 };
    for (const chunk of largest.chunks) this.#append(file, chunk);
    this.#writePending(file);
    this.#memoryBytes -= largest.memoryBytes;
    largest.chunks = [];
    largest.memoryBytes = 0;
    largest.file = file;
  }

  #append(file: SpillFile, payload: Buffer): void {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(payload.byteLength);
    file.pending.push(length, payload);
    file.pendingBytes += 4 + payload.byteLength;
    if (file.pendingBytes >= WRITE_BUFFER_BYTES) this.#writePending(file);
  }

  #writePending(file: SpillFile): void {
    if (file.pendingBytes === 0) return;
    const data = Buffer.concat(file.pending, file.pendingBytes);
    let at = 0;
    while (at < data.byteLength) at += writeSync(file.fd, data, at, data.byteLength - at, file.written + at);
    file.written += data.byteLength;
    file.pending = [];
    file.pendingBytes = 0;
  }

  #directory(): string {
    if (this.#dir === undefined) {
      removeDeadDirectories(this.#spillRoot);
      this.#dir = mkdtempSync(join(this.#spillRoot, `${DIR_PREFIX}${process.pid}-`));
    }
    return this.#dir;
  }
}

/** The payloads of a file of [length, payload] entries, `size` bytes long; each in its own memory (they outlive the read). */
function* readEntries(fd: number, size: number): Generator<Buffer> {
  let at = 0;
  let carry = Buffer.alloc(0);
  while (at < size) {
    const block = Buffer.allocUnsafe(Math.min(READ_BLOCK_BYTES, size - at));
    let got = 0;
    while (got < block.byteLength) {
      const n = readSync(fd, block, got, block.byteLength - got, at + got);
      if (n === 0) throw new Error(`spilled changes end early at byte ${at + got} of ${size}`);
      got += n;
    }
    at += got;
    const data = carry.byteLength === 0 ? block : Buffer.concat([carry, block]);
    let i = 0;
    while (data.byteLength - i >= 4) {
      const length = data.readUInt32BE(i);
      if (data.byteLength - i - 4 < length) break;
      yield data.subarray(i + 4, i + 4 + length);
      i += 4 + length;
    }
    carry = data.subarray(i);
  }
  if (carry.byteLength > 0) throw new Error(`spilled changes end inside an entry (${carry.byteLength} bytes left)`);
}

/** Removes spill directories of processes that are gone (a SIGKILL leaves them). */
function removeDeadDirectories(root: string): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const pid = Number(name.slice(DIR_PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
