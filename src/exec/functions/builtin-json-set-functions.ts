import { FloeError } from '../../common/floe-error.js';
import type { SqlType } from '../../common/sql-type.js';
import { SqlState } from '../../common/sqlstate.js';
import { BuiltinTypes as T } from './builtin-operators.js';
import { registerSetFunction } from './function-registry.js';
import { jsonMembers, jsonValueAsText } from './json-members.js';

/**
 * json[b]_each[_text] and json[b]_array_elements[_text], PostgreSQL's
 * set-returning JSON functions, with its OUT parameter names (key, value),
 * which name their columns in FROM.
 */
export function registerBuiltinJsonSetFunctions(): void {
  for (const [type, prefix] of [[T.json, 'json'], [T.jsonb, 'jsonb']] as const) {
    for (const asText of [false, true]) {
      const valueType: SqlType = asText ? T.text : type;
      const each = `${prefix}_each${asText ? '_text' : ''}`;
      registerSetFunction({
        name: each, args: [type], returns: valueType,
        columns: [{ name: 'key', type: T.text }, { name: 'value', type: valueType }],
        impl: ([j]) => jsonEachRows(j as string, each, prefix, asText),
      });
      const elements = `${prefix}_array_elements${asText ? '_text' : ''}`;
      registerSetFunction({
        name: elements, args: [type], returns: valueType,
        columns: [{ name: 'value', type: valueType }],
        impl: ([j]) => jsonArrayElementRows(j as string, elements, prefix, asText),
      });
    }
  }
}

/** The rows of `name` (json[b]_each[_text]) for the JSON text `j`: [key, value] per member of its object. */
function* jsonEachRows(j: string, name: string, prefix: 'json' | 'jsonb', asText: boolean): Generator<unknown[]> {
  const shape = jsonMembers(j);
  if (shape.kind !== 'object') {
    throw new FloeError(SqlState.invalidParameterValue, prefix === 'jsonb'
      ? `cannot call ${name} on a non-object`
      : shape.kind === 'array' ? 'cannot deconstruct an array as an object' : 'cannot deconstruct a scalar');
  }
  for (const [k, v] of shape.members) yield [k, asText ? jsonValueAsText(v) : v];
}

/** The rows of `name` (json[b]_array_elements[_text]) for the JSON text `j`: one per element of its array. */
function* jsonArrayElementRows(j: string, name: string, prefix: 'json' | 'jsonb', asText: boolean): Generator<unknown> {
  const shape = jsonMembers(j);
  if (shape.kind !== 'array') {
    // PostgreSQL words the two types' refusals differently.
    const what = shape.kind === 'object' ? 'an object' : 'a scalar';
    throw new FloeError(SqlState.invalidParameterValue, prefix === 'jsonb'
      ? `cannot extract elements from ${what}`
      : `cannot call ${name} on ${shape.kind === 'object' ? 'a non-array' : 'a scalar'}`);
  }
  for (const v of shape.elements) yield asText ? jsonValueAsText(v) : v;
}
