import type { SqlType } from '../../common/sql-type.js';
import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { registerCatalogFunction } from './register-catalog-function.js';
import { builtinProcByOid } from './builtin-proc-rows.js';
import type { BuiltinProc } from './builtin-proc-rows.js';

const text: SqlType = { kind: 'text' };
const oid: SqlType = { kind: 'oid' };

/**
 * pg_get_functiondef and the signature functions psql's \df and \sf call, over
 * the built-in functions' pg_proc rows. An unknown OID gives NULL, as in PostgreSQL.
 */
export function registerFunctionDefinitionFunctions(): void {
  registerCatalogFunction({ name: 'pg_get_function_arguments', args: [oid], returns: text, impl: (a) => builtinProcByOid(a[0] as number)?.argumentsText ?? null });
  registerCatalogFunction({ name: 'pg_get_function_identity_arguments', args: [oid], returns: text, impl: (a) => builtinProcByOid(a[0] as number)?.identityText ?? null });
  registerCatalogFunction({ name: 'pg_get_function_result', args: [oid], returns: text, impl: (a) => builtinProcByOid(a[0] as number)?.resultText ?? null });
  registerCatalogFunction({ name: 'pg_get_functiondef', args: [oid], returns: text, impl: (a) => functionDefinition(builtinProcByOid(a[0] as number)) });
}

const LANGUAGE_NAMES: Readonly<Record<number, string>> = { 12: 'internal', 13: 'c', 14: 'sql' };
const VOLATILITY = { i: ' IMMUTABLE', s: ' STABLE', v: '' } as Readonly<Record<string, string>>;
const PARALLEL = { s: ' PARALLEL SAFE', r: ' PARALLEL RESTRICTED', u: '' } as Readonly<Record<string, string>>;

/** PostgreSQL's CREATE OR REPLACE FUNCTION text for a built-in (ruleutils' layout: one clause per line). */
function functionDefinition(p: BuiltinProc | undefined): string | null {
  if (p === undefined) return null;
  if (p.kind === 'a') throw new FloeError(SqlState.wrongObjectType, `"${p.name}" is an aggregate function`);
  const defaultCost = p.language === 12 || p.language === 13 ? 1 : 100;
  const traits = `${p.kind === 'w' ? ' WINDOW' : ''}${VOLATILITY[p.volatility] ?? ''}${PARALLEL[p.parallel] ?? ''}${p.strict ? ' STRICT' : ''}`
    + `${p.cost !== defaultCost ? ` COST ${p.cost}` : ''}${p.rows > 0 && p.rows !== 1000 ? ` ROWS ${p.rows}` : ''}${p.support !== '' ? ` SUPPORT ${p.support}` : ''}`;
  return `CREATE OR REPLACE FUNCTION pg_catalog.${p.quotedName}(${p.argumentsText})\n RETURNS ${p.resultText}\n LANGUAGE ${LANGUAGE_NAMES[p.language] ?? 'internal'}\n`
    + `${traits === '' ? '' : `${traits}\n`}AS $function$${p.src}$function$\n`;
}
