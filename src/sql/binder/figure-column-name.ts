import { str, strList, unwrap, type Raw } from './ast.js';

const sqlValueNames: Record<string, string> = {
  SVFOP_CURRENT_DATE: 'current_date', SVFOP_CURRENT_TIME: 'current_time', SVFOP_CURRENT_TIME_N: 'current_time',
  SVFOP_CURRENT_TIMESTAMP: 'current_timestamp', SVFOP_CURRENT_TIMESTAMP_N: 'current_timestamp',
  SVFOP_LOCALTIME: 'localtime', SVFOP_LOCALTIME_N: 'localtime', SVFOP_LOCALTIMESTAMP: 'localtimestamp',
  SVFOP_LOCALTIMESTAMP_N: 'localtimestamp', SVFOP_CURRENT_ROLE: 'current_role', SVFOP_CURRENT_USER: 'current_user',
  SVFOP_USER: 'current_user', SVFOP_SESSION_USER: 'session_user', SVFOP_CURRENT_CATALOG: 'current_catalog',
  SVFOP_CURRENT_SCHEMA: 'current_schema',
};

/**
 * The output column name PostgreSQL gives an unaliased select-list expression
 * (FigureColname in parse_target.c): the column, function or type name, else "?column?".
 */
export function figureColumnName(node: Raw): string {
  return figure(node)?.name ?? '?column?';
}

function figure(node: Raw): { name: string; strength: number } | undefined {
  const [tag, n] = unwrap(node);
  switch (tag) {
    case 'ColumnRef': {
      const fields = n.fields as Raw[];
      const last = fields[fields.length - 1];
      return last?.A_Star ? undefined : { name: str(last), strength: 2 };
    }
    case 'A_Indirection': {
      const ind = n.indirection as Raw[];
      for (let i = ind.length - 1; i >= 0; i--) if (ind[i]?.String) return { name: str(ind[i]), strength: 2 };
      return figure(n.arg);
    }
    case 'FuncCall': return { name: strList(n.funcname).pop()!, strength: 2 };
    case 'A_Expr': return n.kind === 'AEXPR_NULLIF' ? { name: 'nullif', strength: 2 } : undefined;
    case 'TypeCast': {
      const inner = figure(n.arg);
      if (inner && inner.strength >= 2) return inner;
      const names = strList(n.typeName.names);
      return { name: names[names.length - 1]!, strength: 1 };
    }
    case 'CollateClause': return figure(n.arg);
    case 'SubLink':
      if (n.subLinkType === 'EXISTS_SUBLINK') return { name: 'exists', strength: 2 };
      if (n.subLinkType === 'ARRAY_SUBLINK') return { name: 'array', strength: 2 };
      if (n.subLinkType === 'EXPR_SUBLINK') {
        const sub = unwrap(n.subselect)[1];
        const target = sub?.targetList?.[0]?.ResTarget;
        if (target?.name) return { name: target.name, strength: 2 };
        if (target?.val) return figure(target.val);
      }
      return undefined;
    case 'CaseExpr': {
      // PostgreSQL names a CASE after its ELSE result when that has a real name.
      const inner = n.defresult ? figure(n.defresult) : undefined;
      return inner && inner.strength >= 2 ? inner : { name: 'case', strength: 1 };
    }
    case 'A_ArrayExpr': return { name: 'array', strength: 2 };
    case 'RowExpr': return { name: 'row', strength: 2 };
    case 'CoalesceExpr': return { name: 'coalesce', strength: 2 };
    case 'MinMaxExpr': return { name: n.op === 'IS_GREATEST' ? 'greatest' : 'least', strength: 2 };
    case 'SQLValueFunction': return { name: sqlValueNames[n.op as string] ?? '?column?', strength: 2 };
    // PostgreSQL 15 (the reference) parses TRUE/FALSE as 'true'::bool, which names the column "bool".
    case 'A_Const': return n.boolval !== undefined ? { name: 'bool', strength: 1 } : undefined;
    default: return undefined;
  }
}
