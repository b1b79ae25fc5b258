import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { catalogFlags } from '../../harness/floe-server.js';
import { loadGateway } from '../../service/killable-gateway.js';
import type { KillableGateway, LoadedGateway } from '../../service/killable-gateway.js';

/**
 * `floe serve` on a warehouse directory, started through the crash tests' launcher
 * (test/service/killable-gateway.ts: bundled, so a restart is quick, and SIGKILL-able), and
 * connections to it that return every value as wire text.
 */
export interface MvGateway {
  readonly dataDir: string;
  readonly gateway: KillableGateway;
  /** A new connection; values come back as text (NULL as null); queries are never answered from materialized views. */
  connect(): Promise<pg.Client>;
}

export function tempDataDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts a gateway on `dataDir`; `loaded`: a launcher loaded ahead (loadGateway()), to restart quickly. */
export async function startMvGateway(dataDir: string, args: readonly string[] = [], loaded: LoadedGateway = loadGateway()): Promise<MvGateway> {
  await loaded.loaded;
  const gateway = await loaded.start(['--data', dataDir, '--no-http', ...catalogFlags(dataDir, args), ...args]);
  return {
    dataDir,
    gateway,
    async connect() {
      const c = new pg.Client({ host: '127.0.0.1', port: gateway.port, user: 'floe', database: 'floe', types: { getTypeParser: () => (v: string) => v } });
      // A kill ends the connection: its error is expected, and reported by the query that was running.
      c.on('error', () => undefined);
      await c.connect();
      // A query a materialized view matches could be answered from the view: every comparison
      // of a view with its query must run the query itself.
      await c.query('SET floe.mv_rewrite = off');
      return c;
    },
  };
}
