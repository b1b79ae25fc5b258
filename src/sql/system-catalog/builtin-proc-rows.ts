import { type ListedFunction, listFunctions, registeredFunctionCount } from '../../exec/index.js';
import { typeOids } from '../../common/sql-type.js';
import type { SqlType } from '../../common/sql-type.js';
import { BOOTSTRAP_SUPERUSER_OID, PG_CATALOG_NAMESPACE_OID } from './catalog-oids.js';
import { PG_PROC_FACTS } from './pg-proc-facts.js';
import type { PgProcFact } from './pg-proc-facts.js';
import { PSEUDO_TYPE_NAMES, procArgOid, procFactKey } from './proc-arg-oid.js';
import { regtypeName } from './catalog-lookup.js';

/** One built-in function as pg_proc and psql's \df / \sf see it. */
export interface BuiltinProc {
  readonly oid: number;
  readonly name: string;
  readonly kind: 'f' | 'a' | 'w';
  readonly strict: boolean;
  readonly returnsSet: boolean;
  readonly volatility: string;
  readonly parallel: string;
  readonly returnType: number;
  readonly argTypes: readonly number[];
  readonly variadicType: number;
  readonly argDefaults: number;
  readonly cost: number;
  readonly rows: number;
  readonly src: string;
  /** pg_language OID: 12 internal, 14 sql. */
  readonly language: number;
  /** The planner support function's name ('' for none), which pg_get_functiondef prints. */
  readonly support: string;
  /** pg_get_function_arguments, pg_get_function_identity_arguments and pg_get_function_result text. */
  readonly argumentsText: string;
  readonly identityText: string;
  readonly resultText: string;
  /** The name as quote_ident spells it (`"left"`: keywords are quoted). */
  readonly quotedName: string;
}

/** Names the grammar spells as keywords (CURRENT_DATE, TRIM(… FROM …)): PostgreSQL has no pg_proc row for them. */
const SYNTAX_ONLY = new Set(['current_catalog', 'user', 'current_role', 'current_timestamp', 'current_date', 'localtimestamp', 'localtime', 'current_time', 'trim']);

/** Floe-only overloads get OIDs in [800,000,000, 900,000,000), hashed from the registry id so they stay put across releases. */
const PRIVATE_OID_BASE = 800_000_000;

let cache: { registrySize: number; procs: readonly BuiltinProc[]; byOid: ReadonlyMap<number, BuiltinProc> } | undefined;

/** Every built-in function's pg_proc facts, built once per process (again only if functions were registered since). */
export function builtinProcs(): readonly BuiltinProc[] {
  return current().procs;
}

export function builtinProcByOid(oid: number): BuiltinProc | undefined {
  return current().byOid.get(oid);
}

function current(): NonNullable<typeof cache> {
  const registrySize = registeredFunctionCount();
  if (cache?.registrySize !== registrySize) {
    const procs = buildProcs(listFunctions());
    cache = { registrySize, procs, byOid: new Map(procs.map((p) => [p.oid, p])) };
  }
  return cache;
}

function buildProcs(functions: readonly ListedFunction[]): BuiltinProc[] {
  const facts = new Map(PG_PROC_FACTS.map((f) => [f[0], f]));
  const namesWithFacts = new Map<string, PgProcFact[]>();
  for (const f of PG_PROC_FACTS) {
    const name = f[0].slice(0, f[0].indexOf('('));
    namesWithFacts.set(name, [...(namesWithFacts.get(name) ?? []), f]);
  }
  const out = new Map<number, BuiltinProc>();
  const sorted = [...functions].filter((f) => /^[a-z_][a-z0-9_]*$/.test(f.name) && !SYNTAX_ONLY.has(f.name)).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const f of sorted) {
    const fact = facts.get(procFactKey(f.name, f.args));
    if (fact) {
      out.set(fact[1], fromFact(f.name, fact));
      continue;
    }
    if (coveredByPostgresOverload(f, namesWithFacts.get(f.name) ?? [])) continue;
    const proc = fromRegistry(f, out);
    if (proc) out.set(proc.oid, proc);
  }
  return [...out.values()].sort((a, b) => a.oid - b.oid);
}

/** A registry overload that stands for a PostgreSQL one with defaulted or "any" parameters (jsonb_set's 3-argument form). */
function coveredByPostgresOverload(f: ListedFunction, facts: readonly PgProcFact[]): boolean {
  if (facts.length > 0 && !f.variadic && f.args.includes('any')) return true;
  return facts.some((x) => {
    const nargs = x[8] === '' ? 0 : x[8].split(' ').length;
    return x[10] > 0 && f.args.length >= nargs - x[10] && f.args.length < nargs;
  });
}

function fromFact(name: string, f: PgProcFact): BuiltinProc {
  const [, oid, kind, strict, returnsSet, volatility, parallel, returnType, argTypes, variadicType, argDefaults, cost, rows, src, language, support, argumentsText, identityText, resultText, quotedName] = f;
  return {
    oid, name, kind: kind as BuiltinProc['kind'], strict, returnsSet, volatility, parallel, returnType,
    argTypes: argTypes === '' ? [] : argTypes.split(' ').map(Number), variadicType, argDefaults, cost, rows, src, language, support, argumentsText, identityText, resultText, quotedName,
  };
}

function fromRegistry(f: ListedFunction, taken: ReadonlyMap<number, BuiltinProc>): BuiltinProc | undefined {
  const argTypes = f.args.map(procArgOid);
  if (argTypes.some((t) => t === undefined)) return undefined;
  const oids = argTypes as number[];
  const returnType = f.returns ? typeOid(f.returns) : f.kind === 'set' ? 2249 : 2283;
  let oid = PRIVATE_OID_BASE + (fnv1a(f.id) % 100_000_000);
  while (taken.has(oid)) oid++;
  const names = oids.map(typeText);
  if (f.variadic && names.length > 0) names[names.length - 1] = `VARIADIC ${names[names.length - 1]}`;
  const argumentsText = names.join(', ');
  return {
    oid, name: f.name, kind: f.kind === 'aggregate' ? 'a' : f.kind === 'window' ? 'w' : 'f', strict: f.strict, returnsSet: f.returnsSet,
    volatility: f.volatile ? 'v' : 'i', parallel: 's', returnType, argTypes: oids, variadicType: f.variadic ? oids[oids.length - 1] ?? 0 : 0,
    argDefaults: 0, cost: 1, rows: f.returnsSet ? 1000 : 0, src: f.name, language: 12, support: '', argumentsText, identityText: argumentsText,
    resultText: `${f.returnsSet ? 'SETOF ' : ''}${typeText(returnType)}`, quotedName: f.name,
  };
}

function typeOid(t: SqlType): number {
  if (t.kind === 'array') return t.element.kind === 'array' ? 0 : (typeOids as Record<string, { arrayOid: number } | undefined>)[t.element.kind]?.arrayOid ?? 0;
  return (typeOids as Record<string, { oid: number } | undefined>)[t.kind]?.oid ?? 0;
}

/** A type's name as pg_get_function_arguments prints it. */
export function typeText(oid: number): string {
  return PSEUDO_TYPE_NAMES[oid] ?? regtypeName(oid) ?? String(oid);
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A pg_proc row of the catalog (columns as catalog-shapes.ts declares them). */
export function pgProcRow(p: BuiltinProc): Record<string, unknown> {
  return {
    oid: p.oid, proname: p.name, pronamespace: PG_CATALOG_NAMESPACE_OID, proowner: BOOTSTRAP_SUPERUSER_OID, prolang: p.language, procost: p.cost, prorows: p.rows,
    provariadic: p.variadicType, prosupport: 0, prokind: p.kind, prosecdef: false, proleakproof: false, proisstrict: p.strict, proretset: p.returnsSet,
    provolatile: p.volatility, proparallel: p.parallel, pronargs: p.argTypes.length, pronargdefaults: p.argDefaults, prorettype: p.returnType,
    proargtypes: p.argTypes, proallargtypes: null, proargmodes: null, proargnames: null, proargdefaults: null, protrftypes: null, prosrc: p.src,
    probin: null, prosqlbody: null, proconfig: null, proacl: null,
  };
}
