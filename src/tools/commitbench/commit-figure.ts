export type CommitMeasure = 'insert' | 'concurrent' | 'gateways' | 'visibility' | 'point-read' | 'scan' | 'replay';

export const COMMIT_MEASURES: readonly CommitMeasure[] = ['insert', 'concurrent', 'gateways', 'visibility', 'point-read', 'scan', 'replay'];

/** A target from issue 24's table, checked against Floe's figure. */
export interface Target {
  readonly op: '<=' | '>=';
  readonly value: number;
}

/** One line of the report: Floe's figure beside its peers' in the same run. */
export interface CommitFigure {
  readonly measure: CommitMeasure;
  readonly what: string;
  readonly unit: string;
  readonly floe?: number;
  readonly postgres?: number;
  readonly duckdb?: number;
  /** Latencies and times: lower is better; throughputs: higher. */
  readonly lowerIsBetter: boolean;
  readonly target?: Target;
}

/** Raw samples of one engine for one figure (milliseconds unless the name says otherwise), for `--json`. */
export interface SampleSet {
  readonly measure: CommitMeasure;
  readonly engine: 'floe' | 'postgres' | 'duckdb';
  readonly name: string;
  readonly values: readonly number[];
}

/** What a measure found besides its figures: file counts, answers compared, notes. */
export interface MeasureOutcome {
  readonly figures: CommitFigure[];
  readonly samples: SampleSet[];
  readonly notes: string[];
  /** Answers that differed between engines (or from the rows written): empty when they agree. */
  readonly mismatches: string[];
}

export function emptyOutcome(): MeasureOutcome {
  return { figures: [], samples: [], notes: [], mismatches: [] };
}

export function targetMet(f: CommitFigure): boolean | undefined {
  if (f.target === undefined || f.floe === undefined || Number.isNaN(f.floe)) return undefined;
  return f.target.op === '<=' ? f.floe <= f.target.value : f.floe >= f.target.value;
}
