import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  childrenOf, depthOf, isAncestorOrSelf, nodeContains, nodeKey, parentOf, parseNodeKey, rootNode,
} from '../../../src/lake/bucket/bucket-node.js';
import type { BucketNode } from '../../../src/lake/bucket/bucket-node.js';
import { FloeError } from '../../../src/common/floe-error.js';

test('root contains every hash; children follow the design formula', () => {
  const root = rootNode();
  assert.deepEqual(root, { mask: 0, index: 0 });
  assert.ok(nodeContains(root, 0) && nodeContains(root, 0xffffffff));
  assert.deepEqual(childrenOf(root), [{ mask: 1, index: 0 }, { mask: 1, index: 1 }]);
  assert.deepEqual(childrenOf({ mask: 3, index: 1 }), [{ mask: 7, index: 1 }, { mask: 7, index: 5 }]);
  assert.equal(parentOf(root), undefined);
  assert.deepEqual(parentOf({ mask: 7, index: 5 }), { mask: 3, index: 1 });
  assert.equal(depthOf(root), 0);
  assert.equal(depthOf({ mask: 7, index: 5 }), 3);
  assert.equal(nodeKey({ mask: 3, index: 1 }), '3:1');
  assert.deepEqual(parseNodeKey('3:1'), { mask: 3, index: 1 });
});

test('deepest nodes use unsigned arithmetic', () => {
  let n: BucketNode = rootNode();
  for (let d = 0; d < 31; d++) n = childrenOf(n)[1];
  assert.equal(n.mask, 0x7fffffff);
  assert.equal(n.index, 0x7fffffff);
  assert.ok(nodeContains(n, 0xffffffff));
  assert.ok(!nodeContains(n, 0x7ffffffe));
  assert.equal(depthOf(n), 31);
  assert.throws(() => childrenOf(n), FloeError);
  assert.deepEqual(parseNodeKey(nodeKey(n)), n);
});

test('parseNodeKey rejects malformed keys', () => {
  for (const bad of ['', '2:1', '3:4', 'a:b', '3', '-1:0', '4294967295:0']) {
    assert.throws(() => parseNodeKey(bad), (e: unknown) => e instanceof FloeError && e.sqlstate === '22023', bad);
  }
});

const nodeArb = fc.integer({ min: 0, max: 31 }).chain((k) => {
  const mask = k === 0 ? 0 : (2 ** k - 1) >>> 0;
  return fc.integer({ min: 0, max: mask }).map((index) => ({ mask, index }));
});

test('a hash belongs to exactly one child; ancestry matches containment', () => {
  fc.assert(fc.property(nodeArb.filter((n) => n.mask < 0x7fffffff), fc.integer({ min: 0, max: 0xffffffff }), (node, hash) => {
    const [a, b] = childrenOf(node);
    assert.deepEqual(parentOf(a), node);
    assert.deepEqual(parentOf(b), node);
    assert.ok(isAncestorOrSelf(node, a) && isAncestorOrSelf(node, b) && isAncestorOrSelf(node, node));
    assert.ok(!isAncestorOrSelf(a, node) && !isAncestorOrSelf(a, b));
    const inA = nodeContains(a, hash);
    const inB = nodeContains(b, hash);
    assert.equal(inA || inB, nodeContains(node, hash));
    assert.ok(!(inA && inB));
  }), { numRuns: 2000 });
});
