import type { ColumnarBatch } from '../arrow/columnar-batch.js';
import type { RunState } from '../run-state.js';
import type { GroupKeys, InternedGroups, KeyColumn } from './group-keys.js';
import { GROUP_OVERHEAD } from './key-normal-form.js';

/** No GROUP BY keys (and no grouping sets): every row is in the one group. */
export class GrandTotalKeys implements GroupKeys {
  #size = 0;
  readonly groupSets = undefined;

  get size(): number {
    return this.#size;
  }

  read(_b: ColumnarBatch, _run: RunState): Promise<KeyColumn[]> {
    return Promise.resolve([]);
  }

  intern(_keys: readonly KeyColumn[], n: number): InternedGroups {
    let added = 0;
    if (this.#size === 0) { this.#size = 1; added = GROUP_OVERHEAD; }
    return { groups: new Int32Array(n), added };
  }

  keyValues(): unknown[][] {
    return [];
  }

  expect(): void {}

  release(): void {}
}
