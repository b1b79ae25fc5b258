/** Where data files live. Plain data, so scan tasks can carry it into worker threads. */
export type StorageConfig =
  | { readonly kind: 'local'; readonly root: string }
  | S3StorageConfig;

/**
 * An S3 bucket (or an S3-compatible server). Credentials are never part of the config:
 * the AWS SDK reads them from the standard environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_PROFILE and the shared files), in every thread alike.
 */
export interface S3StorageConfig {
  readonly kind: 's3';
  readonly bucket: string;
  /** Keys are stored under `prefix/`; '' for the bucket's root. No leading or trailing '/'. */
  readonly prefix: string;
  /** An S3-compatible server's address (MinIO, s3rver); AWS's own when absent. */
  readonly endpoint?: string;
  /** Bucket in the path (http://host/bucket/key) instead of the host name; S3-compatible servers want it. */
  readonly pathStyle?: boolean;
  /** When absent: AWS_REGION, AWS_DEFAULT_REGION or the profile's; us-east-1 for a custom endpoint without one. */
  readonly region?: string;
  /** How long a request may wait without a byte moving before it is abandoned and retried (default 30 s). */
  readonly requestTimeoutMs?: number;
  /**
   * A local directory for the log store's segments (keys under `log/`): with it, small
   * commits are fsynced to local disk and tiered into the bucket in the background; without
   * it, every commit writes its change files to the bucket.
   */
  readonly logRoot?: string;
  /** A local directory for footers and column chunks read before (range-cache.ts); no cache when absent. */
  readonly cacheDir?: string;
  readonly cacheBytes?: number;
}

/** `s3://bucket/prefix` as bucket and prefix, or undefined when `url` is not an s3 URL. */
export function parseS3Url(url: string): { bucket: string; prefix: string } | undefined {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (m === null) return undefined;
  return { bucket: m[1]!, prefix: m[2]!.replace(/^\/+|\/+$/g, '') };
}
