/** What a worker pool needs to start a thread on one of Floe's modules. */
export interface WorkerModule {
  readonly filename: string;
  readonly execArgv: string[];
}

/**
 * The worker module `stem` beside the module at `callerUrl`, in the caller's language.
 * Floe runs its TypeScript through tsx, so a worker gets the .ts file and tsx's loader.
 * Code transpiled ahead to JavaScript (the crash tests run their child processes so, to
 * start faster) gets the .js file beside it and plain Node, as its caller has.
 */
export function workerModule(callerUrl: string, stem: string): WorkerModule {
  const typeScript = callerUrl.endsWith('.ts');
  return {
    filename: new URL(`./${stem}.${typeScript ? 'ts' : 'js'}`, callerUrl).href,
    // Resolved here, not from the process's cwd, so a gateway started elsewhere still loads tsx.
    execArgv: typeScript ? ['--import', import.meta.resolve('tsx')] : [],
  };
}
