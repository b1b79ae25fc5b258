import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles, src } from './source-files.js';

// V8 (Node 20) gives each generator function object its own initial map the first time it is
// called; that map lives in the old generation and points back at the function, so everything
// the function closes over (a statement's plan, context and batches) outlives every scavenge
// and is promoted. A generator made per call (an operator's `async function* (run)`, an
// object literal's `async *[Symbol.asyncIterator]()`) did that once a statement: the
// scavenge pauses of a stream of small statements were 2-4x longer (bench/README.md, "Per-call
// generators"). Generators are therefore defined once, at module level or as class methods, and
// take what they need as arguments.

/** `file:line` of every generator function created inside another function's body. */
function perCallGenerators(file: string, text: string): string[] {
  const found: string[] = [];
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node, insideFunction: boolean): void => {
    const generator = (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node)) && node.asteriskToken !== undefined;
    // A class's methods are made once, when the class is: only object-literal methods and function expressions count.
    const classMethod = ts.isMethodDeclaration(node) && ts.isClassLike(node.parent);
    if (generator && insideFunction && !classMethod) found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    const opensFunction = ts.isFunctionLike(node) && !ts.isClassLike(node);
    ts.forEachChild(node, (child) => visit(child, insideFunction || opensFunction));
  };
  visit(sf, false);
  return found;
}

test('no generator function is made per call', () => {
  const found = sourceFiles(src).flatMap((f) => perCallGenerators(relative(src, f), readFileSync(f, 'utf8')));
  assert.deepEqual(found, []);
});

test('the check finds generators made inside functions, and only those', () => {
  const text = [
    'export async function* topLevel() { yield 1; }',
    'class C { async *method() { yield 1; } }',
    'export function operator(plan: unknown) {',
    '  const run = async function* () { yield plan; };',
    '  return { async *[Symbol.asyncIterator]() { yield* run(); }, other: () => plan };',
    '}',
    'export function nested() { function* inner() { yield 1; } return inner; }',
  ].join('\n');
  assert.deepEqual(perCallGenerators('sample.ts', text), ['sample.ts:4', 'sample.ts:5', 'sample.ts:7']);
});
