/**
 * Node arguments that run one of the repository's TypeScript files bundled into a single
 * JavaScript file, for child processes a test starts many times (the gateway of the crash
 * tests). Node 20's ESM loader spends about a millisecond per module, and `floe serve`
 * loads about 880 of them (630 of Floe's, 146 of apache-arrow's): a start took about
 * 1.1 s of CPU even transpiled ahead (transpiled-child.ts), and 0.5 s bundled. Each
 * worker thread (scan, optimizer) loads its own graph again, so the workers are bundled
 * the same way.
 *
 * The bundles sit in the transpiled tree, built once per source state (the
 * tree's name is a hash of the sources) by a child process, since esbuild's plugins need
 * its async API. What differs from modules loaded one by one is made to match:
 * - `import.meta.url` would be the bundle's; each file's is its own place in the bundles'
 *   directory (laid out as the sources), so a pool finds its bundled worker beside it (src/common/worker-module.ts).
 * - esbuild cannot order a top-level await inside an import cycle (the bundle deadlocks),
 *   so src/sql/parser/pg-parser.ts's own `await loadSqlParser()` is left out: the bundled
 *   entry awaits loadSqlParser() before it parses (the gateway launcher does, and so does
 *   `floe serve`).
 * - A command's modules under src/tools load only when it runs (src/cli/floe-cli.ts) and
 *   bring DuckDB, which a bundle would import at its top: they stay outside, in the tree.
 * Packages with native code, WASM or worker files of their own stay external.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { REPO_ROOT } from './floe-server.js';
import { transpiledNodeArgs, transpiledTree } from './transpiled-child.js';

const EXTERNAL = ['better-sqlite3', 'libpg-query', 'parquet-wasm', 'piscina', 'pino', 'pino-pretty', 'thread-stream', 'esbuild', 'tsx', '@duckdb/*'];
/** The worker threads' modules, started by file name (src/common/worker-module.ts's callers). */
const WORKERS = [
  'src/exec/pool/scan-worker.ts', 'src/service/optimizing/optimizer-worker.ts', 'src/service/iceberg-metadata/iceberg-export-worker.ts',
  'src/service/log-tiering/tiering-worker.ts', 'src/lake/catalog/postgres/sync-pg-worker.ts',
];
const TOP_LEVEL_PARSER_LOAD = /^await loadSqlParser\(\);$/m;

/** `node` arguments that run `tsFile` (a path inside the repository) bundled into one file. */
export function bundledNodeArgs(tsFile: string): string[] {
  const rel = relative(REPO_ROOT, resolve(tsFile));
  if (rel.startsWith('..') || !rel.endsWith('.ts')) throw new Error(`not a TypeScript file of the repository: ${tsFile}`);
  const tree = transpiledTree();
  const out = join(bundleDir(tree, rel), rel.replace(/\.ts$/, '.js'));
  if (!existsSync(out)) {
    execFileSync(process.execPath, [...transpiledNodeArgs(fileURLToPath(import.meta.url)), REPO_ROOT, tree, rel], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return ['--enable-source-maps', out];
}

/** The directory of `entry`'s bundles (its own and the workers'), laid out as the sources are. */
function bundleDir(tree: string, entry: string): string {
  return join(tree, `bundled-${entry.replace(/\.ts$/, '').replaceAll('/', '-')}`);
}

/** Each source file as esbuild should see it (see above). */
function asInTree(repoRoot: string, tree: string, outDir: string): Plugin {
  return {
    name: 'as-in-tree',
    setup(build) {
      build.onResolve({ filter: /\/tools\// }, (args) => {
        if (args.kind !== 'dynamic-import' || relative(repoRoot, args.importer).startsWith('..')) return undefined;
        const target = relative(repoRoot, resolve(dirname(args.importer), args.path));
        return { path: pathToFileURL(join(tree, target)).href, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const rel = relative(repoRoot, args.path);
        if (rel.startsWith('..')) return undefined;
        const ownUrl = pathToFileURL(join(outDir, rel.replace(/\.ts$/, '.js'))).href;
        let contents = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(ownUrl));
        if (rel === 'src/sql/parser/pg-parser.ts') contents = contents.replace(TOP_LEVEL_PARSER_LOAD, '');
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Bundles `entry` and the workers, written beside and renamed into place (a concurrent test process never sees half of it). */
async function buildBundles(repoRoot: string, tree: string, entry: string): Promise<void> {
  const { build } = await import('esbuild');
  const outDir = bundleDir(tree, entry);
  const part = `${outDir}.part-${process.pid}`;
  rmSync(part, { recursive: true, force: true });
  await build({
    entryPoints: [entry, ...WORKERS].map((f) => join(repoRoot, f)), outdir: part, outbase: repoRoot,
    bundle: true, format: 'esm', platform: 'node', target: `node${process.versions.node}`,
    external: EXTERNAL, plugins: [asInTree(repoRoot, tree, outDir)],
    sourcemap: 'linked', sourcesContent: false, keepNames: true, minifyWhitespace: true, logLevel: 'error',
    // Bundled CommonJS packages (pg) call require() for Node's modules.
    banner: { js: "import { createRequire as floeCreateRequire } from 'node:module'; const require = floeCreateRequire(import.meta.url);" },
  });
  try {
    renameSync(part, outDir);
  } catch (e) {
    rmSync(part, { recursive: true, force: true });
    if (!existsSync(join(outDir, entry.replace(/\.ts$/, '.js')))) throw e;
  }
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [repoRoot, tree, entry] = process.argv.slice(2) as [string, string, string];
  await buildBundles(repoRoot, tree, entry);
}
