import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { type EvalContext, regTypeInput } from '../../exec/index.js';
import { builtinProcByOid, builtinProcs, typeText } from './builtin-proc-rows.js';
import { pseudoTypeOid } from './proc-arg-oid.js';
import { ARRAY_IN_OID } from './pg-type-rows.js';

/**
 * regproc and regprocedure input and output over pg_proc's built-in functions,
 * as PostgreSQL's regprocin / regprocedurein / regprocout / regprocedureout do.
 */

/** `'[pg_catalog.]name'::regproc`: the one function of that name; 42725 when overloaded, undefined when none. */
export function regprocOid(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  if (t === '-') return 0;
  const name = unqualified(t);
  if (name === undefined) return undefined;
  if (name === 'array_in') return ARRAY_IN_OID;
  const matches = builtinProcs().filter((p) => p.name === name);
  if (matches.length > 1) throw new FloeError(SqlState.ambiguousFunction, `more than one function named "${t}"`);
  return matches[0]?.oid;
}

/** A function OID's regproc text: its bare name. */
export function regprocName(oid: number): string | undefined {
  if (oid === ARRAY_IN_OID) return 'array_in';
  return builtinProcByOid(oid)?.name;
}

/** `'[pg_catalog.]name(type, …)'::regprocedure`: the function with exactly those argument types, or undefined. */
export function regprocedureOid(text: string, ctx: EvalContext): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const m = /^(.*?)\s*\((.*)\)\s*$/s.exec(t);
  if (!m) throw new FloeError(SqlState.invalidTextRepresentation, t.includes('(') ? 'expected a right parenthesis' : 'expected a left parenthesis');
  const name = unqualified(m[1]!);
  if (name === undefined) return undefined;
  const argText = m[2]!.trim();
  const argTypes = argText === '' ? [] : splitArguments(argText).map((a) => pseudoTypeOid(a) ?? regTypeInput('regtype', a, ctx));
  return builtinProcs().find((p) => p.name === name && sameOids(p.argTypes, argTypes))?.oid;
}

/** A function OID's regprocedure text: `name(type, …)` in format_type's spelling. */
export function regprocedureName(oid: number): string | undefined {
  const p = builtinProcByOid(oid);
  return p === undefined ? undefined : `${p.name}(${p.argTypes.map(typeText).join(',')})`;
}

/** The function name without a pg_catalog qualifier; undefined for another schema (built-ins live in pg_catalog). */
function unqualified(text: string): string | undefined {
  const parts = text.split('.').map((p) => p.trim());
  if (parts.length > 2 || (parts.length === 2 && unquote(parts[0]!) !== 'pg_catalog')) return undefined;
  return unquote(parts[parts.length - 1]!);
}

function unquote(s: string): string {
  return s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s.toLowerCase();
}

/** Splits `numeric(10, 2), text` at the commas outside parentheses. */
function splitArguments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

function sameOids(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

