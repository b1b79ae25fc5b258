/**
 * SET CONSTRAINTS: a transaction's choice of when its deferrable constraints are checked
 * (PostgreSQL's SetConstraintState). A named choice wins over ALL, which wins over the
 * constraint's own INITIALLY DEFERRED / IMMEDIATE; a constraint that is not deferrable is
 * always checked at once.
 */
export type ConstraintMode = 'deferred' | 'immediate';

export interface ConstraintModes {
  /** The last SET CONSTRAINTS ALL, if any. */
  readonly all?: ConstraintMode;
  /** Constraints named since that ALL, by constraintModeKey. */
  readonly named?: ReadonlyMap<string, ConstraintMode>;
}

/** A constraint of a table, as SET CONSTRAINTS names it. */
export interface ConstraintRef {
  readonly tableId: number;
  readonly name: string;
}

export function constraintModeKey(c: ConstraintRef): string {
  return `${c.tableId}\u0000${c.name}`;
}

/** The modes after `SET CONSTRAINTS ALL mode` (which forgets earlier named choices, as PostgreSQL does) or `SET CONSTRAINTS names mode`. */
export function withConstraintMode(modes: ConstraintModes, target: 'all' | readonly ConstraintRef[], mode: ConstraintMode): ConstraintModes {
  if (target === 'all') return { all: mode };
  const named = new Map(modes.named ?? []);
  for (const c of target) named.set(constraintModeKey(c), mode);
  return { ...modes, named };
}

/** Whether a write to `constraint` of table `tableId` is checked at COMMIT rather than at once. */
export function isDeferred(modes: ConstraintModes | undefined, tableId: number, constraint: { readonly name: string; readonly deferrable?: ConstraintMode | undefined }): boolean {
  if (constraint.deferrable === undefined) return false;
  const mode = modes?.named?.get(constraintModeKey({ tableId, name: constraint.name })) ?? modes?.all ?? constraint.deferrable;
  return mode === 'deferred';
}
