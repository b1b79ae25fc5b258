import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { decCmp, formatDecimal, parseDecimal } from './numeric.js';

/**
 * JSON values as the json and jsonb functions see them. SQL keeps json and
 * jsonb as text (json as written, jsonb in its canonical form); the functions
 * parse that text into these trees, work on them and print them back.
 *
 * A number keeps its text so that nothing is lost to a double: json prints it
 * as written, jsonb as numeric's canonical text (`1.50` stays `1.50`, `1e2`
 * becomes `100`). An object is a Map, so any key (even `__proto__`) is data.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export function isJsonObject(v: JsonValue): v is JsonObject {
  return v instanceof Map;
}

/** A value of the source text with where it was written (json keeps its text, duplicate keys and key order). */
export type JsonNode = { readonly start: number; readonly end: number } & (
  | { readonly kind: 'object'; readonly keys: readonly string[]; readonly values: readonly JsonNode[] }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'literal'; readonly value: boolean | null }
);

function syntaxError(detail: string): FloeError {
  return new FloeError(SqlState.invalidTextRepresentation, 'invalid input syntax for type json', { detail });
}

/** Parses JSON text as PostgreSQL's json input does (RFC 8259, whitespace = space, tab, CR, LF). */
export function parseJsonNode(text: string, forJsonb = false): JsonNode {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const token = (): string => {
    let j = i + 1;
    while (j < n && /[A-Za-z0-9_+\-.]/.test(text[j]!)) j++;
    return text.slice(i, Math.max(j, i + 1));
  };
  const expectEnd = (what: string): never => {
    if (i >= n) throw syntaxError('The input string ended unexpectedly.');
    throw syntaxError(`Expected ${what}, but found "${token()}".`);
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    let from = i;
    for (;;) {
      if (i >= n) throw syntaxError('The input string ended unexpectedly.');
      const c = text.charCodeAt(i);
      if (c === 34) { out += text.slice(from, i); i++; return out; }
      if (c < 0x20) throw syntaxError(`Character with value 0x${c.toString(16).padStart(2, '0')} must be escaped.`);
      if (c !== 92) { i++; continue; }
      out += text.slice(from, i);
      const e = text[i + 1];
      i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = text.slice(i, i + 4);
          if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw syntaxError('"\\u" must be followed by four hexadecimal digits.');
          i += 4;
          const code = parseInt(hex, 16);
          if (code === 0 && forJsonb) {
            throw new FloeError(SqlState.untranslatableCharacter, 'unsupported Unicode escape sequence', { detail: '\\u0000 cannot be converted to text.' });
          }
          if (code >= 0xd800 && code <= 0xdbff) {
            const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(text.slice(i, i + 6));
            if (!low) throw syntaxError('Unicode high surrogate must not follow a high surrogate.');
            out += String.fromCharCode(code, parseInt(low[1]!, 16));
            i += 6;
          } else if (code >= 0xdc00 && code <= 0xdfff) {
            throw syntaxError('Unicode low surrogate must follow a high surrogate.');
          } else {
            out += String.fromCharCode(code);
          }
          break;
        }
        case undefined: throw syntaxError('The input string ended unexpectedly.');
        default: throw syntaxError(`Escape sequence "\\${e}" is invalid.`);
      }
      from = i;
    }
  };
  const value = (depth: number): JsonNode => {
    ws();
    if (i >= n) throw syntaxError('The input string ended unexpectedly.');
    if (depth > 6000) throw new FloeError('54001', 'stack depth limit exceeded');
    const start = i;
    const c = text[i]!;
    if (c === '}' || c === ']' || c === ',' || c === ':') throw syntaxError(`Expected JSON value, but found "${c}".`);
    if (c === '{') {
      i++;
      const keys: string[] = [];
      const values: JsonNode[] = [];
      ws();
      if (text[i] === '}') { i++; return { kind: 'object', keys, values, start, end: i }; }
      for (;;) {
        ws();
        if (text[i] !== '"') expectEnd('string or "}"');
        keys.push(str());
        ws();
        if (text[i] !== ':') expectEnd('":"');
        i++;
        values.push(value(depth + 1));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return { kind: 'object', keys, values, start, end: i }; }
        expectEnd('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') { i++; return { kind: 'array', items, start, end: i }; }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return { kind: 'array', items, start, end: i }; }
        expectEnd('"," or "]"');
      }
    }
    if (c === '"') {
      const v = str();
      return { kind: 'string', value: v, start, end: i };
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = i;
    const num = m.exec(text);
    if (num && !/[A-Za-z0-9_]/.test(text[i + num[0].length] ?? '')) {
      i += num[0].length;
      return { kind: 'number', text: num[0], start, end: i };
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i) && !/[A-Za-z0-9_]/.test(text[i + word.length] ?? '')) {
        i += word.length;
        return { kind: 'literal', value: v, start, end: i };
      }
    }
    throw syntaxError(`Token "${token()}" is invalid.`);
  };
  const root = value(0);
  ws();
  if (i < n) throw syntaxError(`Expected end of input, but found "${token()}".`);
  return root;
}

/** The node as a value; the last of duplicate keys wins, and numbers keep their text (jsonb: canonical numeric text). */
export function nodeToValue(node: JsonNode, forJsonb: boolean): JsonValue {
  switch (node.kind) {
    case 'object': {
      const m: JsonObject = new Map();
      node.keys.forEach((k, i) => m.set(k, nodeToValue(node.values[i]!, forJsonb)));
      return m;
    }
    case 'array': return node.items.map((x) => nodeToValue(x, forJsonb));
    case 'string': return node.value;
    case 'number': return new JsonNumber(forJsonb ? formatDecimal(parseDecimal(node.text)) : node.text);
    case 'literal': return node.value;
  }
}

/** Parses jsonb text (canonical or not) into a value. */
export function parseJsonb(text: string): JsonValue {
  return nodeToValue(parseJsonNode(text, true), true);
}

/** jsonb's key order: shorter keys first, then by UTF-8 bytes. */
export function compareJsonbKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a); const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function sortedKeys(o: JsonObject): string[] {
  return [...o.keys()].sort(compareJsonbKeys);
}

/** A string as JSON writes it (PostgreSQL's escape_json escapes the same characters the same way). */
export function jsonString(s: string): string {
  return JSON.stringify(s);
}

function scalarText(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return jsonString(v);
  return (v as JsonNumber).text;
}

/** jsonb's output text: keys in jsonb order, ", " and ": " separators. */
export function jsonbText(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(jsonbText).join(', ')}]`;
  if (isJsonObject(v)) return `{${sortedKeys(v).map((k) => `${jsonString(k)}: ${jsonbText(v.get(k)!)}`).join(', ')}}`;
  return scalarText(v);
}

/** jsonb_pretty's text: four-space indents, one element or pair per line. */
export function jsonbPrettyText(v: JsonValue): string {
  const pad = (level: number): string => `\n${' '.repeat(level * 4)}`;
  const out = (x: JsonValue, level: number, afterKey: boolean): string => {
    const lead = afterKey || level === 0 ? '' : pad(level);
    if (Array.isArray(x)) {
      return `${lead}[${x.map((e) => (isContainer(e) ? out(e, level + 1, false) : pad(level + 1) + scalarText(e))).join(',')}${pad(level)}]`;
    }
    if (isJsonObject(x)) {
      const pairs = sortedKeys(x).map((k) => {
        const e = x.get(k)!;
        return `${pad(level + 1)}${jsonString(k)}: ${isContainer(e) ? out(e, level + 1, true) : scalarText(e)}`;
      });
      return `${lead}{${pairs.join(',')}${pad(level)}}`;
    }
    return scalarText(x);
  };
  return out(v, 0, false);
}

export function isContainer(v: JsonValue): v is JsonValue[] | JsonObject {
  return Array.isArray(v) || isJsonObject(v);
}

/** jsonb_typeof's names. */
export function jsonTypeName(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (v instanceof JsonNumber) return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

/** Equality of jsonb values: numbers by numeric value, objects by their key sets. */
export function jsonbEquals(a: JsonValue, b: JsonValue): boolean {
  if (a instanceof JsonNumber || b instanceof JsonNumber) {
    return a instanceof JsonNumber && b instanceof JsonNumber && decCmp(parseDecimal(a.text), parseDecimal(b.text)) === 0;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonbEquals(x, b[i]!));
  }
  if (isJsonObject(a) || isJsonObject(b)) {
    if (!isJsonObject(a) || !isJsonObject(b) || a.size !== b.size) return false;
    for (const [k, x] of a) {
      if (!b.has(k) || !jsonbEquals(x, b.get(k)!)) return false;
    }
    return true;
  }
  return a === b;
}

/**
 * jsonb's @>: every pair of an object on the right is in the left object
 * (containers recursively); every element of an array on the right is
 * contained in some element of the left array. A top-level scalar acts as a
 * one-element array that an array may contain but that cannot contain one.
 */
export function jsonbContains(a: JsonValue, b: JsonValue, top = true): boolean {
  if (isJsonObject(b)) {
    if (!isJsonObject(a)) return false;
    for (const [k, bv] of b) {
      if (!a.has(k)) return false;
      const av = a.get(k)!;
      if (isContainer(bv)) {
        if (Array.isArray(bv) !== Array.isArray(av) || !isContainer(av) || !jsonbContains(av, bv, false)) return false;
      } else if (isContainer(av) || !jsonbEquals(av, bv)) {
        return false;
      }
    }
    return true;
  }
  if (Array.isArray(b) || top) {
    if (!Array.isArray(b) && isJsonObject(a)) return false;
    if (Array.isArray(b) && !Array.isArray(a)) return false;
    const left = Array.isArray(a) ? a : [a];
    const right = Array.isArray(b) ? b : [b];
    return right.every((bv) => (isContainer(bv)
      ? left.some((av) => isContainer(av) && Array.isArray(av) === Array.isArray(bv) && jsonbContains(av, bv, false))
      : left.some((av) => !isContainer(av) && jsonbEquals(av, bv))));
  }
  return !isContainer(a) && jsonbEquals(a, b);
}
