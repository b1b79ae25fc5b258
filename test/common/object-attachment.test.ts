import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectAttachment } from '../../src/common/object-attachment.js';

test('an attachment is read back from the object it was set on, and only from it', () => {
  const decoded = new ObjectAttachment<readonly unknown[], string>('test.decoded');
  const other = new ObjectAttachment<readonly unknown[], string>('test.other');
  const values = ['a', 'b'];
  assert.equal(decoded.get(values), undefined);
  decoded.set(values, 'from Data 1');
  decoded.set(values, 'from Data 2');
  assert.equal(decoded.get(values), 'from Data 2');
  assert.equal(other.get(values), undefined, 'each attachment has its own key');
  assert.equal(decoded.get([...values]), undefined, 'a copy carries none');
});

test('an attachment is invisible to copies, JSON and deep equality, and a frozen object refuses it', () => {
  const a = new ObjectAttachment<object, number>('test.hidden');
  const values = [1, 2, 3];
  const row = { id: 1 };
  a.set(values, 7);
  a.set(row, 8);
  assert.deepStrictEqual(values, [1, 2, 3]);
  assert.deepStrictEqual({ ...row }, { id: 1 });
  assert.deepStrictEqual(row, { id: 1 });
  assert.equal(JSON.stringify(row), '{"id":1}');
  assert.throws(() => a.set(Object.freeze({ id: 2 }), 9), TypeError);
});
