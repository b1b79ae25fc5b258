import type { RecordBatch } from 'apache-arrow';
import type { ScanTask } from './scan-types.js';

export async function* executeScanTask(task: ScanTask): AsyncIterable<RecordBatch> {
  void task;
  throw new Error('not implemented yet');
}
