import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFloeTarget, startOracleTarget } from './client-targets.js';
import type { ClientTarget } from './client-targets.js';
import { runPsql } from '../harness/run-psql.js';
import { openTranscriptSession } from '../harness/statement-transcript.js';
import type { Scenario, Step } from '../harness/statement-transcript.js';

export interface TranscriptSuite {
  readonly scenarios: Readonly<Record<string, Scenario>>;
  /** A psql script (`psql -f -` with `args`), its output compared after `normalize`. */
  readonly psql: { readonly title: string; readonly script: string; readonly args?: readonly string[]; readonly normalize?: (out: string) => string };
  /** Asserts that PostgreSQL 15 gives what the scenarios are meant to check (so they can fail). */
  checkOracle(find: (sql: string) => Step, steps: readonly Step[], psqlOutput: string): void;
}

/**
 * A differential suite: every scenario and the psql script run on PostgreSQL 15 first,
 * then on Floe, which must give the same transcripts.
 */
export function describeTranscriptSuite(title: string, suite: TranscriptSuite): void {
  const transcripts = async (t: ClientTarget): Promise<Map<string, Step[]>> => {
    const out = new Map<string, Step[]>();
    for (const [name, scenario] of Object.entries(suite.scenarios)) out.set(name, await scenario(() => openTranscriptSession(t.url)));
    return out;
  };
  const psqlTranscript = async (t: ClientTarget): Promise<string> => {
    const r = await runPsql(t, [...(suite.psql.args ?? []), '-f', '-'], { input: suite.psql.script, mergeStderr: true });
    assert.equal(r.code, 0, r.stdout);
    return suite.psql.normalize?.(r.stdout) ?? r.stdout;
  };

  describe(`${title}: Floe against PostgreSQL 15`, () => {
    let oracle: ClientTarget | undefined;
    let floe: ClientTarget | undefined;
    let expected: Map<string, Step[]> | undefined;
    let expectedPsql = '';
    after(async () => {
      await oracle?.stop();
      await floe?.stop();
    });

    test('the scenarios are real tests: PostgreSQL 15 gives what they check', async () => {
      oracle = await startOracleTarget();
      expected = await transcripts(oracle);
      expectedPsql = await psqlTranscript(oracle);
      const steps = [...expected.values()].flat();
      suite.checkOracle((sql) => steps.find((s) => s.sql === sql)!, steps, expectedPsql);
    });

    for (const name of Object.keys(suite.scenarios)) {
      test(`Floe: ${name}`, async () => {
        assert.ok(expected, 'the PostgreSQL run must come first');
        floe ??= await startFloeTarget();
        const got = await suite.scenarios[name]!(() => openTranscriptSession(floe!.url));
        assert.deepEqual(got, expected.get(name));
      });
    }

    test(`Floe: ${suite.psql.title}`, async () => {
      floe ??= await startFloeTarget();
      assert.equal(await psqlTranscript(floe), expectedPsql);
    });
  });
}
