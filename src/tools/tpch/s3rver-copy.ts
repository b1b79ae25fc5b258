import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { S3Storage } from '../../lake/index.js';
import { S3RVER_ENV, startS3rverBucket } from '../s3rver-bucket.js';
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
 * a state directory gets the catalog.
 */
export async function copyWarehouseToS3rver(whDir: string, workDir: string, log: (l: string) => void): Promise<S3rverWarehouse> {
  const stateDir = join(workDir, 'warehouse-s3-state');
  rmSync(stateDir, { recursive: true, force: true });
  const server = await startS3rverBucket(join(workDir, 's3rver'), BUCKET);
  const endpoint = server.endpoint;
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
      await server.stop();
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
