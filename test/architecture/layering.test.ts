import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { sourceFiles, src } from './source-files.js';

// DESIGN.md's picture, left to right. A layer may import itself and any layer
// to its right, never one to its left. src/service (long-running work no statement
// owns) sits beside the session, which calls it, and calls only src/lake itself. src/http
// (the management server) calls src/service and src/lake only, never the session or the
// wire: what it needs of them src/cli hands in. src/common is below everything; src/cli
// is the composition root and may import anything.
const layers = ['wire', 'session', 'http', 'service', 'sql', 'planner', 'exec', 'lake'] as const;

/** The layers src/http may import besides itself and src/common. */
const httpReaches = new Set(['service', 'lake']);

function layerOf(path: string): string {
  return relative(src, path).split(/[\\/]/)[0] ?? '';
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

test('no layer imports a layer to its left, and the wire knows no engine', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = layerOf(file);
    const fromRank = layers.indexOf(from as (typeof layers)[number]);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importPattern)) {
      const spec = m[1] ?? m[2];
      if (spec === undefined) continue;
      const to = layerOf(resolve(dirname(file), spec));
      if (to === from || to === 'common') continue;
      const toRank = layers.indexOf(to as (typeof layers)[number]);
      if (from === 'common' && to !== 'common') violations.push(`${relative(src, file)} → ${spec} (common imports nothing)`);
      if (from === 'wire' && to !== 'wire') violations.push(`${relative(src, file)} → ${spec} (the wire imports no engine layer)`);
      if (fromRank >= 0 && toRank >= 0 && toRank < fromRank) violations.push(`${relative(src, file)} → ${spec}`);
      if (to === 'cli' && from !== 'cli') violations.push(`${relative(src, file)} → ${spec} (only the entry point imports cli)`);
      if (from === 'http' && !httpReaches.has(to)) violations.push(`${relative(src, file)} → ${spec} (http calls only service and lake)`);
      if (to === 'http' && from !== 'cli') violations.push(`${relative(src, file)} → ${spec} (only the entry point composes http)`);
    }
  }
  assert.deepEqual(violations, []);
});

// A layer's index.ts is its public API: from outside the layer, import only that. src/cli and
// src/tools are no layers (the entry point and the programs it dispatches to): they import layers
// through their indexes too, but their own files are theirs to import.
// Exceptions name the importing file and the module, with the reason it may reach past the index.
const throughIndexExceptions: readonly { from: string; to: string; why: string }[] = [
  {
    from: 'tools/pg/generate-pg-proc-facts.ts', to: 'sql/system-catalog/proc-arg-oid.ts',
    why: 'a build step of src/sql: it writes pg-proc-facts.ts and must key the facts exactly as the reader looks them up',
  },
];

function importedFile(file: string, spec: string): string {
  return relative(src, resolve(dirname(file), spec)).replace(/\\/g, '/').replace(/\.js$/, '.ts');
}

function reachesPastIndex(file: string, spec: string): boolean {
  const from = layerOf(file);
  const target = importedFile(file, spec);
  const to = target.split('/')[0] ?? '';
  if (to === from || !layers.includes(to as (typeof layers)[number])) return false;
  return target !== `${to}/index.ts`;
}

test('imports from another layer go through its index.ts', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const name = relative(src, file).replace(/\\/g, '/');
    for (const m of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const spec = m[1] ?? m[2];
      if (spec === undefined || !reachesPastIndex(file, spec)) continue;
      const target = importedFile(file, spec);
      if (throughIndexExceptions.some((e) => e.from === name && e.to === target)) continue;
      violations.push(`${name} → ${spec}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the index check tells an index from a module behind it', () => {
  // Guards reachesPastIndex: if it accepted everything, the test above would pass vacuously.
  const binderFile = join(src, 'sql', 'binder', 'bind-query.ts');
  assert.equal(reachesPastIndex(binderFile, '../../exec/expr/expr.js'), true);
  assert.equal(reachesPastIndex(binderFile, '../../planner/logical/logical-filter.js'), true);
  assert.equal(reachesPastIndex(binderFile, '../../exec/index.js'), false);
  assert.equal(reachesPastIndex(binderFile, '../system-catalog/catalog-lookup.js'), false);
  assert.equal(reachesPastIndex(binderFile, '../../common/sql-type.js'), false);
  for (const e of throughIndexExceptions) assert.ok(existsSync(join(src, e.from)) && existsSync(join(src, e.to)), `stale exception ${e.from} → ${e.to}`);
});

test('the layer check sees imports at all', () => {
  // Guards the regular expression: if it matched nothing, the test above would pass vacuously.
  const sample = "import type { X } from '../lake/index.js';\nexport { y } from './y.js';\nconst z = await import('../exec/z.js');";
  const specs = [...sample.matchAll(importPattern)].map((m) => m[1] ?? m[2]);
  assert.deepEqual(specs, ['../lake/index.js', './y.js', '../exec/z.js']);
});

// Stages apart (issue 26): binding returns a logical plan; optimizing and physical
// planning happen after it, in src/planner/plan-statement.ts, never from src/sql.
const plannerStages = /^planner[\\/](optimizer[^\\/]*\.js$|rules[\\/]|physical[\\/]|plan-statement\.js$)/;

function isPlanningStage(file: string, spec: string): boolean {
  return plannerStages.test(relative(src, resolve(dirname(file), spec)));
}

// Imports now name src/planner/index.ts, so what a file reaches is the module behind each name it imports from there.
const namedImportPattern = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](\.[^'"]+)['"]/g;
const plannerIndex = join(src, 'planner', 'index.ts');

/** The names in `{ a, type b, c as d }`: as exported (a, b, c) or, with `side` 'local', as bound here (a, b, d). */
function importedNames(list: string, side: 'exported' | 'local' = 'exported'): string[] {
  return list.split(',').map((n) => {
    const [exported, local] = n.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
    return (side === 'local' ? local ?? exported : exported) ?? '';
  }).filter((n) => n !== '');
}

/** Each name src/planner/index.ts exports → the module (under src, `.js`) it comes from. */
function plannerIndexModules(): Map<string, string> {
  const modules = new Map<string, string>();
  for (const m of readFileSync(plannerIndex, 'utf8').matchAll(namedImportPattern)) {
    const module = relative(src, resolve(dirname(plannerIndex), m[2]!));
    for (const name of importedNames(m[1]!, 'local')) modules.set(name, module);
  }
  return modules;
}

/** The planner modules a file's imports reach, looking through planner/index.js to the module behind each name. */
function plannerModulesReached(file: string, text: string, behindIndex: Map<string, string>): string[] {
  const reached: string[] = [];
  const indexSpecs = new Set<string>();
  for (const m of text.matchAll(namedImportPattern)) {
    if (resolve(dirname(file), m[2]!) !== plannerIndex.replace(/\.ts$/, '.js')) continue;
    indexSpecs.add(m[2]!);
    for (const name of importedNames(m[1]!)) reached.push(behindIndex.get(name) ?? `planner/index.js (${name}: not found)`);
  }
  for (const m of text.matchAll(importPattern)) {
    const spec = m[1] ?? m[2];
    if (spec === undefined || indexSpecs.has(spec)) continue;
    const target = relative(src, resolve(dirname(file), spec));
    if (target === 'planner/index.js') reached.push(...new Set(behindIndex.values())); // import * or a form not parsed: all of it
    else if (target.startsWith('planner')) reached.push(target);
  }
  return reached;
}

test('src/sql imports nothing from the optimizer, its rules or the physical planner, directly or through the index', () => {
  const behindIndex = plannerIndexModules();
  const violations: string[] = [];
  for (const file of sourceFiles(join(src, 'sql'))) {
    for (const module of plannerModulesReached(file, readFileSync(file, 'utf8'), behindIndex)) {
      if (plannerStages.test(module) || module.includes('not found')) violations.push(`${relative(src, file)} → ${module}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the planning-stage check recognises the stages and nothing else', () => {
  // Guards the pattern: if it matched nothing, the test above would pass vacuously.
  const binderFile = join(src, 'sql', 'binder', 'bind-expr.ts');
  const forbidden = ['../../planner/optimizer.js', '../../planner/optimizer-rule.js', '../../planner/rules/simplify-expressions.js', '../../planner/physical/to-physical-plan.js', '../../planner/plan-statement.js'];
  const allowed = ['../../planner/logical/logical-project.js', '../../planner/expr-utils.js', '../../planner/simplify-expr.js', '../../planner/index.js', './bind-query.js'];
  assert.deepEqual(forbidden.filter((s) => !isPlanningStage(binderFile, s)), []);
  assert.deepEqual(allowed.filter((s) => isPlanningStage(binderFile, s)), []);
});

test('the planning-stage check looks through the planner index to each name', () => {
  // Guards plannerModulesReached: a binder importing planStatement through the index must be caught.
  const behindIndex = plannerIndexModules();
  const binderFile = join(src, 'sql', 'binder', 'bind-expr.ts');
  const sample = "import { LogicalFilter, planStatement, type LogicalPlan } from '../../planner/index.js';\nimport { optimizeLogicalPlan as o } from '../../planner/index.js';\nimport { x } from '../../planner/physical/to-physical-plan.js';";
  const reached = plannerModulesReached(binderFile, sample, behindIndex);
  assert.deepEqual(reached, ['planner/logical/logical-filter.js', 'planner/plan-statement.js', 'planner/logical/logical-plan.js', 'planner/optimizer.js', 'planner/physical/to-physical-plan.js']);
  assert.deepEqual(reached.filter((m) => plannerStages.test(m)), ['planner/plan-statement.js', 'planner/optimizer.js', 'planner/physical/to-physical-plan.js']);
});
