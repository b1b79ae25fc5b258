import { FloeError } from '../../common/floe-error.js';
import { BodyReader } from './body-reader.js';

export interface Parse {
  readonly kind: 'Parse';
  readonly name: string;
  readonly sql: string;
  readonly paramTypeOids: readonly number[];
  /** Set when the statement text is not valid UTF-8 (22021); `sql` then holds a lossy decoding. */
  readonly textError?: FloeError;
}

export interface Bind {
  readonly kind: 'Bind';
  readonly portal: string;
  readonly statement: string;
  /** 0 = text, 1 = binary; empty = all text, one = applies to all. */
  readonly paramFormats: readonly number[];
  readonly params: readonly (Buffer | null)[];
  readonly resultFormats: readonly number[];
}

export interface Describe {
  readonly kind: 'Describe';
  readonly target: 'S' | 'P';
  readonly name: string;
}

export interface Execute {
  readonly kind: 'Execute';
  readonly portal: string;
  /** 0 = no limit. */
  readonly maxRows: number;
}

export interface Close {
  readonly kind: 'Close';
  readonly target: 'S' | 'P';
  readonly name: string;
}

export interface Sync {
  readonly kind: 'Sync';
}

export interface Flush {
  readonly kind: 'Flush';
}

export type ExtendedQueryMessage = Parse | Bind | Describe | Execute | Close | Sync | Flush;

/** Backend messages of the extended protocol. */
export type ExtendedQueryResponse =
  | { readonly kind: 'ParseComplete' }
  | { readonly kind: 'BindComplete' }
  | { readonly kind: 'CloseComplete' }
  | { readonly kind: 'NoData' }
  | { readonly kind: 'PortalSuspended' }
  | { readonly kind: 'ParameterDescription'; readonly typeOids: readonly number[] };

function count(r: BodyReader, what: string): number {
  const n = r.int16();
  if (n < 0) throw new FloeError('08P01', `invalid ${what} count in message`, { severity: 'FATAL' });
  return n;
}

function format(r: BodyReader): number {
  const f = r.int16();
  if (f !== 0 && f !== 1) throw new FloeError('08P01', `unsupported format code: ${f}`);
  return f;
}

function target(r: BodyReader, what: string): 'S' | 'P' {
  const t = r.byte();
  if (t === 0x53) return 'S';
  if (t === 0x50) return 'P';
  throw new FloeError('08P01', `invalid ${what} message subtype ${t}`);
}

export function decodeParse(body: Buffer): Parse {
  const r = new BodyReader(body, 'Parse');
  const name = r.cstring();
  const sql = r.clientText();
  const n = count(r, 'parameter type');
  const paramTypeOids: number[] = [];
  for (let i = 0; i < n; i++) paramTypeOids.push(r.uint32());
  r.end();
  const parse: Parse = { kind: 'Parse', name, sql, paramTypeOids };
  return r.textError === undefined ? parse : { ...parse, textError: r.textError };
}

export function decodeBind(body: Buffer): Bind {
  const r = new BodyReader(body, 'Bind');
  const portal = r.cstring();
  const statement = r.cstring();
  const nf = count(r, 'parameter format');
  const paramFormats: number[] = [];
  for (let i = 0; i < nf; i++) paramFormats.push(format(r));
  const np = count(r, 'parameter');
  const params: (Buffer | null)[] = [];
  for (let i = 0; i < np; i++) {
    const len = r.int32();
    if (len < -1) throw new FloeError('08P01', `invalid parameter length ${len}`, { severity: 'FATAL' });
    params.push(len === -1 ? null : r.bytes(len));
  }
  const nr = count(r, 'result format');
  const resultFormats: number[] = [];
  for (let i = 0; i < nr; i++) resultFormats.push(format(r));
  r.end();
  return { kind: 'Bind', portal, statement, paramFormats, params, resultFormats };
}

export function decodeDescribe(body: Buffer): Describe {
  const r = new BodyReader(body, 'Describe');
  const t = target(r, 'DESCRIBE');
  const name = r.cstring();
  r.end();
  return { kind: 'Describe', target: t, name };
}

export function decodeExecute(body: Buffer): Execute {
  const r = new BodyReader(body, 'Execute');
  const portal = r.cstring();
  const maxRows = r.int32();
  r.end();
  return { kind: 'Execute', portal, maxRows: maxRows <= 0 ? 0 : maxRows };
}

export function decodeClose(body: Buffer): Close {
  const r = new BodyReader(body, 'Close');
  const t = target(r, 'CLOSE');
  const name = r.cstring();
  r.end();
  return { kind: 'Close', target: t, name };
}
