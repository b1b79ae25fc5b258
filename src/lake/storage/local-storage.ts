import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { FileSlice, missingFile, readRange } from './file-slice.js';
import { forgetOpenFile } from './open-files.js';
import type { ByteSource, Storage } from './storage.js';

/**
 * Local-filesystem storage. put writes a temp file, fsyncs it, renames it into place
 * and fsyncs the directory, so after put resolves the file survives a crash under its
 * final name and a crash mid-write leaves only a '.tmp-' file (an orphan, never read).
 */
export class LocalStorage implements Storage {
  readonly #root: string;
  readonly #knownDirs = new Set<string>();

  constructor(root: string) {
    this.#root = root;
  }

  #path(key: string): string {
    if (key.includes('..')) throw new FloeError(SqlState.invalidParameterValue, `invalid storage key "${key}"`);
    return join(this.#root, key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.#path(key);
    const dir = dirname(path);
    if (!this.#knownDirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.#knownDirs.add(dir);
    }
    const tmp = join(dir, `.tmp-${randomUUID()}`);
    const fh = await fs.open(tmp, 'w');
    try {
      await fh.write(bytes, 0, bytes.length, 0);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, path);
    const dh = await fs.open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await fs.readFile(this.#path(key));
    } catch (e) {
      throw missingFile(key, e);
    }
  }

  async openBlob(key: string): Promise<ByteSource> {
    const path = this.#path(key);
    try {
      return new FileSlice(path, 0, (await fs.stat(path)).size, key);
    } catch (e) {
      throw missingFile(key, e);
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    const buf = Buffer.alloc(length);
    return buf.subarray(0, await readRange(this.#path(key), key, buf, offset, false));
  }

  async list(prefix: string): Promise<{ key: string; size: number; modifiedMicros: bigint }[]> {
    const out: { key: string; size: number; modifiedMicros: bigint }[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
      for (const ent of entries) {
        const p = join(dir, ent.name);
        if (ent.isDirectory()) await walk(p);
        else if (ent.isFile()) {
          let st;
          try {
            st = await fs.stat(p, { bigint: true });
          } catch (e) {
            // Renamed or deleted since the directory was read (a put's temporary file, a cleanup): not there.
            if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
            throw e;
          }
          out.push({ key: relative(this.#root, p).split(sep).join('/'), size: Number(st.size), modifiedMicros: st.mtimeNs / 1000n });
        }
      }
    };
    await walk(this.#path(prefix));
    return out;
  }

  async delete(key: string): Promise<void> {
    forgetOpenFile(this.#path(key));
    try {
      await fs.unlink(this.#path(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

