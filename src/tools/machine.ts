import { cpus, totalmem } from 'node:os';

/** The machine a benchmark ran on, as its reports print it: CPU model, cores, memory, Node version. */
export function machineDescription(): string {
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.versions.node}`;
}
