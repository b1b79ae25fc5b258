/** What a worker pool needs to start a thread on one of Floe's modules. */
export interface WorkerModule {
  readonly filename: string;
  readonly execArgv: string[];
}

/**
 * The worker module `stem` beside the module at `callerUrl`, in the caller's language.
 *
 * Floe runs its TypeScript through tsx, and a pool's thread then starts on the `.mjs`
 * entry beside the worker's `.ts`, which loads it with tsx's ESM API. Not on the `.ts`
 * itself: piscina loads a worker with require() first, and under tsx's CommonJS hook that
 * compiles the worker's whole module graph to CommonJS, where every call into another
 * module goes through a getter. In a merge-on-read scan those getters took a third of
 * the worker's time (2026-12-03, murmur3 in the key encoding). An `.mjs` cannot be
 * required, so piscina imports it; and `--import tsx` in a worker's execArgv does not
 * register tsx's ESM hooks on Node 20.
 *
 * Code transpiled ahead to JavaScript (the crash tests run their child processes so, to
 * start faster) gets the `.js` file beside it and plain Node, as its caller has.
 * A CPU profile of the process (`--cpu-prof`) profiles the workers too.
 */
export function workerModule(callerUrl: string, stem: string): WorkerModule {
  const typeScript = callerUrl.endsWith('.ts');
  return {
    filename: new URL(`./${stem}.${typeScript ? 'mjs' : 'js'}`, callerUrl).href,
    execArgv: profilingFlags(process.execArgv),
  };
}

/** Flags of a CPU profile that a worker thread takes from the process (each thread writes its own file). */
const PROFILE_FLAGS = new Set(['--cpu-prof', '--cpu-prof-dir', '--cpu-prof-interval']);
const TAKES_VALUE = new Set(['--cpu-prof-dir', '--cpu-prof-interval']);

/** The process's --cpu-prof flags, in `--flag=value` or `--flag value` form. */
export function profilingFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag] = argv[i]!.split('=', 1);
    if (!PROFILE_FLAGS.has(flag!)) continue;
    out.push(argv[i]!);
    if (TAKES_VALUE.has(flag!) && !argv[i]!.includes('=') && i + 1 < argv.length) out.push(argv[++i]!);
  }
  return out;
}
