import { checkPropertyValue, positiveDuration, positiveSize } from './optimizing-properties.js';
import type { PropertyDefinition } from './optimizing-properties.js';
import type { TableMetadata } from './table-metadata.js';

/** How the log store's tiering treats a table (docs/design-notes.md, "Tiering"), read from its properties. */
export interface LogSettings {
  /** `log.tier-interval`: a table's log files are tiered once the oldest is older than this (ms). */
  readonly tierIntervalMs: number;
  /** `log.tier-size`: …or once its log files hold this many bytes. */
  readonly tierSize: number;
}

/** The log store's table properties, by key (validated and listed like OPTIMIZING_PROPERTIES). */
export const LOG_PROPERTIES: Readonly<Record<string, PropertyDefinition>> = {
  'log.tier-interval': { description: 'the longest a commit stays in the log before tiering rewrites it into Parquet (e.g. 1s, 500ms)', defaultText: '1s', parse: positiveDuration },
  'log.tier-size': { description: 'bytes of log files of the table that start tiering at once (e.g. 8MB)', defaultText: '8MB', parse: positiveSize },
};

/** Throws 22023 when `value` is not valid for `key` (a key of LOG_PROPERTIES). */
export function checkLogProperty(key: string, value: string): void {
  checkPropertyValue(LOG_PROPERTIES, key, value);
}

function read(table: Pick<TableMetadata, 'properties'>, key: string): number {
  const def = LOG_PROPERTIES[key]!;
  const given = table.properties[key];
  const v = given === undefined ? undefined : def.parse(given);
  return (v === undefined ? def.parse(def.defaultText) : v) as number;
}

export function logSettings(table: Pick<TableMetadata, 'properties'>): LogSettings {
  return { tierIntervalMs: read(table, 'log.tier-interval'), tierSize: read(table, 'log.tier-size') };
}
