import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditRow } from './audit-table.js';

/** One row as a spool line: JSON, `at` as a decimal string (JSON has no bigint). */
function lineOf(row: AuditRow): string {
  return `${JSON.stringify({ ...row, at: row.at.toString() })}\n`;
}

function rowOf(line: string): AuditRow | undefined {
  try {
    const r = JSON.parse(line) as Omit<AuditRow, 'at'> & { at: string };
    return { ...r, at: BigInt(r.at) };
  } catch {
    // A line cut short by the kill that interrupted its write: the statement it records had not been answered.
    return undefined;
  }
}

/** Whether a process with this id is alive on this host. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A dead process's spool: its rows, and the file to remove once they are in the table. */
export interface LeftoverSpool {
  readonly path: string;
  /** The dead process's own file name (`<pid>.jsonl`), which a claim renames from. */
  readonly base: string;
  readonly rows: readonly AuditRow[];
}

/**
 * The audit rows a process has recorded and not yet seen committed, in a local file of its
 * own (`<dir>/audit-spool/<pid>.jsonl`), so that a process killed between answering a
 * statement and flushing its row loses nothing: each row is appended, with a plain write,
 * before the statement's result goes out (the kernel keeps it through the process's death;
 * a crash of the machine can lose the last rows), and once a flush has committed rows the
 * file is rewritten with those still waiting. A later start finds the files of processes
 * that are gone and commits their rows (audit-spool-recovery.ts).
 */
export class AuditSpool {
  readonly #dir: string;
  readonly #path: string;
  #fd: number;

  constructor(dir: string, pid = process.pid) {
    this.#dir = join(dir, 'audit-spool');
    mkdirSync(this.#dir, { recursive: true });
    this.#path = join(this.#dir, `${pid}.jsonl`);
    this.#fd = openSync(this.#path, 'a');
  }

  get path(): string {
    return this.#path;
  }

  append(row: AuditRow): void {
    writeSync(this.#fd, lineOf(row));
  }

  /** After a flush: the file holds exactly `rows` (those recorded since the flush began), replaced whole by a rename. */
  replace(rows: readonly AuditRow[]): void {
    const next = `${this.#path}.next`;
    const fd = openSync(next, 'w');
    try {
      if (rows.length > 0) writeSync(fd, rows.map(lineOf).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.#path);
    closeSync(this.#fd);
    this.#fd = openSync(this.#path, 'a');
  }

  /** A clean stop with nothing waiting: the file goes. */
  close(remove: boolean): void {
    closeSync(this.#fd);
    if (remove) rmSync(this.#path, { force: true });
  }

  /**
   * The spools no running process holds: a dead process's own, or one a dead process had
   * claimed for recovery (`<pid>.jsonl.recovering-<claimer>`) and not finished.
   */
  static leftovers(dir: string, self = process.pid): LeftoverSpool[] {
    const spoolDir = join(dir, 'audit-spool');
    if (!existsSync(spoolDir)) return [];
    const out: LeftoverSpool[] = [];
    for (const name of readdirSync(spoolDir)) {
      const m = /^(\d+)\.jsonl(?:\.recovering-(\d+))?$/.exec(name);
      if (m === null) continue;
      const holder = Number(m[2] ?? m[1]);
      if (holder === self || alive(holder)) continue;
      const path = join(spoolDir, name);
      const rows = readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map(rowOf).filter((r): r is AuditRow => r !== undefined);
      out.push({ path, base: join(spoolDir, `${m[1]}.jsonl`), rows });
    }
    return out;
  }
}
