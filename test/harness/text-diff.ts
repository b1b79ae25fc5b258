import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.js';

/** A unified diff of two texts (diff -u), for failure messages people can read; '' when equal. */
export async function textDiff(expected: string, actual: string, labels: [string, string] = ['expected', 'actual']): Promise<string> {
  if (expected === actual) return '';
  const dir = mkdtempSync(join(tmpdir(), 'floe-diff-'));
  try {
    writeFileSync(join(dir, labels[0]), expected);
    writeFileSync(join(dir, labels[1]), actual);
    const r = await runCommand('diff', ['-u', labels[0], labels[1]], { cwd: dir });
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
