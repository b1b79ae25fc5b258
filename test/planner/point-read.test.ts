import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planText } from './plan-text.js';

test('a full primary-key equality (constant or parameter) is planned as a point read, and EXPLAIN says so', () => {
  for (const sql of ['select * from orders where o_id = 7', 'select * from orders where o_id = $1', 'select c_name from customers where $1 = c_id and c_name is not null']) {
    assert.match(planText(sql), /Point Read: full primary key, in the session \(no scan workers\)/, sql);
  }
});

test('a scan that is not selected by its whole key is not a point read', () => {
  for (const sql of ['select * from orders where o_id > 7', 'select * from orders where o_cust = 1', 'select * from orders where o_id in (1, 2)', 'select * from sales.items where i_id = 1', 'select * from orders']) {
    assert.doesNotMatch(planText(sql), /Point Read/, sql);
  }
});
