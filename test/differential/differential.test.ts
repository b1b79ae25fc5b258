import { test } from 'node:test';
import assert from 'node:assert/strict';
import { featuresInForce } from './features.js';
import { formatFinding, runDifferential } from './differential-run.js';

/**
 * Random schemas and histories run on Floe and PostgreSQL 15 side by side;
 * see README.md. FLOE_DIFF_SEED / FLOE_DIFF_HISTORY replay, FLOE_DIFF_STATEMENTS
 * sizes the run, FLOE_DIFF_FEATURES switches generator features.
 */
const envInt = (name: string): number | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : Number(v);
};

test('Floe agrees with PostgreSQL 15 on random histories (differential, TLP)', { timeout: 20 * 60_000 }, async () => {
  const seed = envInt('FLOE_DIFF_SEED') ?? Math.floor(Math.random() * 2 ** 31);
  const statements = envInt('FLOE_DIFF_STATEMENTS') ?? 20_000;
  const onlyHistory = envInt('FLOE_DIFF_HISTORY');
  const features = featuresInForce();
  console.log(`differential: FLOE_DIFF_SEED=${seed} FLOE_DIFF_STATEMENTS=${statements}; features: ${[...features].join(',')}`);
  const report = await runDifferential({
    seed,
    statements,
    features,
    historyLength: envInt('FLOE_DIFF_HISTORY_LENGTH') ?? 60,
    lanes: envInt('FLOE_DIFF_LANES') ?? 3,
    ...(onlyHistory !== undefined ? { onlyHistory } : {}),
    keepGoing: process.env.FLOE_DIFF_KEEP_GOING === '1',
    shrinkMs: envInt('FLOE_DIFF_SHRINK_MS') ?? 120_000,
    log: (line) => console.log(line),
  });
  console.log(`differential: ${report.statements} statements in ${report.histories} histories, ${(report.ms / 1000).toFixed(1)} s; allowlisted: ${JSON.stringify(Object.fromEntries(report.allowed))}`);
  if (report.findings.length > 0) {
    assert.fail(`Floe diverges from PostgreSQL (seed ${seed}):\n${report.findings.map(formatFinding).join('\n')}`);
  }
  if (onlyHistory === undefined) assert.ok(report.statements >= statements, `only ${report.statements} statements ran`);
});
