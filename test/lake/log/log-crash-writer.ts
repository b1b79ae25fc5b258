/**
 * Child process of the log crash test: CLIENTS concurrent writers on one warehouse with the
 * log store on (so their small commits share group-commit batches), each committing its
 * stream from log-crash-model.ts until the process is SIGKILLed. Prints "send <c> <i>"
 * before commit (c, i) begins and "ack <c> <i>" once it returned. argv: <warehouse dir>.
 * It loads its modules, then waits for "go <JSON array: each client's first i>" on stdin,
 * so the test can load the next child while this one runs. FLOE_LOG_CRASH_TIERING=1 tiers
 * the log files (and compacts the append tables) beside the writers. FLOE_LOG_CRASH_PLACE
 * (JSON: storage and catalog configs) opens the warehouse there instead of all in the directory.
 */
import { createInterface } from 'node:readline';
import { openWarehouse } from '../../../src/lake/index.js';
import type { CatalogConfig, StorageConfig } from '../../../src/lake/index.js';
import { appendTableName, CLIENTS, MAX_LOGGED_BYTES } from './log-crash-model.js';
import { commitWorkload } from './log-crash-commit.js';

const [dir] = process.argv.slice(2);
const line = await new Promise<string>((resolve) => {
  const rl = createInterface({ input: process.stdin });
  rl.once('line', (l) => { rl.close(); resolve(l.replace(/^go /, '')); });
});
const first = JSON.parse(line) as number[];
const placeJson = process.env['FLOE_LOG_CRASH_PLACE'];
const place = placeJson === undefined ? {} : JSON.parse(placeJson) as { storage: StorageConfig; catalog: CatalogConfig };
const wh = await openWarehouse({ path: dir!, ...place, log: { maxTransactionBytes: MAX_LOGGED_BYTES } });
const t = wh.getTable('public', 'logcrash')!;
process.stdout.write(`open ${JSON.stringify(wh.logReplay ?? null)}\n`);

async function client(c: number): Promise<void> {
  for (let i = first[c]!; ; i++) {
    process.stdout.write(`send ${c} ${i}\n`);
    await commitWorkload(wh, c, i);
    process.stdout.write(`ack ${c} ${i}\n`);
  }
}

/**
 * FLOE_LOG_CRASH_TIERING=1: tiering (and segment release) runs beside the writers, as `floe serve` runs it,
 * and so does the append tables' minor, which moves their log-located files into Parquet.
 */
async function tiering(): Promise<void> {
  for (;;) {
    await wh.tierLogFiles(t);
    for (let c = 0; c < CLIENTS; c++) await wh.optimize(wh.getTable('public', appendTableName(c))!, { kind: 'minor' });
    await wh.releaseLogSegments();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

await Promise.all([
  ...Array.from({ length: CLIENTS }, (_, c) => client(c)),
  ...(process.env['FLOE_LOG_CRASH_TIERING'] === '1' ? [tiering()] : []),
]);
