import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { TableMetadata } from './table-metadata.js';

/**
 * The self-optimizing knobs of a table, read from its properties. One definition per key:
 * the session validates `WITH (…)` / `ALTER TABLE … SET (…)` against it, the scheduler and
 * the optimizer read the typed values through optimizingSettings(). Durations are
 * milliseconds, or a number with a unit (`30s`, `5min`, `2h`, `1d`); sizes are bytes, or a
 * number with a unit (`64MB`, `1GB`).
 */
export interface OptimizingSettings {
  /** `self-optimizing.enabled`: the scheduler leaves the table alone when false (CALL optimize still runs). */
  readonly enabled: boolean;
  /** `self-optimizing.group`: the optimizer group whose threads serve the table. */
  readonly group: string;
  /** `self-optimizing.quota`: the table's share of its group's thread time over the last hour (0 < q ≤ threads). */
  readonly quota: number;
  /** `self-optimizing.minor.trigger.file-count`: unfolded change files on a node that make a minor due. */
  readonly minorFileCount: number;
  /** `self-optimizing.minor.trigger.bytes`: unfolded change bytes on a node that make a minor due. */
  readonly minorBytes: number;
  /** `self-optimizing.minor.trigger.interval`: a minor is due once a node's oldest unfolded change is older than this (ms). */
  readonly minorIntervalMs: number;
  /** `self-optimizing.major.trigger.duplicate-ratio`: superseded or deleted rows over rows that make a base file worth rewriting. */
  readonly majorDuplicateRatio: number;
  /** `self-optimizing.fragment-ratio`: a base file smaller than target-size / this is undersized. */
  readonly fragmentRatio: number;
  /** `self-optimizing.full.trigger.interval`: a full rewrite is due this long after the last (ms); undefined = never. */
  readonly fullIntervalMs: number | undefined;
  /** `self-optimizing.target-size` (alias `write.target-file-size`): bytes of base data per node before it splits. */
  readonly targetSize: number;
  /** `self-optimizing.read-amplification.max`: the most change files a scan may merge for one node. */
  readonly readAmplificationMax: number;
  /**
   * `self-optimizing.deletion-vectors`, on a table whose merge engine is deduplicate: a large
   * node's minor on its interval and bytes triggers is a delta fold (its changes and small
   * base files become one base file, and the rows they supersede in its large ones are
   * marked in deletion vectors); its count triggers compact its change files either way.
   */
  readonly deletionVectors: boolean;
  /** `snapshot.retain-last`: snapshots of each branch kept whatever their age. */
  readonly snapshotRetainLast: number;
  /** `snapshot.max-age`: older snapshots (beyond retain-last) are expired by housekeeping (ms). */
  readonly snapshotMaxAgeMs: number;
}

export interface PropertyDefinition {
  readonly description: string;
  readonly defaultText: string;
  /** Returns undefined when the text is not a valid value. */
  readonly parse: (text: string) => unknown;
}

const MIB = 1024 * 1024;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1, s: 1000, sec: 1000, second: 1000, seconds: 1000, min: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000, d: 86_400_000, day: 86_400_000, days: 86_400_000,
};
const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1, kb: 1024, k: 1024, mb: MIB, m: MIB, gb: 1024 * MIB, g: 1024 * MIB,
};

function parseWithUnit(text: string, units: Readonly<Record<string, number>>, bareUnit: number): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (m === null) return undefined;
  const unit = m[2]!.toLowerCase();
  const factor = unit === '' ? bareUnit : units[unit];
  if (factor === undefined) return undefined;
  const v = Math.round(Number(m[1]) * factor);
  return Number.isFinite(v) ? v : undefined;
}

/** Milliseconds, or undefined when not a positive duration. */
export const positiveDuration = (t: string) => { const v = parseWithUnit(t, UNIT_MS, 1); return v !== undefined && v > 0 ? v : undefined; };
/** Bytes, or undefined when not a positive size. */
export const positiveSize = (t: string) => { const v = parseWithUnit(t, UNIT_BYTES, 1); return v !== undefined && v > 0 ? v : undefined; };
const positiveInteger = (t: string) => (/^\s*\d+\s*$/.test(t) && Number(t) > 0 ? Number(t) : undefined);
const boolean = (t: string) => { const v = t.trim().toLowerCase(); return v === 'true' ? true : v === 'false' ? false : undefined; };
const ratio = (t: string) => { const v = Number(t); return t.trim() !== '' && v > 0 && v <= 1 ? v : undefined; };
const positiveNumber = (t: string) => { const v = Number(t); return t.trim() !== '' && Number.isFinite(v) && v > 0 ? v : undefined; };
const groupName = (t: string) => (/^[A-Za-z_][A-Za-z0-9_$-]*$/.test(t) ? t : undefined);
/** A duration, or -1 / 0 for "never". */
const optionalDuration = (t: string) => (/^\s*(-1|0)\s*$/.test(t) ? null : positiveDuration(t));

export const DEFAULT_TARGET_SIZE = 128 * MIB;

/** Every self-optimizing and housekeeping property, by key. */
export const OPTIMIZING_PROPERTIES: Readonly<Record<string, PropertyDefinition>> = {
  'self-optimizing.enabled': { description: 'whether the self-optimizing service optimizes the table (true or false)', defaultText: 'true', parse: boolean },
  'self-optimizing.group': { description: 'the optimizer group whose threads optimize the table', defaultText: 'default', parse: groupName },
  'self-optimizing.quota': { description: "the table's share of its group's thread time over the last hour (e.g. 0.5)", defaultText: '0.5', parse: positiveNumber },
  'self-optimizing.minor.trigger.file-count': { description: 'unfolded change files on a bucket node that start a minor optimize (positive integer)', defaultText: '12', parse: positiveInteger },
  'self-optimizing.minor.trigger.bytes': { description: 'unfolded change bytes on a bucket node that start a minor optimize (e.g. 16MB)', defaultText: '16MB', parse: positiveSize },
  'self-optimizing.minor.trigger.interval': { description: 'the longest a change waits unfolded before a minor optimize (e.g. 60s)', defaultText: '60s', parse: positiveDuration },
  'self-optimizing.major.trigger.duplicate-ratio': { description: 'share of superseded or deleted rows that makes a base file worth rewriting (0 < r <= 1)', defaultText: '0.1', parse: ratio },
  'self-optimizing.fragment-ratio': { description: 'a base file smaller than target-size divided by this is undersized (positive integer)', defaultText: '8', parse: positiveInteger },
  'self-optimizing.full.trigger.interval': { description: 'how often a full rewrite runs (e.g. 1d; -1 for never)', defaultText: '-1', parse: optionalDuration },
  'self-optimizing.target-size': { description: 'bytes of base data per bucket node before the optimizer splits it (e.g. 128MB)', defaultText: '128MB', parse: positiveSize },
  'write.target-file-size': { description: 'the old name of self-optimizing.target-size (bytes)', defaultText: '128MB', parse: positiveSize },
  'self-optimizing.read-amplification.max': { description: 'the most change files a scan may merge for one bucket node; the service optimizes to stay under it (positive integer)', defaultText: '16', parse: positiveInteger },
  'self-optimizing.deletion-vectors': {
    description: "whether a large bucket node's minor optimize, on its interval and bytes triggers, folds its changes by marking the rows they supersede in deletion vectors rather than only compacting its change files (true or false; deduplicate tables)",
    defaultText: 'true', parse: boolean,
  },
  'snapshot.retain-last': { description: 'snapshots of each branch kept whatever their age (positive integer)', defaultText: '10', parse: positiveInteger },
  'snapshot.max-age': { description: 'housekeeping expires snapshots older than this beyond retain-last (e.g. 1h, 7d)', defaultText: '1h', parse: positiveDuration },
};

/** Throws 22023 when `value` is not valid for `key` (a key of OPTIMIZING_PROPERTIES). */
export function checkOptimizingProperty(key: string, value: string): void {
  checkPropertyValue(OPTIMIZING_PROPERTIES, key, value);
}

/** Throws 22023 when `value` is not valid for `key`, a key of `defs` (other keys pass). */
export function checkPropertyValue(defs: Readonly<Record<string, PropertyDefinition>>, key: string, value: string): void {
  const def = defs[key];
  if (def === undefined) return;
  if (def.parse(value) === undefined) {
    throw new FloeError(SqlState.invalidParameterValue, `invalid value for ${key}: "${value}"`, { hint: `${key}: ${def.description}.` });
  }
}

function read<T>(table: Pick<TableMetadata, 'properties'>, key: string): T {
  const def = OPTIMIZING_PROPERTIES[key]!;
  const given = table.properties[key];
  // A stored value that no longer parses (written before validation) falls back to the default.
  const v = given === undefined ? undefined : def.parse(given);
  return (v === undefined ? def.parse(def.defaultText) : v) as T;
}

export function optimizingSettings(table: Pick<TableMetadata, 'properties'>): OptimizingSettings {
  const full = read<number | null>(table, 'self-optimizing.full.trigger.interval');
  const target = table.properties['self-optimizing.target-size'] !== undefined
    ? read<number>(table, 'self-optimizing.target-size') : read<number>(table, 'write.target-file-size');
  return {
    enabled: read<boolean>(table, 'self-optimizing.enabled'),
    group: read<string>(table, 'self-optimizing.group'),
    quota: read<number>(table, 'self-optimizing.quota'),
    minorFileCount: read<number>(table, 'self-optimizing.minor.trigger.file-count'),
    minorBytes: read<number>(table, 'self-optimizing.minor.trigger.bytes'),
    minorIntervalMs: read<number>(table, 'self-optimizing.minor.trigger.interval'),
    majorDuplicateRatio: read<number>(table, 'self-optimizing.major.trigger.duplicate-ratio'),
    fragmentRatio: read<number>(table, 'self-optimizing.fragment-ratio'),
    fullIntervalMs: full === null ? undefined : full,
    targetSize: target,
    readAmplificationMax: read<number>(table, 'self-optimizing.read-amplification.max'),
    // Other merge engines combine a key's rows, so a superseded row is still an input.
    deletionVectors: read<boolean>(table, 'self-optimizing.deletion-vectors') && (table.properties['merge-engine'] ?? 'deduplicate') === 'deduplicate',
    snapshotRetainLast: read<number>(table, 'snapshot.retain-last'),
    snapshotMaxAgeMs: read<number>(table, 'snapshot.max-age'),
  };
}
