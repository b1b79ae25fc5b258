import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** The credentials s3rver checks signatures against; tests pass them to Floe as a user would, through the AWS environment. */
export const S3RVER_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' } as const;

export interface S3Server {
  /** http://127.0.0.1:port */
  readonly endpoint: string;
  readonly port: number;
  /** Where s3rver keeps the objects on disk. */
  readonly directory: string;
  stop(): Promise<void>;
}

/** A real S3 API server (s3rver) on loopback with the given buckets, its objects in a temp directory. */
export async function startS3Server(buckets: readonly string[]): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'floe-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1', port: 0, directory, silent: true,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const address = await server.run();
  const port = address.port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    directory,
    async stop() {
      // Keep-alive connections would hold close() open.
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
