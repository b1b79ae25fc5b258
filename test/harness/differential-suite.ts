import { after, before, test } from 'node:test';
import { startOracleAndFloe, type OracleAndFloe } from './oracle-and-floe.js';
import { assertSameOutcomesWithNotices, dropOracleTestObjects } from './statement-outcomes.js';

/**
 * Inside a describe: a PostgreSQL 15 oracle and a Floe gateway given the same `setup`, a
 * test that runs `script` on both and asserts the same outcomes and notices, and, after,
 * the oracle's roles named with `prefix` (roles are cluster-wide) and its `schema` dropped.
 * Returns the servers for the suite's further tests.
 */
export function sameOutcomesSuite(o: {
  readonly setup: readonly string[]; readonly script: readonly string[]; readonly prefix: string; readonly schema?: string;
  readonly title?: string;
}): () => OracleAndFloe {
  let servers: OracleAndFloe | undefined;
  before(async () => {
    servers = await startOracleAndFloe(o.setup);
  });
  after(async () => {
    if (servers !== undefined) await dropOracleTestObjects(servers.oracleTarget.url, o.prefix, o.schema);
    await servers?.stop();
  });
  test(o.title ?? 'each statement sees, changes and is refused the same rows', async () => {
    await assertSameOutcomesWithNotices(servers!.oracleTarget.url, servers!.floe.url, o.script);
  });
  return () => servers!;
}
