import pg from 'pg';

/** An engine reached through the wire with node-postgres: Floe's gateway or PostgreSQL. */
export interface SqlTarget {
  readonly engine: 'floe' | 'postgres';
  readonly url: string;
  /** Floe's gateway process, when the bench started it: its main thread's CPU is measured. */
  readonly pid?: number;
}

export async function connect(target: SqlTarget): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  return client;
}

export async function withClient<T>(target: SqlTarget, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(target);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A table's file and snapshot counts from Floe's `t$files` and `t$snapshots`. */
export interface FloeTableFiles {
  readonly baseFiles: number;
  readonly changeFiles: number;
  readonly snapshots: number;
}

export async function floeTableFiles(client: pg.Client, table: string): Promise<FloeTableFiles> {
  const files = await client.query<{ store: string; n: string }>(`SELECT store, count(*) AS n FROM "${table}$files" GROUP BY store`);
  const count = (store: string) => Number(files.rows.find((r) => r.store === store)?.n ?? 0);
  const snaps = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}$snapshots"`);
  return { baseFiles: count('base'), changeFiles: count('change'), snapshots: Number(snaps.rows[0]?.n ?? 0) };
}

export const describeFiles = (f: FloeTableFiles) => `${f.baseFiles} base + ${f.changeFiles} change files, ${f.snapshots} snapshots`;

/** The table properties Floe takes, where the gateway accepts each (a property another part adds is passed only once it exists). */
export async function acceptedProperties(client: pg.Client, wanted: Readonly<Record<string, string>>): Promise<{ properties: Record<string, string>; refused: string[] }> {
  const properties: Record<string, string> = {};
  const refused: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    try {
      await client.query(`CREATE TABLE commitbench_probe (k integer PRIMARY KEY) WITH ('${key}' = '${value}')`);
      await client.query('DROP TABLE commitbench_probe');
      properties[key] = value;
    } catch (e) {
      refused.push(`${key} = ${value}: ${(e as Error).message}`);
    }
  }
  return { properties, refused };
}
