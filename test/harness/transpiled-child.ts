/**
 * Node arguments that run one of the repository's TypeScript files as plain JavaScript,
 * transpiled ahead, for the crash tests' child processes. A crash test starts a child per
 * kill (50 to 100 of them, a gateway with three worker threads each time), and each child
 * loads the lake's module graph. Through tsx that cost about 1.7 s of CPU per graph, since
 * Node 20 runs tsx's resolve and load hooks on a separate thread with a round trip per
 * module; the same graph as JavaScript loads in about 0.75 s.
 *
 * The transpiler is tsx's own esbuild with tsx's options, so a child runs the code tsx
 * would have made, with source maps for its stack traces. The whole of src/ and test/ is
 * transpiled at once into a directory of os.tmpdir() named by a hash of their contents:
 * the first test process that needs it builds it (about a second), the others reuse it.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';
import type { BuildOptions } from 'esbuild';
import { REPO_ROOT } from './floe-server.js';

/** The sources a child may load: .ts files are transpiled, other files (SQL texts) copied. */
const SOURCE_DIRS = ['src', 'test'];

/** tsx's own transform options (tsx/dist, "sourcemap … keepNames"), for a Node of this version. */
const TRANSFORM: BuildOptions = {
  format: 'esm',
  platform: 'node',
  target: `node${process.versions.node}`,
  sourcemap: 'inline',
  sourcesContent: false,
  minifyWhitespace: true,
  keepNames: true,
  logLevel: 'error',
};

/** Trees not used for this long are removed when a new one is built (one per source change). */
const STALE_TREE_MS = 24 * 3600 * 1000;

let treeDir: string | undefined;

/** `node` arguments that run `tsFile` (a path inside the repository) as transpiled JavaScript. */
export function transpiledNodeArgs(tsFile: string): string[] {
  return ['--enable-source-maps', transpiledPath(tsFile)];
}

/** Where the transpiled tree holds the JavaScript of `tsFile` (a path inside the repository). */
export function transpiledPath(tsFile: string): string {
  const rel = relative(REPO_ROOT, tsFile);
  if (rel.startsWith('..') || !rel.endsWith('.ts')) throw new Error(`not a TypeScript file of the repository: ${tsFile}`);
  return join(transpiledTree(), rel.replace(/\.ts$/, '.js'));
}

/** The directory of the transpiled tree for the sources as they are now (built on first need). */
export function transpiledTree(): string {
  return (treeDir ??= ensureTree());
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !e.name.endsWith('.md')) files.push(p);
    }
  };
  for (const d of SOURCE_DIRS) walk(join(REPO_ROOT, d));
  return files.sort();
}

/** The tree for the sources as they are now: built unless a test process built it already. */
function ensureTree(): string {
  const files = sourceFiles();
  // Packages resolve from the repository's node_modules, as they do for the sources. Named
  // in the hash: a checkout with the same sources must not take a tree that links another's.
  const nodeModules = realpathSync(join(REPO_ROOT, 'node_modules'));
  const hash = createHash('sha256').update(`${esbuildVersion}\0${JSON.stringify(TRANSFORM)}\0${nodeModules}\0`);
  for (const f of files) hash.update(relative(REPO_ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  const dir = join(tmpdir(), `floe-js-${hash.digest('hex').slice(0, 20)}`);
  if (existsSync(dir)) {
    // A tree in use is never stale (removeStaleTrees goes by this time).
    utimesSync(dir, new Date(), new Date());
    return dir;
  }
  // Built beside and renamed into place, so a concurrent test process never sees half a tree.
  const part = `${dir}.part-${process.pid}`;
  rmSync(part, { recursive: true, force: true });
  const typeScript = files.filter((f) => f.endsWith('.ts'));
  buildSync({ ...TRANSFORM, entryPoints: typeScript, outdir: part, outbase: REPO_ROOT, bundle: false });
  for (const f of files.filter((g) => !g.endsWith('.ts'))) {
    const to = join(part, relative(REPO_ROOT, f));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(f, to);
  }
  writeFileSync(join(part, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(nodeModules, join(part, 'node_modules'));
  try {
    renameSync(part, dir);
  } catch (e) {
    rmSync(part, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
    return dir; // another test process renamed its tree first
  }
  removeStaleTrees(dir);
  return dir;
}

function removeStaleTrees(current: string): void {
  const now = Date.now();
  for (const name of readdirSync(tmpdir())) {
    const p = join(tmpdir(), name);
    if (!name.startsWith('floe-js-') || p === current) continue;
    try {
      if (now - statSync(p).mtimeMs > STALE_TREE_MS) rmSync(p, { recursive: true, force: true });
    } catch { /* removed by another process meanwhile */ }
  }
}
