import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, relative, sep } from 'node:path';
import { S3Storage } from '../../lake/index.js';

/** The credentials s3rver checks signatures against, passed to the gateway as a user would pass real ones. */
const S3RVER_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' } as const;
const BUCKET = 'tpch';
const PREFIX = 'warehouse';
const UPLOADS_IN_FLIGHT = 4;

export interface S3rverWarehouse {
  /** `floe serve` flags that put the copy's data on the bucket and its catalog in the state directory. */
  readonly serveArgs: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly bytes: number;
  readonly files: number;
  readonly uploadS: number;
  stop(): Promise<void>;
}

/**
 * A warehouse's copy with its data on S3: s3rver (a real S3 API server, on loopback, its
 * objects under `workDir`) gets every data file, uploaded through Floe's own S3 storage, and
 * a state directory gets the catalog. s3rver is a dev dependency, loaded only here.
 */
export async function copyWarehouseToS3rver(whDir: string, workDir: string, log: (l: string) => void): Promise<S3rverWarehouse> {
  const objectsDir = join(workDir, 's3rver');
  const stateDir = join(workDir, 'warehouse-s3-state');
  rmSync(objectsDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(objectsDir, { recursive: true });
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: objectsDir, silent: true, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  Object.assign(process.env, S3RVER_ENV);
  const storage = new S3Storage({ kind: 's3', bucket: BUCKET, prefix: PREFIX, endpoint, pathStyle: true });

  const files = listFiles(join(whDir, 'data')).map((path) => ({ path, key: relative(whDir, path).split(sep).join('/') }));
  const t0 = performance.now();
  let bytes = 0;
  let next = 0;
  const upload = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      const body = readFileSync(f.path);
      await storage.put(f.key, body);
      bytes += body.length;
    }
  };
  await Promise.all(Array.from({ length: UPLOADS_IN_FLIGHT }, upload));
  const uploadS = (performance.now() - t0) / 1000;
  log(`copied ${files.length} data files (${(bytes / 2 ** 20).toFixed(0)} MB) to s3rver in ${uploadS.toFixed(1)} s`);
  cpSync(whDir, stateDir, { recursive: true, filter: (src) => relative(whDir, src).split(sep)[0] !== 'data' });
  return {
    serveArgs: ['--data', `s3://${BUCKET}/${PREFIX}`, '--state-dir', stateDir, '--s3-endpoint', endpoint, '--s3-path-style'],
    env: S3RVER_ENV,
    bytes,
    files: files.length,
    uploadS,
    async stop() {
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await server.close();
      rmSync(objectsDir, { recursive: true, force: true });
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : e.isFile() && !e.name.startsWith('.tmp-') ? [p] : [];
  });
}
