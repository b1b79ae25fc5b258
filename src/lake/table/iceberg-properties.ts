import { checkPropertyValue, positiveDuration } from './optimizing-properties.js';
import type { PropertyDefinition } from './optimizing-properties.js';
import type { TableMetadata } from './table-metadata.js';

/** Milliseconds, with 0 for "every time the head moves". */
const durationOrZero = (t: string) => (/^\s*0\s*$/.test(t) ? 0 : positiveDuration(t));

/** How a table's Iceberg metadata follows its commits (docs/design-notes.md, "Iceberg metadata"). */
export const ICEBERG_PROPERTIES: Readonly<Record<string, PropertyDefinition>> = {
  'metadata.iceberg.change-interval': {
    description: 'how long a keyed table\'s pending changes may wait before its Iceberg metadata shows them, when its base store did not change (e.g. 10s; 0 for every commit)',
    defaultText: '10s', parse: durationOrZero,
  },
};

/** Throws 22023 when `value` is not valid for `key` (a key of ICEBERG_PROPERTIES). */
export function checkIcebergProperty(key: string, value: string): void {
  checkPropertyValue(ICEBERG_PROPERTIES, key, value);
}

/** `metadata.iceberg.change-interval` in milliseconds. */
export function icebergChangeIntervalMs(table: Pick<TableMetadata, 'properties'>): number {
  const def = ICEBERG_PROPERTIES['metadata.iceberg.change-interval']!;
  const given = table.properties['metadata.iceberg.change-interval'];
  return ((given === undefined ? undefined : def.parse(given)) ?? def.parse(def.defaultText)) as number;
}
