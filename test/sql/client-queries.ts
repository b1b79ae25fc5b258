import { readFileSync } from 'node:fs';

/** The captured client statements: each ends with a line holding only ";;"; comment lines are dropped. */
export function capturedStatements(file: string): string[] {
  const text = readFileSync(new URL(`../../../shared/client-queries/${file}`, import.meta.url), 'utf8');
  return text.split(/^;;\s*$/m)
    .map((chunk) => chunk.split('\n').filter((l) => !l.startsWith('--')).join('\n').trim())
    .filter((s) => s.length > 0);
}
