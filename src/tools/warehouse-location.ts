import { resolve, join } from 'node:path';
import { parseS3Url } from '../lake/index.js';
import type { CatalogConfig, StorageConfig } from '../lake/index.js';
import { parseMemorySetting } from '../session/index.js';
import { UsageError } from './command-line.js';

/** The flags that say where a warehouse lives, shared by `floe serve`, `floe optimizer`, `floe user` and `floe load`. */
export const WAREHOUSE_FLAGS = {
  data: { type: 'string' },
  'state-dir': { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-path-style': { type: 'boolean' },
  's3-region': { type: 'string' },
  's3-request-timeout': { type: 'string' },
  'cache-dir': { type: 'string' },
  'cache-size': { type: 'string', default: '1GB' },
  catalog: { type: 'string' },
  'catalog-schema': { type: 'string' },
} as const;

export const WAREHOUSE_USAGE = `    [--data ./floe-data | --data s3://BUCKET/PREFIX [--state-dir ./floe-state]
     [--s3-endpoint URL] [--s3-path-style] [--s3-region R] [--s3-request-timeout 30000 (ms)]
     [--cache-dir DIR] [--cache-size 1GB]]
    [--catalog postgres://USER:PASSWORD@HOST:PORT/DB [--catalog-schema floe_catalog]]
                         (a shared PostgreSQL catalog instead of SQLite in the warehouse directory)`;

export interface WarehouseLocation {
  /** The local directory: the SQLite catalog, users.json, session temp files, and the data itself when local. */
  readonly dir: string;
  /** Undefined for data under `dir`. */
  readonly storage: StorageConfig | undefined;
  /** What the start-up line shows. */
  readonly data: string;
  /** Undefined for the SQLite catalog in `dir`. */
  readonly catalog: CatalogConfig | undefined;
  /** The catalog as the start-up line shows it (its URL without a password), when not SQLite. */
  readonly catalogShown: string | undefined;
}

type WarehouseFlagValues = { [K in keyof typeof WAREHOUSE_FLAGS]?: (typeof WAREHOUSE_FLAGS)[K]['type'] extends 'boolean' ? boolean : string };

/**
 * Local data: `--data DIR` holds everything. Data on S3: `--data s3://bucket/prefix`, with the
 * catalog and the other local files in `--state-dir`, and footers and column chunks read
 * before in a bounded local cache (`--cache-dir`, default STATE-DIR/s3-cache; `--cache-size 0`
 * turns it off). Credentials and, without --s3-region, the region come from the standard AWS
 * environment.
 */
export function warehouseLocation(values: WarehouseFlagValues, usage: string, defaultData = './floe-data'): WarehouseLocation {
  const catalog = catalogFlags(values, usage);
  return { ...dataLocation(values, usage, defaultData), ...catalog };
}

/** `--catalog postgres://…` (and `--catalog-schema`): the shared catalog; without it, SQLite in the warehouse directory. */
function catalogFlags(values: WarehouseFlagValues, usage: string): Pick<WarehouseLocation, 'catalog' | 'catalogShown'> {
  const url = values.catalog;
  if (url === undefined) {
    if (values['catalog-schema'] !== undefined) throw new UsageError('--catalog-schema applies only to --catalog postgres://…', usage);
    return { catalog: undefined, catalogShown: undefined };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--catalog must be a postgres:// URL, not "${url}"`, usage);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new UsageError(`--catalog must be a postgres:// URL, not "${url}"`, usage);
  const schema = values['catalog-schema'];
  if (schema === '') throw new UsageError('--catalog-schema must name a schema', usage);
  // The start-up line and logs never carry the password.
  if (parsed.password !== '') parsed.password = '***';
  return {
    catalog: { kind: 'postgres', url, ...(schema === undefined ? {} : { schema }) },
    catalogShown: `${parsed.toString()}${schema === undefined ? '' : ` (schema ${schema})`}`,
  };
}

function dataLocation(values: WarehouseFlagValues, usage: string, defaultData: string): Omit<WarehouseLocation, 'catalog' | 'catalogShown'> {
  const data = values.data ?? defaultData;
  const s3 = parseS3Url(data);
  const s3Flags = (['s3-endpoint', 's3-path-style', 's3-region', 's3-request-timeout', 'state-dir', 'cache-dir'] as const).filter((f) => values[f] !== undefined);
  if (s3 === undefined) {
    if (data.includes('://')) throw new UsageError(`--data must be a directory or s3://BUCKET/PREFIX, not "${data}"`, usage);
    if (s3Flags.length > 0) throw new UsageError(`--${s3Flags[0]} applies only to --data s3://…`, usage);
    return { dir: resolve(data), storage: undefined, data: resolve(data) };
  }
  if (s3.bucket === '') throw new UsageError(`--data s3:// needs a bucket name: "${data}"`, usage);
  const dir = resolve(values['state-dir'] ?? './floe-state');
  const cacheBytes = parseMemorySetting('--cache-size', values['cache-size'] ?? '1GB', 0);
  const timeoutText = values['s3-request-timeout'];
  const timeoutMs = timeoutText === undefined ? undefined : Number(timeoutText);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new UsageError(`--s3-request-timeout must be a whole number of milliseconds, not "${timeoutText}"`, usage);
  }
  return {
    dir,
    data,
    storage: {
      kind: 's3',
      // With the SQLite catalog the log store's segments stay in the state directory beside it;
      // with a PostgreSQL catalog openWarehouse puts them in the bucket instead.
      logRoot: dir,
      bucket: s3.bucket,
      prefix: s3.prefix,
      ...(values['s3-endpoint'] === undefined ? {} : { endpoint: values['s3-endpoint'] }),
      ...(values['s3-path-style'] === true ? { pathStyle: true } : {}),
      ...(values['s3-region'] === undefined ? {} : { region: values['s3-region'] }),
      ...(timeoutMs === undefined ? {} : { requestTimeoutMs: timeoutMs }),
      ...(cacheBytes === 0 ? {} : { cacheDir: resolve(values['cache-dir'] ?? join(dir, 's3-cache')), cacheBytes }),
    },
  };
}
