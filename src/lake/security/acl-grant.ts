import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';
import {
  AclRight, PUBLIC_ROLE, aclItem, aclKinds, aclOrDefault, allRightsFor, grantOptionFor, grantOptionsIn,
  lowestPrivilege, privilegeName,
  type Acl, type AclItem, type AclObjectKind,
} from './acl.js';
import {
  aclMask, aclMaskOfAcl, columnAclMask, selectBestGrantor,
  type AclObject, type MembershipOracle,
} from './acl-check.js';

/*
 * GRANT and REVOKE on an ACL, as PostgreSQL 15's ExecGrant_* routines apply them: pick the
 * grantor (select_best_grantor), cut the request down to the grant options held
 * (restrict_and_check_grant, with its warnings), then add or remove one item per grantee
 * (merge_acl_with_grant → aclupdate), refusing circular grant options and revoking, or
 * refusing to orphan, what was granted onward (check_circularity, recursive_revoke).
 * Pure: the caller stores the returned ACL; warnings come back as data.
 */

// Codes errcodes.txt defines that src/common/sqlstate.ts does not name.
const invalidGrantOperation = '0LP01';
const warningPrivilegeNotGranted = '01007';
const warningPrivilegeNotRevoked = '01006';

/** A WARNING PostgreSQL would send; the statement still succeeds. */
export interface AclWarning {
  readonly sqlstate: string;
  readonly message: string;
}

/** The object a statement is about, with its name for messages. */
export interface AclTarget extends AclObject {
  /** The object's name as messages show it (a column's own name when `kind` is 'column'). */
  readonly name: string;
  /** For a column: its table, whose ACL also counts when choosing the grantor and checking the grantor's rights. */
  readonly table?: AclTarget;
}

export interface AclStatement {
  readonly target: AclTarget;
  /**
   * The kind the statement names after ON, when it differs from the object's: GRANT ... ON TABLE
   * also reaches sequences (privileges they lack are dropped with a warning); ON SEQUENCE
   * refuses anything else. Ignored for a column.
   */
  readonly statementKind?: AclObjectKind;
  /** The role running the statement (after SET ROLE). */
  readonly currentRole: number;
  /** Grantee oids; PUBLIC_ROLE for PUBLIC. */
  readonly grantees: readonly number[];
  /**
   * Privilege bits; or the privileges one by one in the statement's order, so that an invalid
   * one is reported as PostgreSQL reports it (the first named; with a mask, the lowest bit);
   * or 'all' for ALL PRIVILEGES (the target kind's full set, with fewer warnings).
   */
  readonly privileges: number | readonly number[] | 'all';
}

export interface GrantStatement extends AclStatement {
  readonly withGrantOption?: boolean;
}

export interface RevokeStatement extends AclStatement {
  /** REVOKE GRANT OPTION FOR: remove only the grant options. */
  readonly grantOptionFor?: boolean;
  /** CASCADE: also revoke what the grantees granted onward; RESTRICT (the default) refuses instead. */
  readonly cascade?: boolean;
  /**
   * For a table or sequence: all its columns, system columns included, in attnum order. A
   * table-level REVOKE of column privileges (arwx) also revokes them from each column, with the
   * grantor chosen and checked per column (a grantor with none of arwx on the table is refused
   * even when the table-level part only warned) and a warning per column. Left out, columns
   * are not touched.
   */
  readonly columns?: readonly ColumnAcl[];
}

/** A column's name and its own ACL (attacl; NULL grants nothing). */
export interface ColumnAcl {
  readonly name: string;
  readonly acl: Acl | null;
}

export interface AclChange {
  /**
   * The ACL to store. A NULL input comes back materialised (PostgreSQL writes the default out
   * on the first GRANT or REVOKE), except when nothing was asked of a table (GRANT RULE).
   * A column ACL left empty comes back NULL, as attacl is stored.
   */
  readonly acl: Acl | null;
  /** The role recorded as grantor of the new items (or whose items were revoked). */
  readonly grantor: number;
  /** The privileges actually granted or revoked, after cutting to the grantor's grant options. */
  readonly privileges: number;
  /** The statement's `columns` with their new ACLs, when the REVOKE reached them. */
  readonly columns?: readonly ColumnAcl[];
  readonly warnings: readonly AclWarning[];
}

/** What one statement does, shared by the object and (for REVOKE) each of its columns. */
interface StatementAction {
  readonly isGrant: boolean;
  /** WITH GRANT OPTION, or GRANT OPTION FOR. */
  readonly grantOption: boolean;
  readonly cascade: boolean;
  readonly currentRole: number;
  readonly grantees: readonly number[];
  readonly roles: MembershipOracle;
  readonly warnings: AclWarning[];
}

export function applyGrant(statement: GrantStatement, roles: MembershipOracle): AclChange {
  const action = actionOf(statement, true, statement.withGrantOption === true, false, roles);
  const requested = checkedPrivileges(statement, action.warnings);
  const applied = applyToObject(statement.target, requested, statement.privileges === 'all', action);
  return { ...applied, warnings: action.warnings };
}

export function applyRevoke(statement: RevokeStatement, roles: MembershipOracle): AclChange {
  const action = actionOf(statement, false, statement.grantOptionFor === true, statement.cascade === true, roles);
  const { target } = statement;
  const requested = checkedPrivileges(statement, action.warnings);
  const applied = applyToObject(target, requested, statement.privileges === 'all', action);
  // Per SQL, revoking a table privilege revokes it from the columns too (granting never adds to them).
  const columnPrivileges = requested & allRightsFor('column');
  if (statement.columns === undefined || columnPrivileges === 0 || target.kind === 'column') return { ...applied, warnings: action.warnings };
  const columns = statement.columns.map((column) => {
    // Each column sees the table's ACL as it was before this statement.
    const columnTarget: AclTarget = { kind: 'column', owner: target.owner, acl: column.acl, name: column.name, table: target };
    return { name: column.name, acl: applyToObject(columnTarget, columnPrivileges, false, action).acl };
  });
  return { ...applied, columns, warnings: action.warnings };
}

function actionOf(statement: AclStatement, isGrant: boolean, grantOption: boolean, cascade: boolean, roles: MembershipOracle): StatementAction {
  return { isGrant, grantOption, cascade, currentRole: statement.currentRole, grantees: statement.grantees, roles, warnings: [] };
}

/** GRANT or REVOKE `requested` on one object (or column): choose the grantor, cut to its grant options, update one item per grantee. */
function applyToObject(target: AclTarget, requested: number, allPrivileges: boolean, action: StatementAction): Omit<AclChange, 'warnings'> {
  const { isGrant, grantOption, cascade, roles } = action;
  // A relation or column with nothing asked of it (only RULE) is left alone, ACL and all.
  const isRelation = target.kind === 'table' || target.kind === 'sequence' || target.kind === 'column';
  if (isRelation && requested === 0) return { acl: target.acl, grantor: action.currentRole, privileges: 0 };

  const oldAcl = aclOrDefault(target.acl, target.kind, target.owner);
  const tableAcl = target.table === undefined ? [] : aclOrDefault(target.table.acl, target.table.kind, target.table.owner);
  const { grantor, grantOptions } = selectBestGrantor(action.currentRole, requested, [...tableAcl, ...oldAcl], target.owner, roles);
  // Column grants don't track ALL PRIVILEGES (col) themselves; PostgreSQL approximates it by the set asked for.
  const all = target.kind === 'column' ? requested === allRightsFor('column') : allPrivileges;
  const privileges = restrictToGrantOptions(target, isGrant, grantOptions, all, requested, grantor, roles, action.warnings);

  let acl = oldAcl;
  for (const grantee of action.grantees) {
    // A role that re-granted a privilege it held only through PUBLIC could never be cleaned up after.
    if (isGrant && grantOption && grantee === PUBLIC_ROLE) {
      throw new FloeError(invalidGrantOperation, 'grant options can only be granted to roles');
    }
    // GRANT ... WITH GRANT OPTION adds both; plain REVOKE removes both; REVOKE GRANT OPTION FOR only the option.
    const item = aclItem(grantee, grantor, isGrant || !grantOption ? privileges : 0, !isGrant || grantOption ? privileges : 0);
    acl = aclUpdate(acl, item, isGrant ? 'add' : 'remove', target.owner, cascade, roles);
  }
  const stored = target.kind === 'column' && acl.length === 0 ? null : acl;
  return { acl: stored, grantor, privileges };
}

/** The privilege bits the statement asks for, after PostgreSQL's checks that they suit the statement and the object. */
function checkedPrivileges(statement: AclStatement, warnings: AclWarning[]): number {
  const { target } = statement;
  // Column privileges are named inside GRANT ... ON TABLE; their checks are the column's own.
  const statementKind = target.kind === 'column' ? 'column' : statement.statementKind ?? target.kind;
  const asked = typeof statement.privileges === 'number' ? [statement.privileges] : statement.privileges;
  if (asked !== 'all') {
    // GRANT ... ON TABLE may name a sequence, so it accepts sequence privileges here and checks the object below.
    const valid = statementKind === 'table' ? allRightsFor('table') | allRightsFor('sequence') : allRightsFor(statementKind);
    const invalid = asked.find((bits) => (bits & ~valid) !== 0);
    if (invalid !== undefined) {
      const noun = statementKind === 'table' ? 'relation' : aclKinds[statementKind].noun;
      throw new FloeError(invalidGrantOperation, `invalid privilege type ${privilegeName(lowestPrivilege(invalid & ~valid))} for ${noun}`);
    }
  }
  if (statementKind !== target.kind && !(statementKind === 'table' && target.kind === 'sequence')) {
    throw new FloeError(SqlState.wrongObjectType, `"${target.name}" is not a ${aclKinds[statementKind].noun}`);
  }
  let privileges = asked === 'all' ? allRightsFor(target.kind) : asked.reduce((all, bits) => all | bits, 0);
  if (statementKind === 'table' && target.kind === 'sequence' && (privileges & ~allRightsFor('sequence')) !== 0) {
    // Kept a warning, not an error, for backward compatibility.
    warnings.push({ sqlstate: invalidGrantOperation, message: `sequence "${target.name}" only supports USAGE, SELECT, and UPDATE privileges` });
    privileges &= allRightsFor('sequence');
  }
  if (target.kind === 'column' && target.table?.kind === 'sequence' && (privileges & ~AclRight.select) !== 0) {
    warnings.push({ sqlstate: invalidGrantOperation, message: `sequence "${target.table.name}" only supports SELECT column privileges` });
    privileges &= AclRight.select;
  }
  if (statementKind === 'table' && target.kind === 'table' && (privileges & ~allRightsFor('table')) !== 0) {
    // USAGE is the one sequence privilege a table lacks.
    throw new FloeError(invalidGrantOperation, 'invalid privilege type USAGE for table');
  }
  return privileges;
}

/**
 * restrict_and_check_grant: without any grant option the grantor must hold at least some
 * right on the object (else 42501); what is granted or revoked is cut to the grant options
 * held, with the warnings the standard asks for.
 */
function restrictToGrantOptions(
  target: AclTarget, isGrant: boolean, grantOptions: number, allPrivileges: boolean, requested: number,
  grantor: number, roles: MembershipOracle, warnings: AclWarning[],
): number {
  if (grantOptions === 0) {
    const whole = allRightsFor(target.kind);
    const anyRight = whole | grantOptionFor(whole);
    const held = target.kind === 'column' && target.table !== undefined
      ? aclMask(target.table, grantor, anyRight, roles, 'any') | columnAclMask(target.table, target.acl, grantor, anyRight, roles, 'any')
      : aclMask(target, grantor, anyRight, roles, 'any');
    if (held === 0) throw new FloeError(SqlState.insufficientPrivilege, permissionDeniedMessage(target));
  }
  const privileges = requested & grantOptions;
  const what = target.kind === 'column' && target.table !== undefined
    ? `column "${target.name}" of relation "${target.table.name}"`
    : `"${target.name}"`;
  const sqlstate = isGrant ? warningPrivilegeNotGranted : warningPrivilegeNotRevoked;
  const verb = isGrant ? 'were granted' : 'could be revoked';
  if (privileges === 0) warnings.push({ sqlstate, message: `no privileges ${verb} for ${what}` });
  else if (!allPrivileges && privileges !== requested) warnings.push({ sqlstate, message: `not all privileges ${verb} for ${what}` });
  return privileges;
}

function permissionDeniedMessage(target: AclTarget): string {
  if (target.kind === 'column' && target.table !== undefined) {
    return `permission denied for column "${target.name}" of relation "${target.table.name}"`;
  }
  return `permission denied for ${aclKinds[target.kind].noun} ${target.name}`;
}

/**
 * PostgreSQL's aclupdate: adds or removes `change`'s privileges and grant options on the item
 * keyed by (grantee, grantor), appending a new item at the end. An item left with nothing is
 * dropped. Grant options lost are revoked down the chain of grants they made possible —
 * with `cascade`, or else refused with 2BP01 when any such grant exists.
 */
export function aclUpdate(acl: Acl, change: AclItem, how: 'add' | 'remove', owner: number, cascade: boolean, roles: MembershipOracle): Acl {
  if (how === 'add' && change.grantOptions !== 0) checkCircularity(acl, change, owner, roles);
  const items = [...acl];
  let index = items.findIndex((item) => item.grantee === change.grantee && item.grantor === change.grantor);
  if (index < 0) {
    index = items.length;
    items.push(aclItem(change.grantee, change.grantor, 0, 0));
  }
  const old = items[index]!;
  const updated = how === 'add'
    ? aclItem(old.grantee, old.grantor, old.privileges | change.privileges, old.grantOptions | change.grantOptions)
    : aclItem(old.grantee, old.grantor, old.privileges & ~change.privileges, old.grantOptions & ~change.grantOptions);
  if (updated.privileges === 0 && updated.grantOptions === 0) items.splice(index, 1);
  else items[index] = updated;
  let result: Acl = Object.freeze(items);
  const lostGrantOptions = old.grantOptions & ~updated.grantOptions;
  if (lostGrantOptions !== 0) result = revokeDependents(result, change.grantee, lostGrantOptions, owner, cascade, roles);
  return result;
}

/**
 * recursive_revoke: `grantee` lost the grant options `lost`. What it still holds through other
 * grantors or memberships keeps its own grants alive; for the rest, every item it granted is
 * revoked in turn (CASCADE) or the statement fails (RESTRICT).
 */
function revokeDependents(acl: Acl, grantee: number, lost: number, owner: number, cascade: boolean, roles: MembershipOracle): Acl {
  // The owner's grant options come with ownership, so it never loses them.
  if (grantee === owner) return acl;
  const stillHeld = grantOptionsIn(aclMaskOfAcl(acl, grantee, owner, grantOptionFor(lost), roles));
  const orphaned = lost & ~stillHeld;
  if (orphaned === 0) return acl;
  let result = acl;
  for (;;) {
    const dependent = result.find((item) => item.grantor === grantee && (item.privileges & orphaned) !== 0);
    if (dependent === undefined) return result;
    if (!cascade) {
      throw new FloeError(SqlState.dependentObjectsStillExist, 'dependent privileges exist', { hint: 'Use CASCADE to revoke them too.' });
    }
    result = aclUpdate(result, aclItem(dependent.grantee, grantee, orphaned, orphaned), 'remove', owner, cascade, roles);
  }
}

/**
 * check_circularity: a grant option may not come back to a role it was (indirectly) derived
 * from, or revoking it at the source would leave the loop holding it. So drop every grant
 * option the grantee holds, with all that depends on them, and see whether the grantor still
 * holds what it is passing on.
 */
function checkCircularity(acl: Acl, change: AclItem, owner: number, roles: MembershipOracle): void {
  if (change.grantor === owner) return;
  let without = acl;
  for (;;) {
    const held = without.find((item) => item.grantee === change.grantee && item.grantOptions !== 0);
    if (held === undefined) break;
    without = aclUpdate(without, held, 'remove', owner, true, roles);
  }
  const grantorHolds = grantOptionsIn(aclMaskOfAcl(without, change.grantor, owner, grantOptionFor(change.grantOptions), roles));
  if ((change.grantOptions & ~grantorHolds) !== 0) {
    throw new FloeError(invalidGrantOperation, 'grant options cannot be granted back to your own grantor');
  }
}
