import { describe, test } from 'node:test';
import { gatewayAndOracleForSuite, sameOnBoth, type GatewayAndOracle } from '../lakesql/gateway-and-oracle.js';

/**
 * jsonb (and json) operators and functions, differential against PostgreSQL 15
 * through node-postgres: every statement's rows as text, or its SQLSTATE,
 * message, DETAIL and HINT, must be the same on both.
 */
const setup = [
  'CREATE TABLE jt (id int PRIMARY KEY, k text, v int, doc jsonb)',
  `INSERT INTO jt VALUES (1, 'a', 10, '{"x": 1, "tags": ["red", "blue"], "n": {"m": 1.50}}'),
    (2, 'b', NULL, '{"x": 2, "tags": ["green"]}'), (3, 'c', 30, NULL), (4, 'a', 40, '[1, 2, "x"]'), (5, 'é', 50, '"s"')`,
];

describe('jsonb and json functions match PostgreSQL 15', () => {
  let both: GatewayAndOracle;
  gatewayAndOracleForSuite(setup, (b) => { both = b; });

  test('input and canonical output', async () => {
    await sameOnBoth(both, [
      `SELECT '{"b":1,"a":[1,2.50,{"c":null}],"aa":true}'::jsonb`,
      `SELECT '{"a":1,"a":2}'::jsonb, '1e2'::jsonb, '-0.0'::jsonb, '[1.0, 1E-2, 0, -12.5e+1]'::jsonb`,
      `SELECT '{"é":1,"z":2,"ab":3,"b":{"yy":1,"x":2}}'::jsonb`,
      `SELECT '  {"a" : [ 1 , 2 ] }  '::json, '"x\\u0041\\n"'::jsonb, '"\\ud83d\\ude00"'::jsonb`,
      `SELECT '{"a":}'::jsonb`,
      `SELECT '{"a":1'::jsonb`,
      `SELECT '[1,]'::json`,
      `SELECT '01'::jsonb`,
      `SELECT '{"a" 1}'::jsonb`,
      `SELECT '[1 2]'::jsonb`,
      `SELECT 'tru'::jsonb`,
      `SELECT '{1:2}'::json`,
      `SELECT '"\\u0000"'::jsonb`,
      `SELECT doc FROM jt ORDER BY id`,
      `SELECT '{"a":1.0}'::jsonb = '{"a":1}'::jsonb, '[1,2]'::jsonb = '[2,1]'::jsonb, '{"a":1}'::jsonb <> '{"a":2}'::jsonb`,
    ]);
  });

  test('-> ->> #> #>> and extract_path', async () => {
    await sameOnBoth(both, [
      `SELECT '{"a": {"b" :  1}, "c": [1, 2]}'::json -> 'a', '[1,2,3]'::json -> -1, '[1,2,3]'::json -> 5, '{"a":"x\\ny"}'::json ->> 'a'`,
      `SELECT '{"a":{"b":[10,20,{"c":"d"}]}}'::jsonb -> 'a' -> 'b' -> 2 ->> 'c'`,
      `SELECT '{"a":1}'::jsonb -> 0, '[1,2]'::jsonb -> 'a', '"s"'::jsonb -> 0, '[1,2,3]'::jsonb -> -1, '[1,2,3]'::jsonb -> -4`,
      `SELECT '{"a":null}'::jsonb ->> 'a', '{"a":null}'::jsonb -> 'a', '{"a":"q\\"uote"}'::jsonb ->> 'a', '{"a":[1, "x"]}'::jsonb ->> 'a'`,
      `SELECT '{"a":{"b":[1,2,3]}}'::jsonb #> '{a,b,1}', '{"a":{"b":[1,2,3]}}'::jsonb #>> '{a,b,-1}', '{"a":{"b":[1,2,3]}}'::jsonb #> '{a,x}'`,
      `SELECT '{"a":{"b":[1,2,3]}}'::jsonb #> '{}', '{"a":{"b":[1,2,3]}}'::jsonb #>> '{a,b,z}', '{"a":{"b":1}}'::jsonb #> '{a,NULL}'`,
      `SELECT '{"a":{"b":[1, 2 ,3]}}'::json #> '{a,b}', '{"a":{"b":"t"}}'::json #>> '{a,b}', '{"a":1,"a":2}'::json -> 'a'`,
      `SELECT jsonb_extract_path('{"a":{"b":1}}', 'a', 'b'), jsonb_extract_path_text('{"a":{"b":"x"}}', 'a', 'b')`,
      `SELECT json_extract_path('{"a":{"b":1}}', 'a'), json_extract_path_text('{"a":[5,6]}', 'a', '1')`,
      `SELECT id, doc -> 'x', doc ->> 'x', doc -> 'n' -> 'm', doc #>> '{tags,0}', doc -> 1 FROM jt ORDER BY id`,
    ]);
  });

  test('containment and existence', async () => {
    await sameOnBoth(both, [
      `SELECT '{"a":1,"b":{"c":[1,2,3]}}'::jsonb @> '{"b":{"c":[3,1]}}', '{"a":1,"b":{"c":[1,2,3]}}'::jsonb @> '{"b":{"c":3}}'`,
      `SELECT '[1,2,[3,4]]'::jsonb @> '[[3]]', '[1,2]'::jsonb @> '1', '1'::jsonb @> '[1]', '"a"'::jsonb @> '"a"', '[1,[2]]'::jsonb @> '[2]'`,
      `SELECT '{"a":1}'::jsonb <@ '{"a":1,"b":2}', '[]'::jsonb @> '[]', '{}'::jsonb @> '{}', '[1]'::jsonb @> '{}', '{"a":1.0}'::jsonb @> '{"a":1}'`,
      `SELECT '{"a":[1,2]}'::jsonb @> '{"a":1}', '{"a":{"b":1}}'::jsonb @> '{"a":[]}', '[{"a":1,"b":2}]'::jsonb @> '[{"a":1}]'`,
      `SELECT '{"a":1,"b":2}'::jsonb ? 'a', '["a","b"]'::jsonb ? 'b', '[["a"]]'::jsonb ? 'a', '"a"'::jsonb ? 'a', '{"a":{"b":1}}'::jsonb ? 'b'`,
      `SELECT '{"a":1}'::jsonb ?| array['x','a'], '{"a":1}'::jsonb ?& array['a','b'], '{"a":1}'::jsonb ?& '{}'::text[], '{"a":1}'::jsonb ?| '{}'::text[]`,
      `SELECT '["a","b"]'::jsonb ?& array['a','b'], '{"a":1}'::jsonb ?| array[NULL,'a'], '{"a":1}'::jsonb ?& array[NULL,'a']`,
      `SELECT id, doc @> '{"tags":["red"]}', doc ? 'x', doc ?| array['tags','zz'] FROM jt ORDER BY id`,
      `SELECT id FROM jt WHERE doc @> '{"x":2}' ORDER BY id`,
      `SELECT id FROM jt WHERE doc ? 'tags' AND NOT doc @> '{"tags":["green"]}' ORDER BY id`,
    ]);
  });

  test('|| - #- jsonb_set jsonb_insert', async () => {
    await sameOnBoth(both, [
      `SELECT '{"a":1,"b":2}'::jsonb || '{"b":3,"c":4}', '[1,2]'::jsonb || '[3]', '[1]'::jsonb || '2', '1'::jsonb || '2'`,
      `SELECT '{"a":1}'::jsonb || '[1]', '[1]'::jsonb || '{"a":1}', '{"a":1}'::jsonb || '5', '"x"'::jsonb || '{"a":1}', '[]'::jsonb || '{}'`,
      `SELECT '{"a":1,"b":2}'::jsonb - 'a', '["a","b","a",1]'::jsonb - 'a', '{"a":1,"b":2,"c":3}'::jsonb - array['a','c'], '{"a":1}'::jsonb - 'z'`,
      `SELECT '[1,2,3]'::jsonb - 1, '[1,2,3]'::jsonb - -1, '[1,2,3]'::jsonb - 5, '[1,2,3]'::jsonb - -5, '["a","b"]'::jsonb - array['b']`,
      `SELECT '"x"'::jsonb - 'a'`,
      `SELECT '{"a":1}'::jsonb - 0`,
      `SELECT '5'::jsonb - 0`,
      `SELECT '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,b,0}', '{"a":{"b":[1,2,3]}}'::jsonb #- '{a}', '{"a":1}'::jsonb #- '{x,y}', '[1,[2,3]]'::jsonb #- '{1,-1}'`,
      `SELECT '{"a":1}'::jsonb #- '{}', '[1,2]'::jsonb #- '{9}', '{"a":[1]}'::jsonb #- '{a,0,b}'`,
      `SELECT '[1,2]'::jsonb #- '{a}'`,
      `SELECT '1'::jsonb #- '{a}'`,
      `SELECT jsonb_set('{"a":{"b":1}}', '{a,b}', '2'), jsonb_set('{"a":{"b":1}}', '{a,c}', '[3]'), jsonb_set('{"a":{"b":1}}', '{a,c}', '3', false)`,
      `SELECT jsonb_set('{"a":1}', '{x,y}', '3'), jsonb_set('[1,2,3]', '{1}', '"x"'), jsonb_set('[1,2,3]', '{10}', '4'), jsonb_set('[1,2,3]', '{-10}', '0')`,
      `SELECT jsonb_set('[1,2,3]', '{-1}', '9'), jsonb_set('[]', '{0}', '1'), jsonb_set('{"a":1}', '{}', '2'), jsonb_set('{"a":[1,{"b":2}]}', '{a,1,b}', 'null')`,
      `SELECT jsonb_set('{"a":1}', '{a}', NULL), jsonb_set('{}', '{a}', '1'), jsonb_set('{"a":1}', '{a,b}', '2'), jsonb_set('[1]', '{5}', '2', false)`,
      `SELECT jsonb_set('"s"', '{a}', '1')`,
      `SELECT jsonb_set('[1]', '{x}', '1')`,
      `SELECT jsonb_insert('{"a":[0,1,2]}', '{a,1}', '"new"'), jsonb_insert('{"a":[0,1,2]}', '{a,1}', '"new"', true), jsonb_insert('{"a":[0,1,2]}', '{a,-1}', '"new"', true)`,
      `SELECT jsonb_insert('{"a":1}', '{b}', '2'), jsonb_insert('[1]', '{9}', '2'), jsonb_insert('[1]', '{-9}', '2'), jsonb_insert('[]', '{0}', '2')`,
      `SELECT jsonb_insert('{"a":1}', '{a}', '2')`,
      `SELECT id, jsonb_set(doc, '{x}', to_jsonb(v)) FROM jt WHERE id < 3 ORDER BY id`,
    ]);
  });

  test('inspection, building, pretty printing', async () => {
    await sameOnBoth(both, [
      `SELECT jsonb_strip_nulls('{"a":null,"b":[null,{"c":null,"d":1}]}'), jsonb_strip_nulls('[null]'), jsonb_strip_nulls('null')`,
      `SELECT jsonb_typeof('1.5'), jsonb_typeof('"x"'), jsonb_typeof('null'), jsonb_typeof('true'), jsonb_typeof('[]'), jsonb_typeof('{}'), json_typeof('{"a":1}')`,
      `SELECT jsonb_array_length('[1,[2],3]'), json_array_length('[]'), jsonb_array_length('[]'), json_array_length('[1, {"a": [2]}]')`,
      `SELECT jsonb_array_length('{}')`,
      `SELECT jsonb_array_length('1')`,
      `SELECT json_array_length('{"a":1}')`,
      `SELECT jsonb_pretty('{"a":[1,{"b":[]},{}],"c":"x","d":{}}'), jsonb_pretty('[]'), jsonb_pretty('"s"'), jsonb_pretty('[[1,2],[]]'), jsonb_pretty('{}')`,
      `SELECT jsonb_object_keys('{"b":1,"aa":2,"a":3}')`,
      `SELECT json_object_keys('{"b":1,"a":2,"b":3}')`,
      `SELECT id, jsonb_object_keys(doc) FROM jt WHERE id < 3 ORDER BY id, 2`,
      `SELECT jsonb_object_keys('[1]')`,
      `SELECT jsonb_object_keys('1')`,
      `SELECT json_object_keys('[]')`,
      `SELECT jsonb_build_object('a', 1, 'b', 'x', 'c', null, 'd', 1.50, 'e', true), jsonb_build_array(1, 'a', null, 2.0, array[1,2])`,
      `SELECT jsonb_build_object('a', 1, 'b')`,
      `SELECT to_jsonb(1.50), to_jsonb('x'::text), to_jsonb(array[1,2]), to_jsonb(true), to_jsonb(null::int), to_jsonb('a"b'::text), to_jsonb(2.5::float8)`,
      `SELECT to_jsonb(array['a','b']), to_jsonb('{"a":1}'::jsonb), to_jsonb(12345678901234::bigint)`,
      `SELECT to_jsonb('2024-01-02 03:04:05.5+00'::timestamptz), to_json('2024-01-02 03:04:05'::timestamp), jsonb_build_object('d', '2024-01-01'::date)`,
    ]);
  });

  test('aggregates', async () => {
    await sameOnBoth(both, [
      `SELECT jsonb_agg(v ORDER BY id), json_agg(v ORDER BY id), jsonb_object_agg(k, v ORDER BY id), json_object_agg(k, v ORDER BY id) FROM jt`,
      `SELECT jsonb_agg(v), jsonb_object_agg(k, v) FROM jt WHERE false`,
      `SELECT k, jsonb_agg(doc ORDER BY id) FROM jt GROUP BY k ORDER BY k`,
      `SELECT jsonb_object_agg(id, doc ORDER BY id) FROM jt WHERE id < 3`,
      `SELECT jsonb_agg(k ORDER BY id DESC) FROM jt`,
      `SELECT jsonb_object_agg(v, k) FROM jt`,
    ]);
  });
});
