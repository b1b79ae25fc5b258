import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, startFloe } from '../harness/floe-server.js';
import type { FloeServer } from '../harness/floe-server.js';
import { runPsql } from '../harness/run-psql.js';

/**
 * The README's SQL examples run as written: every ```sql block, in the README's order (later
 * blocks use the tables the first one creates), through psql against a fresh gateway. A
 * block that cannot run here says why in an `<!-- not run: … -->` line just above it.
 */
interface SqlBlock {
  readonly line: number;
  readonly sql: string;
  /** Why the block is not run, when the README says so. */
  readonly notRun?: string;
}

function sqlBlocks(markdown: string): SqlBlock[] {
  const lines = markdown.split('\n');
  const blocks: SqlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sql') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    assert.ok(end > i, `README.md:${i + 1}: a sql block that never ends`);
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    const notRun = /^<!--\s*not run:\s*(.*?)\s*-->$/.exec(lines[above]?.trim() ?? '')?.[1];
    blocks.push({ line: i + 1, sql: lines.slice(i + 1, end).join('\n'), ...(notRun === undefined ? {} : { notRun }) });
    i = end;
  }
  return blocks;
}

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
let floe: FloeServer;

before(async () => { floe = await startFloe(); });
after(async () => { await floe?.stop(); });

test('every sql block of the README runs on a fresh gateway, in order, without an error', async () => {
  const blocks = sqlBlocks(readme);
  const run = blocks.filter((b) => b.notRun === undefined);
  // The quick start's block, publications, CALL optimize and optimizer groups at least.
  assert.ok(run.length >= 4, `only ${run.length} runnable sql blocks found`);
  for (const b of blocks) if (b.notRun !== undefined) assert.notEqual(b.notRun, '', `README.md:${b.line}: say why the block is not run`);
  for (const b of run) {
    const r = await runPsql(floe, ['-v', 'ON_ERROR_STOP=1', '-f', '-'], { input: b.sql });
    assert.equal(r.code, 0, `README.md:${b.line}: psql exited ${r.code}\n${r.stderr}\n${floe.log().slice(-2000)}`);
    assert.doesNotMatch(r.stderr, /ERROR/, `README.md:${b.line}`);
  }
});

test('the block reader finds blocks, their lines and the reasons some are not run', () => {
  // Guards sqlBlocks: if it found nothing, the test above would run nothing.
  const md = 'text\n```sql\nSELECT 1;\n```\n\n<!-- not run: needs a source -->\n```sql\nCREATE SUBSCRIPTION s;\n```\n```sh\nls\n```\n';
  assert.deepEqual(sqlBlocks(md), [
    { line: 2, sql: 'SELECT 1;' },
    { line: 7, sql: 'CREATE SUBSCRIPTION s;', notRun: 'needs a source' },
  ]);
});

test('the quick start shows a partitioned keyed table whose partition columns are in its key', () => {
  // The case: PARTITION BY (day(ts), bucket(16, id)) on a table keyed by id alone fails with 42P10.
  const first = sqlBlocks(readme)[0]!;
  assert.match(first.sql, /PRIMARY KEY \(id, ts\)\)\s+PARTITION BY \(day\(ts\), bucket\(16, id\)\)/);
});
