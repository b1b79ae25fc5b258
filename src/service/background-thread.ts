import { Piscina } from 'piscina';
import { workerModule } from '../common/worker-module.js';

/** What a background thread is started with (piscina's workerData): its worker lowers its own priority to this. */
export interface BackgroundThreadData {
  readonly niceness: number;
}

/** One lazily started thread running one function of a worker module. */
export interface BackgroundThread<I, O> {
  run(input: I): Promise<O>;
  /** Runs the thread has finished. */
  readonly completed: number;
  close(): Promise<void>;
}

/**
 * A piscina pool of one thread on the worker module `stem` beside `callerUrl`, calling its
 * export `name`. The thread starts with the first run (loading the lake and parquet-wasm
 * takes it a second or so, which a gateway that never needs it does not pay), then stays.
 * A thread that dies fails its run; the pool stays usable.
 */
export function backgroundThread<I, O>(callerUrl: string, stem: string, name: string, niceness: number): BackgroundThread<I, O> {
  let pool: Piscina | undefined;
  const started = (): Piscina => {
    if (pool !== undefined) return pool;
    const { filename, execArgv } = workerModule(callerUrl, stem);
    pool = new Piscina({
      filename, name, minThreads: 1, maxThreads: 1, idleTimeout: 2 ** 31 - 1, execArgv,
      workerData: { niceness } satisfies BackgroundThreadData,
    });
    pool.on('error', () => undefined);
    return pool;
  };
  return {
    run: (input) => started().run(input) as Promise<O>,
    get completed() { return pool?.completed ?? 0; },
    close: async () => { await pool?.destroy(); },
  };
}
