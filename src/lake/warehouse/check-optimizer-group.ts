import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import type { OptimizerGroup, SchedulingPolicy } from '../optimize/optimizing-records.js';

/** The group every table belongs to unless `self-optimizing.group` names another; it always exists. */
export const DEFAULT_OPTIMIZER_GROUP = 'default';

/** What `CREATE OPTIMIZER GROUP g WITH (…)` may set, with the text of each option's rule. */
export const OPTIMIZER_GROUP_OPTIONS: Readonly<Record<string, string>> = {
  threads: 'the worker threads that optimize the tables of the group (a positive integer)',
  scheduling_policy: "how the group picks the next table: 'quota' (the table furthest below its quota) or 'balanced' (the table optimized longest ago)",
};

const SCHEDULING_POLICIES: readonly SchedulingPolicy[] = ['quota', 'balanced'];

/** The same rule `self-optimizing.group` values follow, so every group can be named by a table. */
const GROUP_NAME = /^[A-Za-z_][A-Za-z0-9_$-]*$/;

/** 42602 unless `name` can name an optimizer group. */
export function checkOptimizerGroupName(name: string): void {
  if (!GROUP_NAME.test(name) || name.length > 63) {
    throw new FloeError('42602', `invalid optimizer group name "${name}"`, {
      hint: 'A group name starts with a letter or underscore and holds letters, digits, _, $ and -.',
    });
  }
}

/**
 * The typed settings of an optimizer group's options as written (`threads = '4'` or `threads = 4`):
 * 22023 for an unknown option or a value its rule refuses.
 */
export function optimizerGroupOptions(options: Readonly<Record<string, string>>): { threads?: number; schedulingPolicy?: SchedulingPolicy } {
  const out: { threads?: number; schedulingPolicy?: SchedulingPolicy } = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'threads') {
      const v = /^\s*\+?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(v) || v < 1) throw invalidValue(key, value);
      out.threads = v;
    } else if (key === 'scheduling_policy') {
      const v = value.trim().toLowerCase();
      if (!(SCHEDULING_POLICIES as readonly string[]).includes(v)) throw invalidValue(key, value);
      out.schedulingPolicy = v as SchedulingPolicy;
    } else {
      throw new FloeError(SqlState.invalidParameterValue, `unrecognized optimizer group parameter "${key}"`, {
        hint: `Optimizer groups take ${Object.keys(OPTIMIZER_GROUP_OPTIONS).join(' and ')}.`,
      });
    }
  }
  return out;
}

function invalidValue(key: string, value: string): FloeError {
  return new FloeError(SqlState.invalidParameterValue, `invalid value for optimizer group parameter "${key}": "${value}"`, {
    hint: `${key}: ${OPTIMIZER_GROUP_OPTIONS[key]}.`,
  });
}

/**
 * Settings as the catalog stores them (22023). Unlike SQL, which asks for a positive number of
 * threads, the service may store 0: a group that runs nothing (`--optimizer-threads 0`).
 */
export function checkOptimizerGroupSettings(change: { threads?: number; schedulingPolicy?: SchedulingPolicy }): void {
  if (change.threads !== undefined && (!Number.isSafeInteger(change.threads) || change.threads < 0)) throw invalidValue('threads', String(change.threads));
  if (change.schedulingPolicy !== undefined) optimizerGroupOptions({ scheduling_policy: change.schedulingPolicy });
}

/** A whole group as the catalog stores it: 42602 / 22023 as above. */
export function checkOptimizerGroup(group: OptimizerGroup): void {
  checkOptimizerGroupName(group.name);
  checkOptimizerGroupSettings(group);
}

/** DROP OPTIMIZER GROUP default: PostgreSQL's answer for an object the system needs. */
export function defaultGroupDropError(): FloeError {
  return new FloeError('2BP01', `cannot drop optimizer group "${DEFAULT_OPTIMIZER_GROUP}" because it is required by the database system`);
}

/** DROP OPTIMIZER GROUP of a group tables name: 2BP01, each dependent on a DETAIL line as PostgreSQL lists them. */
export function groupInUseError(name: string, tables: readonly { readonly namespace: string; readonly name: string }[]): FloeError {
  return new FloeError('2BP01', `cannot drop optimizer group "${name}" because other objects depend on it`, {
    detail: tables.map((t) => `table ${t.namespace === 'public' ? '' : `${t.namespace}.`}${t.name} depends on optimizer group "${name}"`).join('\n'),
    hint: 'Move the tables to another group first: ALTER TABLE t SET ("self-optimizing.group" = \'default\').',
  });
}
