import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

// DESIGN.md's picture, left to right. A layer may import itself and any layer
// to its right, never one to its left. src/service (long-running work no statement
// owns) sits beside the session, which calls it, and calls only src/lake itself. src/common is below everything; src/cli
// is the composition root and may import anything.
const layers = ['wire', 'session', 'service', 'sql', 'planner', 'exec', 'lake'] as const;
const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

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
    }
  }
  assert.deepEqual(violations, []);
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

test('src/sql imports nothing from the optimizer, its rules or the physical planner', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(join(src, 'sql'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const spec = m[1] ?? m[2];
      if (spec !== undefined && isPlanningStage(file, spec)) violations.push(`${relative(src, file)} → ${spec}`);
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
