/**
 * The text form of a reg* value (regproc prints `now`, not 1299) needs the
 * catalog, which the wire cannot see: the composition root registers a lookup.
 * Undefined (no lookup, or an OID the catalog lacks) prints the number, as
 * PostgreSQL does for a dangling OID; OID 0 prints '-'.
 */
export type RegNameLookup = (typeOid: number, oid: number) => string | undefined;

let lookup: RegNameLookup | undefined;

export function registerRegNameLookup(fn: RegNameLookup): void {
  lookup = fn;
}

export function regNameText(typeOid: number, oid: number): string {
  if (oid === 0) return '-';
  return lookup?.(typeOid, oid) ?? String(oid);
}
