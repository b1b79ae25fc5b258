import { LocalStorage } from './local-storage.js';
import { LogRoutedStorage } from './log-routed-storage.js';
import { S3Storage } from './s3-storage.js';
import type { Storage } from './storage.js';
import type { StorageConfig } from './storage-config.js';

/** Storage instances are cached per config so worker threads reuse one per process. */
const cache = new Map<string, Storage>();

export function openStorage(config: StorageConfig): Storage {
  const key = JSON.stringify(config);
  let s = cache.get(key);
  if (s === undefined) {
    switch (config.kind) {
      case 'local': s = new LocalStorage(config.root); break;
      case 's3': s = config.logRoot === undefined ? new S3Storage(config) : new LogRoutedStorage(new LocalStorage(config.logRoot), new S3Storage(config)); break;
    }
    cache.set(key, s);
  }
  return s;
}
