/**
 * Reads a mocha JSON report of Kysely's suite and sorts its tests against two lists kept
 * here: the tests that pass on PostgreSQL 15 (kysely-postgres-passing.txt, one full title a
 * line: the denominator) and the blocklist (kysely-blocklist.tsv: full title, a tab, the
 * reason Floe fails it). Prints passed / failed / not run, and exits 1 when a test that
 * passes on PostgreSQL and is not blocklisted failed or did not run.
 *
 *   node --import tsx test/external/kysely-outcome.ts RESULT_JSON BLOCKLIST_TSV [--write-passing]
 *
 * `--write-passing` (used once, on a run against PostgreSQL) writes the passing list instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface MochaTest { readonly fullTitle: string; readonly err?: { readonly message?: string } }
interface MochaReport { readonly passes: MochaTest[]; readonly failures: MochaTest[]; readonly pending: MochaTest[] }

const [resultPath, blocklistPath, flag] = process.argv.slice(2);
if (resultPath === undefined || blocklistPath === undefined) {
  process.stderr.write('usage: kysely-outcome.ts RESULT_JSON BLOCKLIST_TSV [--write-passing]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(resultPath, 'utf8')) as MochaReport;
const passingPath = join(dirname(blocklistPath), 'kysely-postgres-passing.txt');
const passed = new Set(report.passes.map((t) => t.fullTitle));

if (flag === '--write-passing') {
  writeFileSync(passingPath, [...passed].sort().join('\n') + '\n');
  process.stdout.write(`wrote ${passed.size} passing titles to ${passingPath}\n`);
  process.exit(0);
}

const baseline = lines(passingPath);
const blocklist = new Map(lines(blocklistPath).map((l) => {
  const tab = l.indexOf('\t');
  if (tab < 0) throw new Error(`blocklist line without a reason: ${l}`);
  return [l.slice(0, tab), l.slice(tab + 1)] as const;
}));
const failed = new Map(report.failures.map((t) => [t.fullTitle, firstLine(t.err?.message ?? '')]));

const passedOfBaseline = baseline.filter((t) => passed.has(t));
const failedOfBaseline = baseline.filter((t) => failed.has(t));
const notRun = baseline.filter((t) => !passed.has(t) && !failed.has(t));
const unexpected = [...failedOfBaseline, ...notRun].filter((t) => !blocklist.has(t));
const nowPassing = [...blocklist.keys()].filter((t) => passed.has(t));
const hooks = report.failures.filter((t) => t.fullTitle.includes('" hook'));

const pct = (n: number): string => `${((100 * n) / Math.max(1, baseline.length)).toFixed(1)}%`;
process.stdout.write([
  `Kysely's PostgreSQL suite: ${baseline.length} tests pass on PostgreSQL 15`,
  `  passed:  ${passedOfBaseline.length} (${pct(passedOfBaseline.length)})`,
  `  failed:  ${failedOfBaseline.length}`,
  `  not run: ${notRun.length} (a failing hook skipped them)`,
  `  failing hooks: ${hooks.length}`,
  `  blocklisted: ${blocklist.size}; unexpected failures: ${unexpected.length}; blocklisted but passing: ${nowPassing.length}`,
  '',
].join('\n'));
for (const h of hooks) process.stdout.write(`hook failed: ${h.fullTitle}: ${failed.get(h.fullTitle)}\n`);
for (const t of unexpected) process.stdout.write(`UNEXPECTED ${failed.has(t) ? 'failure' : 'not run'}: ${t}${failed.has(t) ? `: ${failed.get(t)}` : ''}\n`);
for (const t of nowPassing) process.stdout.write(`now passes (remove from the blocklist): ${t}\n`);
process.exit(unexpected.length === 0 ? 0 : 1);

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 200);
}
