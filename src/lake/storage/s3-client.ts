import { S3Client } from '@aws-sdk/client-s3';
import type { S3StorageConfig } from './storage-config.js';

/** How long a connection may take to open, and (by default) a request may sit without a byte moving. */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The SDK client for a bucket. Retries are ours (s3-retry.ts), not the SDK's: ours also
 * cover bodies cut short after the SDK handed them over, and one loop is easier to bound
 * than two nested ones. Checksums are computed only when S3 requires them: the flexible
 * CRC checksums the SDK adds by default use aws-chunked uploads that some S3-compatible
 * servers store verbatim; puts carry Content-MD5 instead (s3-storage.ts).
 */
export function createS3Client(config: S3StorageConfig): S3Client {
  const region = config.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION
    ?? (config.endpoint === undefined ? undefined : 'us-east-1');
  return new S3Client({
    ...(region === undefined ? {} : { region }),
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    forcePathStyle: config.pathStyle === true,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
