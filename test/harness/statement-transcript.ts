import pg from 'pg';

/**
 * Differential transcripts through node-postgres: what each statement gave (rows, types,
 * command tags, SQLSTATEs, messages, positions, details, notices), so one scenario run on
 * PostgreSQL 15 and on Floe can be compared whole. The only normalization: a session's
 * temporary schema is pg_temp_N on both, with N the backend's own number.
 */
export type Step = Record<string, unknown>;

function normalize(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)).replace(/pg_temp_\d+/g, 'pg_temp_N'));
}

export class TranscriptSession {
  readonly client: pg.Client;
  readonly notices: string[] = [];

  constructor(url: string) {
    this.client = new pg.Client({ connectionString: url });
    this.client.on('notice', (n) => this.notices.push(`${n.severity} ${n.code} ${n.message}`));
  }

  /** One statement; with `params`, through the extended protocol (as ORMs send it). */
  async run(sql: string, params?: readonly unknown[]): Promise<Step> {
    this.notices.length = 0;
    let step: Step;
    try {
      const r = await (params === undefined ? this.client.query(sql) : this.client.query(sql, [...params])) as pg.QueryResult | pg.QueryResult[];
      step = { results: (Array.isArray(r) ? r : [r]).map((x) => ({ command: x.command, rowCount: x.rowCount, fields: x.fields.map((f) => `${f.name}:${f.dataTypeID}`), rows: x.rows })) };
    } catch (e) {
      const err = e as pg.DatabaseError;
      step = { error: err.code, message: err.message, position: err.position, ...(err.detail !== undefined ? { detail: err.detail } : {}) };
    }
    return normalize({ sql, ...(params !== undefined ? { params } : {}), ...step, ...(this.notices.length > 0 ? { notices: [...this.notices] } : {}) }) as Step;
  }
}

export async function openTranscriptSession(url: string): Promise<TranscriptSession> {
  const s = new TranscriptSession(url);
  await s.client.connect();
  return s;
}

/** A scenario: sessions opened on one server, a transcript of what each statement gave. */
export type Scenario = (open: () => Promise<TranscriptSession>) => Promise<Step[]>;

/** Runs `sql` statements one by one in one session. */
export function script(...sqls: string[]): Scenario {
  return async (open) => {
    const s = await open();
    try {
      const out: Step[] = [];
      for (const sql of sqls) out.push(await s.run(sql));
      return out;
    } finally {
      await s.client.end();
    }
  };
}
