import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { unwrap, type Raw } from '../binder/ast.js';
import { parseStatements } from '../parser/parse-statements.js';

/*
 * A refresh is SQL built around the view's own parse tree: small templates written as
 * text, parsed once, with placeholders replaced by nodes of the definition. Template nodes
 * lose their locations, so none can be taken for a position in the definition's text
 * (the binder finds time travel clauses by their table's location).
 */

/** A deep copy of a parse node (the definition's nodes are spliced into several statements). */
export function cloneNode<T>(node: T): T {
  return structuredClone(node);
}

/**
 * One statement parsed from `sql`, where every column reference `__p_<name>` becomes a copy
 * of `nodes[name]` (an expression) and every table `__r_<name>` a copy of `nodes[name]`
 * (a FROM item). Returns the wrapped statement node (`{ SelectStmt: … }`, `{ MergeStmt: … }`).
 */
export function fillTemplate(sql: string, nodes: Readonly<Record<string, Raw>> = {}): Raw {
  const [stmt] = parseStatements(sql);
  if (stmt === undefined) throw new FloeError(SqlState.internalError, `empty refresh template: ${sql}`);
  // A copy of the parse (shared by every statement of the same text), built as the walk goes.
  const replace = (node: Raw): Raw => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map(replace);
    const [tag, body] = unwrap(node);
    if (tag === 'ColumnRef' && body.fields?.length === 1) {
      const name = body.fields[0]?.String?.sval as string | undefined;
      if (name?.startsWith('__p_')) return placeholder(nodes, name.slice(4));
    }
    if (tag === 'RangeVar' && typeof body.relname === 'string' && body.relname.startsWith('__r_') && body.schemaname === undefined) {
      return placeholder(nodes, body.relname.slice(4));
    }
    const out: Raw = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'location' && typeof v === 'number' ? -1 : replace(v);
    return out;
  };
  return replace(stmt.ast as Raw);
}

function placeholder(nodes: Readonly<Record<string, Raw>>, name: string): Raw {
  const n = nodes[name];
  if (n === undefined) throw new FloeError(SqlState.internalError, `refresh template names no node "${name}"`);
  return cloneNode(n);
}

/** `"name"`, quoted as an identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `'text'`, quoted as a literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The SELECT body of a parsed `SELECT …` template. */
export function selectOf(stmt: Raw): Raw {
  const [tag, body] = unwrap(stmt);
  if (tag !== 'SelectStmt') throw new FloeError(SqlState.internalError, `a refresh template is a ${tag}, not a SELECT`);
  return body;
}

/** One expression parsed from `sql` (a select-list item), placeholders filled as fillTemplate fills them. */
export function templateExpr(sql: string, nodes: Readonly<Record<string, Raw>> = {}): Raw {
  return selectOf(fillTemplate(`SELECT ${sql}`, nodes)).targetList[0].ResTarget.val;
}
