import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { sharedDir } from '../harness/shared-dir.js';

/** The captured client statements: each ends with a line holding only ";;"; comment lines are dropped. */
export function capturedStatements(file: string): string[] {
  const text = readFileSync(resolve(sharedDir(), 'client-queries', file), 'utf8');
  return text.split(/^;;\s*$/m)
    .map((chunk) => chunk.split('\n').filter((l) => !l.startsWith('--')).join('\n').trim())
    .filter((s) => s.length > 0);
}
