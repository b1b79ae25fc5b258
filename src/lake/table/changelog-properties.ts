import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import { checkPropertyValue } from './optimizing-properties.js';
import type { PropertyDefinition } from './optimizing-properties.js';
import type { TableMetadata } from './table-metadata.js';
import type { MergeEngineKind } from '../merge/merge-engine.js';

/**
 * How a keyed table's changelog is produced (Paimon's `changelog-producer`; docs/design-notes.md,
 * "Complete changelogs"): `input` stores what was written (a blind upsert is a +I, a delete by
 * key carries only the key); `lookup` finds each written key's row before the write and stores
 * UPDATE_BEFORE/UPDATE_AFTER pairs and whole deleted rows.
 */
export type ChangelogProducer = 'input' | 'lookup';

const producer = (text: string): ChangelogProducer | undefined => (text === 'input' || text === 'lookup' ? text : undefined);

/** The changelog table property, validated and listed like OPTIMIZING_PROPERTIES. */
export const CHANGELOG_PROPERTIES: Readonly<Record<string, PropertyDefinition>> = {
  'changelog-producer': {
    description: 'input (changes as written) or lookup (every change with its before-image; upserts of existing keys as updates)',
    defaultText: 'input', parse: producer,
  },
};

/** Throws 22023 when `value` is not valid for `key` (a key of CHANGELOG_PROPERTIES). */
export function checkChangelogProperty(key: string, value: string): void {
  checkPropertyValue(CHANGELOG_PROPERTIES, key, value);
}

export function changelogProducer(table: Pick<TableMetadata, 'properties'>): ChangelogProducer {
  const given = table.properties['changelog-producer'];
  return (given === undefined ? undefined : producer(given)) ?? 'input';
}

/**
 * A lookup changelog stores the row a write gave as the change's after-image; under a
 * combining merge engine the row a key holds after the write is the combined one, which
 * the lookup does not compute. Refused until it does (0A000).
 */
export function checkChangelogFitsEngine(table: Pick<TableMetadata, 'properties'>, engine: MergeEngineKind): void {
  if (engine === 'deduplicate' || changelogProducer(table) !== 'lookup') return;
  throw new FloeError(SqlState.featureNotSupported, `changelog-producer "lookup" is not supported with merge-engine "${engine}"`, {
    detail: 'A lookup changelog stores each written row as the after-image; this engine combines it with the stored row.',
    hint: "Use changelog-producer 'input' on this table.",
  });
}
