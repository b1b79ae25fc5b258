import { BodyReader } from './body-reader.js';

/** CopyData and CopyDone travel in both directions; CopyFail only from the client. */
export interface CopyData {
  readonly kind: 'CopyData';
  readonly data: Buffer;
}

export interface CopyDone {
  readonly kind: 'CopyDone';
}

export interface CopyFail {
  readonly kind: 'CopyFail';
  readonly reason: string;
}

/** Backend: CopyInResponse ('G'), CopyOutResponse ('H') and CopyBothResponse ('W', replication streaming). */
export interface CopyResponse {
  readonly kind: 'CopyInResponse' | 'CopyOutResponse' | 'CopyBothResponse';
  /** 0 = text, 1 = binary (then every column format is 1). */
  readonly format: 0 | 1;
  readonly columnFormats: readonly number[];
}

export function decodeCopyData(body: Buffer): CopyData {
  return { kind: 'CopyData', data: body };
}

export function decodeCopyFail(body: Buffer): CopyFail {
  const r = new BodyReader(body, 'CopyFail');
  const reason = r.cstring();
  r.end();
  return { kind: 'CopyFail', reason };
}
