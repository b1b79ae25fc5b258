import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { GetObjectCommandOutput, PutObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { RangeCache } from './range-cache.js';
import { S3ByteSource } from './s3-byte-source.js';
import { createS3Client } from './s3-client.js';
import { TransientS3Error, httpStatusOf, withRetries } from './s3-retry.js';
import type { RetryPolicy } from './s3-retry.js';
import type { S3StorageConfig } from './storage-config.js';
import type { ByteSource, Storage } from './storage.js';

/** Objects from this size up are uploaded in parts, several at once. */
export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 4;
/** Object sizes remembered (objects never change size: they are never overwritten). */
const MAX_KNOWN_SIZES = 16_384;

/**
 * Data files in an S3 bucket (or an S3-compatible server) under a key prefix. Every key is
 * written once (data files are uniquely named), so reads need no consistency care and
 * their ranges can be cached locally for good. Each request is retried with jittered
 * back-off when the failure is transient; what still fails is FloeError 58030, and a put
 * resolves only once S3 acknowledged the whole object, so a commit never names a file that
 * is not there.
 */
export class S3Storage implements Storage {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #cache: RangeCache | undefined;
  readonly #retry: RetryPolicy | undefined;
  readonly #sizes = new Map<string, number>();

  constructor(config: S3StorageConfig, opts: { client?: S3Client; retry?: RetryPolicy } = {}) {
    this.#client = opts.client ?? createS3Client(config);
    this.#bucket = config.bucket;
    this.#prefix = config.prefix === '' ? '' : `${config.prefix}/`;
    this.#cache = config.cacheDir === undefined ? undefined : new RangeCache(config.cacheDir, config.cacheBytes ?? 1024 ** 3);
    this.#retry = opts.retry;
  }

  /** Fails fast (58030) when the bucket cannot be reached with the credentials at hand. */
  async checkReachable(): Promise<void> {
    await withRetries(`reach bucket "${this.#bucket}"`, () => this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket })), this.#retry);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.#objectKey(key);
    const md5 = createHash('md5').update(bytes).digest();
    await withRetries(`write data file "${key}"`, async () => {
      if (bytes.length >= MULTIPART_THRESHOLD) {
        await new Upload({
          client: this.#client, params: { Bucket: this.#bucket, Key, Body: bytes }, partSize: PART_BYTES,
          queueSize: PARTS_IN_FLIGHT, leavePartsOnError: false,
        }).done();
        // A multipart ETag is not an MD5 of the object; the size at least must be right.
        const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key }));
        if (head.ContentLength !== bytes.length) throw new TransientS3Error(`stored ${head.ContentLength} bytes of ${bytes.length}`);
      } else {
        const out = await this.#client.send(new PutObjectCommand({
          Bucket: this.#bucket, Key, Body: bytes, ContentLength: bytes.length, ContentMD5: md5.toString('base64'),
        }));
        checkDigest(out, md5);
      }
    }, this.#retry);
    this.#rememberSize(key, bytes.length);
  }

  async get(key: string): Promise<Uint8Array> {
    const size = await this.#size(key);
    return this.getRange(key, 0, size);
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    if (length === 0) return new Uint8Array(0);
    const cached = await this.#cache?.read(key, offset, length);
    if (cached !== undefined) return cached;
    const bytes = await withRetries(`read data file "${key}"`, async () => {
      let out: GetObjectCommandOutput;
      try {
        out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key), Range: `bytes=${offset}-${offset + length - 1}` }));
      } catch (e) {
        if (httpStatusOf(e) === 416) return new Uint8Array(0); // the range starts past the end
        throw this.#missingAs58030(key, e);
      }
      return readBody(out);
    }, this.#retry);
    // Only whole ranges are kept: a short one (the object ended first) is read again next time.
    if (bytes.length === length) await this.#cache?.write(key, offset, bytes);
    return bytes;
  }

  async openBlob(key: string): Promise<ByteSource> {
    return new S3ByteSource(this, key, 0, await this.#size(key));
  }

  async list(prefix: string): Promise<{ key: string; size: number; modifiedMicros: bigint }[]> {
    // A prefix names a directory, as on local disk: "data/1" must not list "data/12/…".
    const dir = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    const out: { key: string; size: number; modifiedMicros: bigint }[] = [];
    let token: string | undefined;
    do {
      const page = await withRetries(`list "${dir}"`, () => this.#client.send(new ListObjectsV2Command({
        Bucket: this.#bucket, Prefix: this.#objectKey(dir), ...(token === undefined ? {} : { ContinuationToken: token }),
      })), this.#retry);
      for (const o of page.Contents ?? []) {
        if (o.Key === undefined) continue;
        out.push({ key: o.Key.slice(this.#prefix.length), size: o.Size ?? 0, modifiedMicros: BigInt(o.LastModified?.getTime() ?? 0) * 1000n });
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return out;
  }

  async delete(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success, which is the contract here too.
    await withRetries(`delete data file "${key}"`, () => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) })), this.#retry);
    this.#sizes.delete(key);
  }

  async #size(key: string): Promise<number> {
    const known = this.#sizes.get(key);
    if (known !== undefined) return known;
    const head = await withRetries(`open data file "${key}"`, async () => {
      try {
        return await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) }));
      } catch (e) {
        throw this.#missingAs58030(key, e);
      }
    }, this.#retry);
    const size = head.ContentLength ?? 0;
    this.#rememberSize(key, size);
    return size;
  }

  #rememberSize(key: string, size: number): void {
    if (this.#sizes.size >= MAX_KNOWN_SIZES) this.#sizes.delete(this.#sizes.keys().next().value!);
    this.#sizes.set(key, size);
  }

  #objectKey(key: string): string {
    if (key.split('/').includes('..')) throw new FloeError(SqlState.invalidParameterValue, `invalid storage key "${key}"`);
    return this.#prefix + key;
  }

  /** A 404 is final and named as local storage names it; anything else goes on to the retry loop. */
  #missingAs58030(key: string, e: unknown): unknown {
    if (httpStatusOf(e) !== 404) return e;
    return new FloeError(SqlState.ioError, `could not open data file "${key}": file is missing`, { cause: e });
  }
}

/** The whole body, or a transient error when fewer bytes arrived than the response announced. */
async function readBody(out: GetObjectCommandOutput): Promise<Uint8Array> {
  if (out.Body === undefined) throw new TransientS3Error('response without a body');
  let bytes: Uint8Array;
  try {
    bytes = await out.Body.transformToByteArray();
  } catch (e) {
    throw new TransientS3Error(`response body broken off: ${(e as Error).message}`, { cause: e });
  }
  if (out.ContentLength !== undefined && bytes.length !== out.ContentLength) {
    throw new TransientS3Error(`response body cut short: ${bytes.length} of ${out.ContentLength} bytes`);
  }
  return bytes;
}

/**
 * A single-part ETag is the object's MD5 unless the object is encrypted with KMS or a
 * customer key; S3 itself rejects a body whose MD5 differs from Content-MD5, and this
 * catches a server that does not check.
 */
function checkDigest(out: PutObjectCommandOutput, md5: Buffer): void {
  if (out.SSECustomerAlgorithm !== undefined || out.ServerSideEncryption?.startsWith('aws:kms') === true) return;
  const etag = out.ETag?.replace(/"/g, '');
  if (etag !== undefined && /^[0-9a-f]{32}$/i.test(etag) && etag.toLowerCase() !== md5.toString('hex')) {
    throw new TransientS3Error(`stored object's digest ${etag} differs from the written ${md5.toString('hex')}`);
  }
}
