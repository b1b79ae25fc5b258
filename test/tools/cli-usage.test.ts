import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFloe } from '../../src/cli/floe-cli.js';
import { HelpRequest, UsageError, parseCommandLine, wantsHelp } from '../../src/tools/command-line.js';
import { parseArgs } from 'node:util';

interface Run { code: number; stdout: string; stderr: string }

// The real binary, as `npx floe` runs it (bin/floe.js starts src/cli/main.ts through tsx).
const bin = fileURLToPath(new URL('../../bin/floe.js', import.meta.url));

function floeProcess(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: tmpdir() }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (err as { code?: number }).code ?? 1, stdout, stderr });
    });
  });
}

/**
 * The CLI's runner in this process, as main.ts calls it with the process's streams: each
 * spawn of the binary loads tsx and the command's modules again (about 2 s of CPU each),
 * so only the first test spawns it, once per way the process can end.
 */
async function floe(args: string[]): Promise<Run> {
  const run = { code: -1, stdout: '', stderr: '' };
  run.code = await runFloe(args, { stdout: (t) => { run.stdout += t; }, stderr: (t) => { run.stderr += t; } });
  return run;
}

test('the real binary prints usage to stdout with exit 0, and a wrong command line to stderr with exit 2', async () => {
  const [help, wrong] = await Promise.all([floeProcess(['--help']), floeProcess(['nope'])]);
  assert.deepEqual({ code: help.code, stderr: help.stderr }, { code: 0, stderr: '' });
  assert.match(help.stdout, /^usage: floe COMMAND/);
  assert.deepEqual({ code: wrong.code, stdout: wrong.stdout }, { code: 2, stdout: '' });
  assert.match(wrong.stderr, /^floe: unknown command "nope"\nusage: floe COMMAND/);
});

test('every command prints its own usage to stdout for --help and exits 0', async () => {
  const cases: [string[], RegExp][] = [
    [['--help'], /^usage: floe COMMAND/],
    [[], /^usage: floe COMMAND/],
    [['serve', '--help'], /^usage: floe serve /],
    [['optimizer', '--help'], /^usage: floe optimizer /],
    [['user', '--help'], /^usage: floe user add /],
    [['load', '--help'], /^usage: floe load /],
    [['bench', '--help'], /^usage: floe bench tpch /],
    [['bench', 'tpch', 'load', '-h'], /^usage:\n {2}floe bench tpch /],
  ];
  const results = await Promise.all(cases.map(([args]) => floe(args)));
  results.forEach((r, i) => {
    const [args, usage] = cases[i]!;
    assert.equal(r.code, 0, `floe ${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, usage, `floe ${args.join(' ')}`);
    assert.equal(r.stderr, '', `floe ${args.join(' ')}`);
  });
});

test('a command line that cannot be taken says why, then the usage, on stderr with exit 2', async () => {
  const cases: [string[], RegExp, RegExp][] = [
    [['serve', '--bogus'], /Unknown option '--bogus'/, /usage: floe serve /],
    [['serve', 'stray'], /Unexpected argument 'stray'/, /usage: floe serve /],
    [['serve', '--scan-threads', '0'], /--scan-threads must be a whole number of at least 1, not "0"/, /usage: floe serve /],
    [['optimizer', '--bogus'], /Unknown option '--bogus'/, /usage: floe optimizer /],
    [['load', '--bogus'], /Unknown option '--bogus'/, /usage: floe load /],
    [['nope'], /unknown command "nope"/, /usage: floe COMMAND/],
    [['user'], /expected "add NAME"/, /usage: floe user add /],
    [['optimizer'], /--data DIR is required/, /usage: floe optimizer /],
    [['load', 'x.csv'], /--table is required/, /usage: floe load /],
    [['bench', 'tpch', 'generate', '--sf'], /argument missing/, /usage:\n {2}floe bench tpch /],
  ];
  const results = await Promise.all(cases.map(([args]) => floe(args)));
  results.forEach((r, i) => {
    const [args, reason, usage] = cases[i]!;
    assert.equal(r.code, 2, `floe ${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^floe: /, `floe ${args.join(' ')}`);
    assert.match(r.stderr, reason, `floe ${args.join(' ')}`);
    assert.match(r.stderr, usage, `floe ${args.join(' ')}`);
    assert.equal(r.stdout, '', `floe ${args.join(' ')}`);
  });
});

test('load and optimizer refuse a --data directory that does not exist, and do not create it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'floe-cli-'));
  try {
    const missing = join(dir, 'typo');
    const [load, optimizer] = await Promise.all([
      floe(['load', '--data', missing, '--table', 't', 'x.csv']),
      floe(['optimizer', '--data', missing]),
    ]);
    for (const r of [load, optimizer]) {
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /no warehouse at .*typo/);
    }
    assert.equal(existsSync(missing), false);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('parseCommandLine: help before "--" only; parseArgs errors become UsageError, others pass through', () => {
  assert.equal(wantsHelp(['--data', 'x', '-h']), true);
  assert.equal(wantsHelp(['--', '--help']), false);
  const parse = (argv: string[]) => parseCommandLine('usage: t', argv, (args) => parseArgs({ args, options: { n: { type: 'string' } } }));
  assert.equal(parse(['--n', '1']).values.n, '1');
  assert.throws(() => parse(['--n', '1', '--help']), (e: unknown) => e instanceof HelpRequest && e.usage === 'usage: t');
  assert.throws(() => parse(['--m']), (e: unknown) => e instanceof UsageError && /Unknown option '--m'\nusage: t$/.test(e.message));
  assert.throws(() => parseCommandLine('usage: t', [], () => { throw new Error('boom'); }), (e: unknown) => !(e instanceof UsageError) && (e as Error).message === 'boom');
});
