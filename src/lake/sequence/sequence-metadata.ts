/** The integer types a sequence can have (PostgreSQL's AS smallint | integer | bigint). */
export type SequenceDataType = 'int2' | 'int4' | 'int8';

/**
 * CREATE / ALTER SEQUENCE options as written: every field optional. `null` for minValue /
 * maxValue is NO MINVALUE / NO MAXVALUE (the type's bound); undefined keeps the current value
 * (ALTER) or takes the default (CREATE).
 */
export interface SequenceOptions {
  readonly dataType?: SequenceDataType;
  readonly increment?: bigint;
  readonly minValue?: bigint | null;
  readonly maxValue?: bigint | null;
  readonly start?: bigint;
  readonly cache?: bigint;
  readonly cycle?: boolean;
  /** ALTER only: RESTART (null: at the start value) or RESTART WITH n. */
  readonly restart?: bigint | null;
}

/** A sequence's settings once validated: what pg_sequence holds. */
export interface SequenceParameters {
  readonly dataType: SequenceDataType;
  readonly increment: bigint;
  readonly minValue: bigint;
  readonly maxValue: bigint;
  readonly start: bigint;
  readonly cache: bigint;
  readonly cycle: boolean;
}

/** The column a sequence belongs to (OWNED BY, serial, identity): dropped with it. */
export interface SequenceOwner {
  readonly tableId: number;
  /** The column's stable field id, so renaming the column keeps the ownership. */
  readonly fieldId: number;
}

export interface SequenceMetadata extends SequenceParameters {
  /** From the same counter as table ids: also the sequence's pg_class oid. */
  readonly id: number;
  readonly namespace: string;
  readonly name: string;
  readonly ownedBy: SequenceOwner | undefined;
  /** The last value handed out by any process (reserved, for values held in a process's block), and whether it was. */
  readonly lastValue: bigint;
  readonly isCalled: boolean;
}

export interface SequenceDefinition {
  readonly namespace: string;
  readonly name: string;
  readonly options: SequenceOptions;
  /** OWNED BY table.column (by name; the lake resolves the field id). */
  readonly ownedBy?: { readonly namespace: string; readonly table: string; readonly column: string };
}

export type SequenceChange =
  | { readonly kind: 'options'; readonly options: SequenceOptions }
  | { readonly kind: 'rename'; readonly to: string }
  | { readonly kind: 'ownedBy'; readonly owner: { readonly namespace: string; readonly table: string; readonly column: string } | null };
