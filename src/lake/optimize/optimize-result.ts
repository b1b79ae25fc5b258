export interface OptimizeProgress {
  readonly phase: 'plan' | 'node' | 'commit' | 'done';
  readonly partition?: string;
  readonly node?: string;
  readonly nodesDone: number;
  readonly nodesTotal: number;
}

export interface OptimizeOptions {
  /** Branch to optimize; default main. */
  readonly ref?: string;
  readonly onProgress?: (p: OptimizeProgress) => void;
}

export interface OptimizeResult {
  /** The snapshot the optimizer committed, or undefined when there was nothing to do. */
  readonly snapshotId: bigint | undefined;
  readonly nodesOptimized: number;
  readonly nodesSplit: number;
  readonly changeFilesFolded: number;
  readonly baseFilesWritten: number;
  readonly lowWatermark: bigint;
  /** Nodes skipped because another optimizer committed to them first. */
  readonly conflicts: number;
}
