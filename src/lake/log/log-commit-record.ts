import type { CommitRequest, NewFileRecord } from '../catalog/catalog.js';
import { formatLogLocator } from './log-locator.js';

/** A pending data file (change or base) as the log carries it: its catalog row but the path, and its IPC bytes. */
export interface InlineDataFile {
  readonly file: Omit<NewFileRecord, 'path' | 'sizeBytes'>;
  readonly ipc: Uint8Array;
}

/** One table's part of a logged commit: the request (stored files only) plus its inline files, added after them. */
export interface LogCommitPart {
  readonly request: CommitRequest;
  readonly inline: readonly InlineDataFile[];
  /**
   * What its checks depend on, when that can be named: the key hashes of every row a keyed
   * table's commit writes, or the ids of the files an append table's deletion vectors
   * replace; plus the hashes of the values its UNIQUE constraints hold. The group committer
   * may then rebase it over earlier commits that touched none of them
   * (CommitRequest.rebaseWithinBatch): redone at the later head, its request would be the
   * same but for the head it expects. Not logged.
   */
  readonly rebaseKeys?: readonly Uint32Array[];
  /**
   * rebaseKeys name files by row id (an append table): a compaction in between moves rows
   * to other files, so an optimize is not passed over as it is for a keyed table.
   */
  readonly byRowId?: boolean;
}

/** What a `commit` record says: enough to apply it to the catalog again after a crash. */
export interface LogCommitRecord {
  readonly txnId: string | undefined;
  readonly seq: bigint;
  readonly parts: readonly LogCommitPart[];
}

interface HeaderPart {
  readonly request: CommitRequest;
  readonly inline: readonly { readonly file: InlineDataFile['file']; readonly length: number }[];
}

interface Header {
  readonly v: 1;
  /** The LSN of its batch's first record: replay applies a batch in one catalog call, as it was applied live. */
  readonly batch: bigint;
  readonly txnId: string | null;
  readonly seq: bigint;
  readonly parts: readonly HeaderPart[];
}

/** An encoded `commit` record: its payload parts, and where the IPC streams start within the payload. */
export interface EncodedLogCommit {
  readonly parts: Uint8Array[];
  readonly bodiesOffset: number;
}

/**
 * The payload of a `commit` record: u32 header length, the header as JSON (bigints and
 * typed arrays tagged, see jsonReplacer), then every inline file's IPC stream back to
 * back, in order. Returned as parts so the log writes the IPC bytes without copying them.
 */
export function encodeLogCommit(record: LogCommitRecord, batch: bigint): EncodedLogCommit {
  const header: Header = {
    v: 1, batch, txnId: record.txnId ?? null, seq: record.seq,
    parts: record.parts.map((p) => ({ request: p.request, inline: p.inline.map((f) => ({ file: f.file, length: f.ipc.byteLength })) })),
  };
  const json = Buffer.from(JSON.stringify(header, jsonReplacer), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.byteLength, 0);
  return { parts: [len, json, ...record.parts.flatMap((p) => p.inline.map((f) => f.ipc))], bodiesOffset: 4 + json.byteLength };
}

/**
 * The catalog requests of a commit whose inline files' IPC streams start at byte
 * `bodiesStart` of `segmentKey`: each inline file becomes a data file whose path
 * locates its stream, added after the request's stored files.
 */
export function locatedRequests(
  parts: readonly { readonly request: CommitRequest; readonly inline: readonly { readonly file: InlineDataFile['file']; readonly length: number }[] }[],
  segmentKey: string, bodiesStart: number,
): CommitRequest[] {
  let at = bodiesStart;
  return parts.map((p): CommitRequest => {
    if (p.inline.length === 0) return p.request;
    const inline = p.inline.map((f): NewFileRecord => {
      const path = formatLogLocator({ segmentKey, offset: at, length: f.length });
      at += f.length;
      return { ...f.file, path, sizeBytes: f.length };
    });
    return { ...p.request, addFiles: [...p.request.addFiles, ...inline] };
  });
}

/** A live commit's requests once its record lies at `payloadOffset` of `segmentKey`. */
export function requestsOfAppended(record: LogCommitRecord, encoded: EncodedLogCommit, segmentKey: string, payloadOffset: number): CommitRequest[] {
  const parts = record.parts.map((p) => ({ request: p.request, inline: p.inline.map((f) => ({ file: f.file, length: f.ipc.byteLength })) }));
  return locatedRequests(parts, segmentKey, payloadOffset + encoded.bodiesOffset);
}

/** Replay: a recovered commit record's transaction, seq and requests, from its header alone (rows are never decoded). */
export function decodeLogCommit(payload: Uint8Array, segmentKey: string, payloadOffset: number): { batch: bigint; txnId: string | undefined; seq: bigint; requests: CommitRequest[] } {
  const view = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const headerLength = view.readUInt32LE(0);
  const header = JSON.parse(view.subarray(4, 4 + headerLength).toString('utf8'), jsonReviver) as Header;
  return { batch: header.batch, txnId: header.txnId ?? undefined, seq: header.seq, requests: locatedRequests(header.parts, segmentKey, payloadOffset + 4 + headerLength) };
}

/** The payload of a `void` record: the LSN of the commit record it cancels. */
export function encodeLogVoid(lsn: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(lsn, 0);
  return b;
}

export function decodeLogVoid(payload: Uint8Array): bigint {
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).readBigUInt64LE(0);
}

function jsonReplacer(this: unknown, key: string, value: unknown): unknown {
  // The holder's own value: a Buffer reaches a replacer already turned into {type, data} by its toJSON.
  const raw = (this as Record<string, unknown>)[key];
  if (raw instanceof Uint8Array && !(value instanceof Uint8Array)) value = raw;
  if (typeof value === 'bigint') return { $b: value.toString() };
  if (value instanceof Uint32Array) return { $u32: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (value instanceof Uint8Array) return sparseBytes(value) ?? { $u8: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return value;
}

/**
 * Mostly-zero bytes as `{$u8z: [length, index, byte, index, byte, …]}`: a small commit's
 * key bitmap (512 bytes, a bit per key) is 690 characters of base64, a quarter of a
 * one-row commit's record, and every byte of a record is written and fdatasynced.
 */
function sparseBytes(bytes: Uint8Array): { $u8z: number[] } | undefined {
  const out = [bytes.byteLength];
  // An entry costs up to 8 characters against base64's 4 per 3 bytes.
  const limit = bytes.byteLength / 6;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i] === 0) continue;
    if (out.length >= limit) return undefined;
    out.push(i, bytes[i]!);
  }
  return { $u8z: out };
}

function jsonReviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  if (typeof v.$b === 'string') return BigInt(v.$b);
  if (typeof v.$u8 === 'string') return new Uint8Array(Buffer.from(v.$u8, 'base64'));
  if (Array.isArray(v.$u8z)) {
    const [length, ...entries] = v.$u8z as number[];
    const out = new Uint8Array(length!);
    for (let i = 0; i + 1 < entries.length; i += 2) out[entries[i]!] = entries[i + 1]!;
    return out;
  }
  if (typeof v.$u32 === 'string') {
    const bytes = Buffer.from(v.$u32, 'base64');
    const out = new Uint32Array(bytes.byteLength / 4);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  return value;
}
