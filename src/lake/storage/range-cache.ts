import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

/**
 * A bounded local cache of byte ranges of remote objects: the footers and column chunks a
 * scan read before. Objects are immutable under their names (storage.ts), so a cached
 * range never goes stale and needs no validation.
 *
 * Each range is one file named by a hash of (key, start, length), written to a temp name
 * and renamed, so a reader sees a whole range or none. Every thread of a process (and
 * every process on the machine given the same directory) shares the files; each keeps
 * its own count of what it wrote, and when that passes an eighth of the bound it sweeps
 * the directory, deleting the least recently used files (by mtime, which a hit touches)
 * until the whole is under the bound again. So the directory stays within the bound plus
 * what the threads wrote since their last sweeps.
 */
export class RangeCache {
  readonly #dir: string;
  readonly #maxBytes: number;
  #writtenSinceSweep = 0;
  #sweeping: Promise<void> | undefined;
  #dirsMade = new Set<string>();

  constructor(dir: string, maxBytes: number) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
  }

  /** The range's bytes, or undefined when not cached (or cached wrong, which is then dropped). */
  async read(key: string, start: number, length: number): Promise<Uint8Array | undefined> {
    const path = this.#pathOf(key, start, length);
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path);
    } catch {
      return undefined;
    }
    if (bytes.length !== length) {
      await fs.rm(path, { force: true });
      return undefined;
    }
    // Recently used: the sweep keeps it. Not awaited: the read is done.
    const now = new Date();
    fs.utimes(path, now, now).catch(() => undefined);
    return bytes;
  }

  /** Keeps a range for later reads; failures (a full disk, say) only cost the cache. */
  async write(key: string, start: number, bytes: Uint8Array): Promise<void> {
    if (bytes.length > this.#maxBytes / 8) return;
    const path = this.#pathOf(key, start, bytes.length);
    const dir = join(path, '..');
    try {
      if (!this.#dirsMade.has(dir)) {
        await fs.mkdir(dir, { recursive: true });
        this.#dirsMade.add(dir);
      }
      const tmp = `${path}.tmp-${randomUUID()}`;
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, path);
    } catch {
      return;
    }
    this.#writtenSinceSweep += bytes.length;
    if (this.#writtenSinceSweep > this.#maxBytes / 8 && this.#sweeping === undefined) {
      this.#writtenSinceSweep = 0;
      this.#sweeping = this.sweep().finally(() => { this.#sweeping = undefined; });
    }
  }

  /** Deletes the least recently used ranges until the directory holds at most 90% of the bound. */
  async sweep(): Promise<void> {
    const files: { path: string; size: number; used: number }[] = [];
    let total = 0;
    let subdirs: string[];
    try {
      subdirs = await fs.readdir(this.#dir);
    } catch {
      return;
    }
    for (const sub of subdirs) {
      let names: string[];
      try {
        names = await fs.readdir(join(this.#dir, sub));
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(this.#dir, sub, name);
        try {
          const st = await fs.stat(path);
          files.push({ path, size: st.size, used: st.mtimeMs });
          total += st.size;
        } catch { /* gone meanwhile */ }
      }
    }
    if (total <= this.#maxBytes) return;
    files.sort((a, b) => a.used - b.used);
    for (const f of files) {
      if (total <= this.#maxBytes * 0.9) break;
      await fs.rm(f.path, { force: true });
      total -= f.size;
    }
  }

  #pathOf(key: string, start: number, length: number): string {
    const name = createHash('sha256').update(`${key}\0${start}\0${length}`).digest('hex');
    return join(this.#dir, name.slice(0, 2), name);
  }
}
