/** Another optimizer commit replaced files this one meant to replace; the node is retried later. */
export class OptimizerConflict extends Error {
  constructor() {
    super('optimizer conflict: the node was optimized concurrently');
    this.name = 'OptimizerConflict';
  }
}
