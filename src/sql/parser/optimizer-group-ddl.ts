import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { OptimizerGroupDdlClause } from './lake-clause.js';
import { identValue, lower, syntaxErrorAt } from './lake-tokens.js';
import type { Token } from './pg-parser.js';

/**
 * `CREATE OPTIMIZER GROUP [IF NOT EXISTS] g [WITH (k = v, …)]`, `ALTER OPTIMIZER GROUP g SET (k = v, …)`,
 * `DROP OPTIMIZER GROUP [IF EXISTS] g`; undefined for any other statement. A statement that starts
 * so and then strays is 42601 at the first token that does not fit.
 */
export function optimizerGroupDdl(stmt: readonly Token[]): OptimizerGroupDdlClause | undefined {
  const verb = lower(stmt[0]);
  if ((verb !== 'create' && verb !== 'alter' && verb !== 'drop') || lower(stmt[1]) !== 'optimizer' || lower(stmt[2]) !== 'group') return undefined;
  let i = 3;
  let ifClause = false;
  if (verb !== 'alter' && lower(stmt[i]) === 'if') {
    if (verb === 'create') {
      if (lower(stmt[i + 1]) !== 'not') throw syntaxErrorAt(stmt[i + 1], stmt);
      i++;
    }
    if (lower(stmt[i + 1]) !== 'exists') throw syntaxErrorAt(stmt[i + 1], stmt);
    i += 2;
    ifClause = true;
  }
  // Any keyword may name a group here (the group `default` above all): nothing else can stand in this place.
  const t = stmt[i];
  const name = identValue(t) ?? (t !== undefined && t.keywordKind > 0 ? t.text.toLowerCase() : undefined);
  if (name === undefined) throw syntaxErrorAt(t, stmt);
  i++;
  let options: OptimizerGroupDdlClause['options'] = [];
  if (verb === 'create' && lower(stmt[i]) === 'with') options = optionList(stmt, i + 1);
  else if (verb === 'alter') {
    if (lower(stmt[i]) !== 'set') throw syntaxErrorAt(stmt[i], stmt);
    options = optionList(stmt, i + 1);
  } else if (i < stmt.length) throw syntaxErrorAt(stmt[i], stmt);
  return { kind: 'optimizerGroupDdl', location: stmt[0]!.start, action: verb, name, ifClause, options };
}

/** `( key = value [, …] )` from tokens[start], which must end the statement. */
function optionList(stmt: readonly Token[], start: number): OptimizerGroupDdlClause['options'] {
  if (stmt[start]?.text !== '(') throw syntaxErrorAt(stmt[start], stmt);
  const out: { key: string; value: string; location: number }[] = [];
  let i = start + 1;
  for (;;) {
    const keyToken = stmt[i];
    const key = keyToken?.tokenName === 'SCONST' ? stringValue(keyToken) : identValue(keyToken);
    if (key === undefined) throw syntaxErrorAt(keyToken, stmt);
    if (stmt[i + 1]?.text !== '=') throw syntaxErrorAt(stmt[i + 1], stmt);
    let j = i + 2;
    let sign = '';
    if (stmt[j]?.text === '-' || stmt[j]?.text === '+') sign = stmt[j++]!.text;
    const v = stmt[j];
    const value = v === undefined ? undefined
      : v.tokenName === 'SCONST' && sign === '' ? stringValue(v)
        : v.tokenName === 'ICONST' || v.tokenName === 'FCONST' ? `${sign}${v.text}`
          : sign === '' ? identValue(v) : undefined;
    if (value === undefined) throw syntaxErrorAt(v, stmt);
    if (out.some((o) => o.key === key.toLowerCase())) {
      throw new FloeError(SqlState.syntaxError, 'conflicting or redundant options', { position: keyToken!.start + 1 });
    }
    out.push({ key: key.toLowerCase(), value, location: keyToken!.start });
    const next = stmt[j + 1];
    if (next?.text === ',') { i = j + 2; continue; }
    if (next?.text !== ')') throw syntaxErrorAt(next, stmt);
    if (j + 2 < stmt.length) throw syntaxErrorAt(stmt[j + 2], stmt);
    return out;
  }
}

function stringValue(t: Token): string {
  return t.text.startsWith("'") ? t.text.slice(1, -1).replaceAll("''", "'") : t.text;
}
