import { mkdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';

/** The credentials s3rver checks signatures against, passed to gateways as a user would pass real ones. */
export const S3RVER_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' } as const;

export interface S3rverBucket {
  readonly endpoint: string;
  readonly bucket: string;
  stop(): Promise<void>;
}

/**
 * A real S3 API server (s3rver) on loopback with one empty bucket, its objects under
 * `directory` (removed at stop). For benchmarks; s3rver is a dev dependency, loaded only here.
 */
export async function startS3rverBucket(directory: string, bucket: string): Promise<S3rverBucket> {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async stop() {
      // Keep-alive connections would hold close() open.
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
