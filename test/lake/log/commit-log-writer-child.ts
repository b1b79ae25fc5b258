/**
 * Child process of the commit log's SIGKILL test: resumes the log at argv[2]/argv[3] and
 * appends records of random sizes from four concurrent committers until killed. After each
 * sync resolves it prints `ack <lsn>:<id> …` for the records that sync covered. A record's
 * payload is its id (8 bytes) then bytes derived from it, so the parent can check it intact.
 */
import { openCommitLog } from '../../../src/lake/log/segmented-commit-log.js';
import { seededRandom } from '../helpers/seeded-random.js';

const [root, writerId, seedText] = process.argv.slice(2);
const random = seededRandom(Number(seedText));

export function recordPayload(id: bigint, size: number): Uint8Array {
  const payload = new Uint8Array(Math.max(8, size));
  new DataView(payload.buffer).setBigUint64(0, id, true);
  for (let i = 8; i < payload.byteLength; i++) payload[i] = Number((id + BigInt(i)) & 0xffn);
  return payload;
}

async function main(): Promise<void> {
  const log = await openCommitLog({ root: root!, writerId: writerId!, segmentBytes: 64 << 10 });
  let nextId = BigInt(Number(seedText)) * 1_000_000n;
  const committer = async (): Promise<void> => {
    for (;;) {
      const batch: string[] = [];
      const records = 1 + Math.floor(random() * 3);
      for (let r = 0; r < records; r++) {
        const big = random() < 0.05;
        const size = big ? 10_000 + Math.floor(random() * 150_000) : Math.floor(random() * 400);
        const id = nextId++;
        const payload = recordPayload(id, size);
        const parts = random() < 0.5 ? [payload] : [payload.subarray(0, 8), payload.subarray(8)];
        const { lsn } = log.append(random() < 0.9 ? 'commit' : 'void', parts);
        batch.push(`${lsn}:${id}`);
      }
      await log.sync();
      process.stdout.write(`ack ${batch.join(' ')}\n`);
    }
  };
  await Promise.all([committer(), committer(), committer(), committer()]);
}

if (process.argv[1]?.endsWith('commit-log-writer-child.ts')) {
  main().catch((e) => {
    process.stderr.write(`${String(e?.stack ?? e)}\n`);
    process.exit(1);
  });
}
