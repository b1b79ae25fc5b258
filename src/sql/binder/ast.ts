/**
 * Loose access to libpg-query's raw parse nodes. Nodes arrive as JSON objects
 * of the form `{ NodeTag: { …fields } }`; these helpers keep the binders terse.
 * (The typed @pgsql/types union is too wide to narrow usefully at each step.)
 */
export type Raw = any;

/** The node's tag and fields: `{ SelectStmt: {...} }` → ['SelectStmt', {...}]. */
export function unwrap(node: Raw): [string, Raw] {
  const keys = Object.keys(node ?? {});
  if (keys.length !== 1) return ['', node];
  return [keys[0]!, node[keys[0]!]];
}

/** The string value of a `{ String: { sval } }` node (names in lists). */
export function str(node: Raw): string {
  return node?.String?.sval ?? node?.sval ?? '';
}

export function strList(nodes: readonly Raw[] | undefined): string[] {
  return (nodes ?? []).map(str);
}

/** A node's location (0-based), looking one level into the tag when needed; -1 when unknown. */
export function locationOf(node: Raw): number {
  if (node === undefined || node === null) return -1;
  if (typeof node.location === 'number') return node.location;
  const [, inner] = unwrap(node);
  if (inner && typeof inner.location === 'number') return inner.location;
  return -1;
}

/** 1-based position for FloeError, or undefined when the location is unknown. */
export function positionOf(node: Raw): number | undefined {
  const loc = locationOf(node);
  return loc >= 0 ? loc + 1 : undefined;
}
