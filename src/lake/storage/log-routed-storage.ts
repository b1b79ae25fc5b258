import { LOG_DIR } from '../log/log-locator.js';
import type { ByteSource, Storage } from './storage.js';

/**
 * Data files in a remote store and the log store's segments on local disk, behind one
 * Storage: keys under `log/` (what log locators name, log-locator.ts) go to `local`, every
 * other key to `remote`. The log store writes and deletes its segments itself; through here
 * they are only read, by scans and tiering, with the same keys as when everything is local.
 */
export class LogRoutedStorage implements Storage {
  constructor(readonly local: Storage, readonly remote: Storage) {}

  #for(key: string): Storage {
    return key.startsWith(`${LOG_DIR}/`) ? this.local : this.remote;
  }

  put(key: string, bytes: Uint8Array): Promise<void> { return this.#for(key).put(key, bytes); }
  get(key: string): Promise<Uint8Array> { return this.#for(key).get(key); }
  getRange(key: string, offset: number, length: number): Promise<Uint8Array> { return this.#for(key).getRange(key, offset, length); }

  async openBlob(key: string): Promise<ByteSource> {
    const s = this.#for(key);
    return s.openBlob !== undefined ? s.openBlob(key) : Promise.reject(new Error('openBlob is not supported'));
  }

  list(prefix: string): Promise<{ key: string; size: number; modifiedMicros: bigint }[]> { return this.#for(prefix).list(prefix); }
  delete(key: string): Promise<void> { return this.#for(key).delete(key); }
  async checkReachable(): Promise<void> { await this.remote.checkReachable?.(); }
}
