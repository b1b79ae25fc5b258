import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The dashboard's source folder, at the repository's top (its own tsconfig: browser code). */
export const DASHBOARD_SOURCE = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'dashboard');

/** One file the dashboard serves. */
export interface DashboardAsset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** The dashboard: its page, and its assets by name (served under /assets/). */
export interface DashboardBundle {
  readonly page: DashboardAsset;
  readonly assets: ReadonlyMap<string, DashboardAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Bundles the dashboard with esbuild, in memory, at the server's first page request: nothing
 * built is kept in the repository or on disk, and the page always matches the source it
 * runs beside. It takes a few hundred milliseconds, once.
 */
export async function buildDashboard(): Promise<DashboardBundle> {
  // Imported here, not at the top: a server started with --no-http never loads esbuild.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(DASHBOARD_SOURCE, 'main.ts')],
    bundle: true,
    write: false,
    outdir: '/assets',
    entryNames: 'dashboard',
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = new Map<string, DashboardAsset>();
  for (const f of result.outputFiles) {
    const name = basename(f.path);
    const ext = name.slice(name.lastIndexOf('.'));
    assets.set(name, { contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream', body: Buffer.from(f.contents) });
  }
  const html = await readFile(join(DASHBOARD_SOURCE, 'index.html'));
  return { page: { contentType: 'text/html; charset=utf-8', body: html }, assets };
}
