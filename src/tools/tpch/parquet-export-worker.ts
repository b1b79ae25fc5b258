import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { ParquetExport } from './parquet-export.js';
import { TpchGenerator } from './tpch-generator.js';

interface ExportJob {
  readonly kind: 'tpch-parquet-export';
  readonly sf: number;
  readonly batchRows: number;
  readonly dir: string;
}

export interface ParquetExportProgress {
  readonly rows: number;
  readonly seconds: number;
}

/**
 * Writes the Parquet for DuckDB on a second core: a worker thread runs its own generator
 * (deterministic, so it yields exactly the batches the main thread loads into Floe) and
 * writes each batch as ParquetExport does. Resolves with its rows and busy seconds.
 */
export function exportTpchParquetInWorker(sf: number, batchRows: number, dir: string, onProgress?: (p: ParquetExportProgress) => void): Promise<ParquetExportProgress> {
  const job: ExportJob = { kind: 'tpch-parquet-export', sf, batchRows, dir };
  // The worker's JavaScript entry loads this file through tsx's API (resolved here, not
  // from the cwd): execArgv's --import does not reach an eval'd or .ts worker entry.
  const api = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(`import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(import.meta.url)}, ${JSON.stringify(import.meta.url)}))`, {
    eval: true, workerData: job,
  });
  return new Promise((resolve, reject) => {
    let last: ParquetExportProgress = { rows: 0, seconds: 0 };
    worker.on('message', (m: ParquetExportProgress & { done?: boolean }) => {
      last = { rows: m.rows, seconds: m.seconds };
      if (m.done === true) resolve(last);
      else onProgress?.(last);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the Parquet export worker exited with code ${code}`));
      else resolve(last);
    });
  });
}

function runJob(job: ExportJob): void {
  const t0 = performance.now();
  const out = new ParquetExport(job.dir);
  let rows = 0;
  let lastReport = 0;
  for (const batch of new TpchGenerator(job.sf).batches(job.batchRows)) {
    out.write(batch);
    rows += batch.rowCount;
    const now = performance.now();
    if (now - lastReport > 1000) {
      lastReport = now;
      parentPort!.postMessage({ rows, seconds: (now - t0) / 1000 });
    }
  }
  parentPort!.postMessage({ rows, seconds: (performance.now() - t0) / 1000, done: true });
}

if (!isMainThread && (workerData as ExportJob | undefined)?.kind === 'tpch-parquet-export') runJob(workerData as ExportJob);
