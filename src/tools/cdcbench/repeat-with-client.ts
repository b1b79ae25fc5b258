import pg from 'pg';

/**
 * Runs `step` on one connection to `url` every `everyMs` (from the start of one step to
 * the start of the next) until `stop`, which resolves once the loop has ended and the
 * connection is closed. `step` gets the wall-clock time it started at.
 */
export function repeatWithClient(url: string, everyMs: number, step: (client: pg.Client, startedMs: number) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  const done = (async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      while (running) {
        const started = Date.now();
        await step(client, started);
        const wait = everyMs - (Date.now() - started);
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}
