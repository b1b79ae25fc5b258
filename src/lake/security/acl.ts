import { FloeError } from '../../common/floe-error.js';
import { SqlState } from '../../common/sqlstate.js';

/*
 * PostgreSQL's aclitem values: privilege bits, items, the text form aclitemout and array_out
 * print (and aclitemin / array_in read), and the hard-wired defaults a NULL ACL stands for.
 * Roles are oids; 0 is PUBLIC. Grant and revoke live in acl-grant.ts, checks in acl-check.ts.
 */

/** Privilege bits, one per letter of `aclRightLetters`, in PostgreSQL's bit order. */
export const AclRight = {
  insert: 1 << 0,
  select: 1 << 1,
  update: 1 << 2,
  delete: 1 << 3,
  truncate: 1 << 4,
  references: 1 << 5,
  trigger: 1 << 6,
  execute: 1 << 7,
  usage: 1 << 8,
  create: 1 << 9,
  temporary: 1 << 10,
  connect: 1 << 11,
  set: 1 << 12,
  alterSystem: 1 << 13,
} as const;

/** PostgreSQL's ACL_ALL_RIGHTS_STR: the letter of bit i is at index i. */
export const aclRightLetters = 'arwdDxtXUCTcsA';

/** Every privilege bit. */
export const allRightBits = (1 << aclRightLetters.length) - 1;

/** The grantee (never the grantor) that means everyone. */
export const PUBLIC_ROLE = 0;

/** PostgreSQL's BOOTSTRAP_SUPERUSERID: aclitemin's grantor when the text names none. */
export const BOOTSTRAP_SUPERUSER = 10;

/*
 * PostgreSQL keeps grant options in the upper half of a 64-bit mode. Fourteen privileges fit in
 * 16 bits, so here a mode mask carries a privilege's grant option 16 bits above it and stays
 * one 32-bit number that JavaScript's bit operators handle.
 */
const grantOptionShift = 16;

/** The mode bits that ask for the grant options of `privileges`. */
export function grantOptionFor(privileges: number): number {
  return (privileges & allRightBits) << grantOptionShift;
}

/** The privileges whose grant-option bits are set in `mode`. */
export function grantOptionsIn(mode: number): number {
  return (mode >>> grantOptionShift) & allRightBits;
}

/** The plain privilege bits of `mode`. */
export function privilegesIn(mode: number): number {
  return mode & allRightBits;
}

/** Every grant-option bit of a mode mask. */
export const allGrantOptionBits = grantOptionFor(allRightBits);

/** One aclitem: what `grantor` gave `grantee`. `grantOptions` ⊆ `privileges`, as privilege bits. */
export interface AclItem {
  readonly grantee: number;
  readonly grantor: number;
  readonly privileges: number;
  readonly grantOptions: number;
}

/** An aclitem[]. Order matters: PostgreSQL appends new items and pg_dump replays them in order. */
export type Acl = readonly AclItem[];

export function aclItem(grantee: number, grantor: number, privileges: number, grantOptions = 0): AclItem {
  return Object.freeze({ grantee, grantor, privileges: privileges & allRightBits, grantOptions: grantOptions & allRightBits });
}

/** An item's privileges and grant options as one mode mask. */
export function itemMode(item: AclItem): number {
  return item.privileges | grantOptionFor(item.grantOptions);
}

// ---------------------------------------------------------------------------------------------
// Object kinds

/** The kinds of object that carry an ACL, as PostgreSQL's acldefault() knows them. Views and other relations are `table`; procedures are `function`; domains are `type`. */
export type AclObjectKind =
  | 'column'
  | 'table'
  | 'sequence'
  | 'database'
  | 'function'
  | 'language'
  | 'largeobject'
  | 'schema'
  | 'parameter'
  | 'tablespace'
  | 'foreign-data-wrapper'
  | 'foreign-server'
  | 'type';

export interface AclKindFacts {
  /** ACL_ALL_RIGHTS_* of the kind: what GRANT may give and ALL PRIVILEGES means. */
  readonly allRights: number;
  /** What PUBLIC holds when the ACL is NULL. */
  readonly publicDefault: number;
  /** What the owner holds (self-granted, without grant options) when the ACL is NULL. */
  readonly ownerDefault: number;
  /** The kind's name in PostgreSQL's messages ("permission denied for large object 7"). */
  readonly noun: string;
}

const R = AclRight;
const tableRights = R.insert | R.select | R.update | R.delete | R.truncate | R.references | R.trigger;

export const aclKinds: Readonly<Record<AclObjectKind, AclKindFacts>> = Object.freeze({
  // A column's NULL ACL grants nothing: table-level privileges cover columns instead.
  column: { allRights: R.insert | R.select | R.update | R.references, publicDefault: 0, ownerDefault: 0, noun: 'column' },
  table: { allRights: tableRights, publicDefault: 0, ownerDefault: tableRights, noun: 'table' },
  sequence: { allRights: R.usage | R.select | R.update, publicDefault: 0, ownerDefault: R.usage | R.select | R.update, noun: 'sequence' },
  // PUBLIC's TEMP and CONNECT on databases are kept for backward compatibility.
  database: { allRights: R.create | R.temporary | R.connect, publicDefault: R.temporary | R.connect, ownerDefault: R.create | R.temporary | R.connect, noun: 'database' },
  function: { allRights: R.execute, publicDefault: R.execute, ownerDefault: R.execute, noun: 'function' },
  language: { allRights: R.usage, publicDefault: R.usage, ownerDefault: R.usage, noun: 'language' },
  largeobject: { allRights: R.select | R.update, publicDefault: 0, ownerDefault: R.select | R.update, noun: 'large object' },
  schema: { allRights: R.usage | R.create, publicDefault: 0, ownerDefault: R.usage | R.create, noun: 'schema' },
  parameter: { allRights: R.set | R.alterSystem, publicDefault: 0, ownerDefault: R.set | R.alterSystem, noun: 'parameter' },
  tablespace: { allRights: R.create, publicDefault: 0, ownerDefault: R.create, noun: 'tablespace' },
  'foreign-data-wrapper': { allRights: R.usage, publicDefault: 0, ownerDefault: R.usage, noun: 'foreign-data wrapper' },
  'foreign-server': { allRights: R.usage, publicDefault: 0, ownerDefault: R.usage, noun: 'foreign server' },
  type: { allRights: R.usage, publicDefault: R.usage, ownerDefault: R.usage, noun: 'type' },
});

/** What ALL PRIVILEGES means for `kind` (ACL_ALL_RIGHTS_*). */
export function allRightsFor(kind: AclObjectKind): number {
  return aclKinds[kind].allRights;
}

/**
 * The ACL a NULL ACL stands for (PostgreSQL's acldefault): PUBLIC's default first, then the
 * owner's rights, self-granted and without grant options; the owner's grant options are
 * implicit in ownership, so the owner can revoke its own privileges yet still grant them.
 */
export function acldefault(kind: AclObjectKind, owner: number): Acl {
  const facts = aclKinds[kind];
  const items: AclItem[] = [];
  if (facts.publicDefault !== 0) items.push(aclItem(PUBLIC_ROLE, owner, facts.publicDefault));
  if (facts.ownerDefault !== 0) items.push(aclItem(owner, owner, facts.ownerDefault));
  return Object.freeze(items);
}

/** `acl`, or the default when it is NULL. */
export function aclOrDefault(acl: Acl | null, kind: AclObjectKind, owner: number): Acl {
  return acl ?? acldefault(kind, owner);
}

// ---------------------------------------------------------------------------------------------
// Privilege names (GRANT's keywords)

const privilegeKeywords: readonly (readonly [string, number])[] = [
  ['insert', R.insert], ['select', R.select], ['update', R.update], ['delete', R.delete],
  ['truncate', R.truncate], ['references', R.references], ['trigger', R.trigger],
  ['execute', R.execute], ['usage', R.usage], ['create', R.create], ['temporary', R.temporary],
  ['temp', R.temporary], ['connect', R.connect], ['set', R.set], ['alter system', R.alterSystem],
];

/**
 * The bit of a privilege as GRANT names it (case-insensitive). RULE, a privilege PostgreSQL
 * dropped, is accepted and means nothing (0). Anything else is a syntax error, as in PostgreSQL.
 */
export function privilegeFromName(name: string): number {
  const key = name.trim().toLowerCase().replace(/\s+/g, ' ');
  if (key === 'rule') return 0;
  const found = privilegeKeywords.find(([k]) => k === key);
  if (found === undefined) throw new FloeError(SqlState.syntaxError, `unrecognized privilege type "${name}"`);
  return found[1];
}

const privilegeDisplayNames = [
  'INSERT', 'SELECT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER',
  'EXECUTE', 'USAGE', 'CREATE', 'TEMP', 'CONNECT', 'SET', 'ALTER SYSTEM',
] as const;

/** The name PostgreSQL's messages use for one privilege bit (privilege_to_string). */
export function privilegeName(bit: number): string {
  const index = Math.log2(bit);
  const name = Number.isInteger(index) ? privilegeDisplayNames[index] : undefined;
  if (name === undefined) throw new FloeError(SqlState.internalError, `not a single privilege bit: ${bit}`);
  return name;
}

/** The lowest privilege bit set in `privileges` (0 when none). */
export function lowestPrivilege(privileges: number): number {
  return privileges & -privileges;
}

// ---------------------------------------------------------------------------------------------
// Text form

export type RoleNameOf = (oid: number) => string | undefined;
export type RoleOidOf = (name: string) => number | undefined;

/** The privilege letters of an item, each followed by `*` when held with grant option. */
export function formatPrivileges(privileges: number, grantOptions: number): string {
  let out = '';
  for (let i = 0; i < aclRightLetters.length; i++) {
    if (privileges & (1 << i)) out += aclRightLetters[i];
    if (grantOptions & (1 << i)) out += '*';
  }
  return out;
}

/** aclitemout's putid: a name needs double quotes unless it is all ASCII letters, digits and underscores; a `"` inside is doubled. */
export function quoteRoleName(name: string): string {
  return /^[A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

// A dropped role prints as its oid, as aclitemout does.
function roleText(oid: number, roleName: RoleNameOf): string {
  const name = roleName(oid);
  return name === undefined ? String(oid) : quoteRoleName(name);
}

/** An aclitem as PostgreSQL prints it: `grantee=privs/grantor`, with an empty grantee for PUBLIC. */
export function formatAclItem(item: AclItem, roleName: RoleNameOf): string {
  const grantee = item.grantee === PUBLIC_ROLE ? '' : roleText(item.grantee, roleName);
  return `${grantee}=${formatPrivileges(item.privileges, item.grantOptions)}/${roleText(item.grantor, roleName)}`;
}

// array_out quotes an element that is empty, reads as NULL, or holds a delimiter, brace, quote, backslash or space.
function quoteArrayElement(text: string): string {
  const needsQuotes = text === '' || text.toUpperCase() === 'NULL' || /[{}",\\ \t\n\r\v\f]/.test(text);
  return needsQuotes ? `"${text.replace(/["\\]/g, '\\$&')}"` : text;
}

/** An aclitem[] as PostgreSQL prints it, e.g. `{a=r/b,"\"x y\"=arw/b}`. */
export function formatAcl(acl: Acl, roleName: RoleNameOf): string {
  return `{${acl.map((item) => quoteArrayElement(formatAclItem(item, roleName))).join(',')}}`;
}

const NAMEDATALEN = 64;
const isCSpace = (c: string | undefined): boolean => c !== undefined && ' \t\n\v\f\r'.includes(c);
const isIdentChar = (c: string): boolean => /^[A-Za-z0-9_]$/.test(c);
const badAcl = (message: string, hint?: string) => new FloeError(SqlState.invalidTextRepresentation, message, hint === undefined ? {} : { hint });

/** A role name as aclitemin reads it (getid): unquoted letters, digits and underscores, or double-quoted text with `""` for `"`. */
function readRoleName(text: string, start: number): { name: string; end: number } {
  let i = start;
  while (isCSpace(text[i])) i++;
  let name = '';
  let inQuotes = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (!(inQuotes || c === '"' || isIdentChar(c))) break;
    if (c === '"') {
      if (text[i + 1] !== '"') {
        inQuotes = !inQuotes;
        continue;
      }
      i++; // a doubled quote stands for one
    }
    name += text[i];
    if (Buffer.byteLength(name) > NAMEDATALEN - 1) {
      throw new FloeError(SqlState.nameTooLong, 'identifier too long', { detail: `Identifier must be less than ${NAMEDATALEN} characters.` });
    }
  }
  while (isCSpace(text[i])) i++;
  return { name, end: i };
}

function lookUpRole(name: string, roleOid: RoleOidOf): number {
  const oid = roleOid(name);
  if (oid === undefined) throw new FloeError(SqlState.undefinedObject, `role "${name}" does not exist`);
  return oid;
}

export interface ParseAclItemOptions {
  /** The grantor when the text has no `/grantor` (PostgreSQL warns and uses the bootstrap superuser). */
  readonly defaultGrantor?: number;
}

/** Reads an aclitem starting at `start`; returns it and where it ended. */
function readAclItem(text: string, start: number, roleOid: RoleOidOf, options: ParseAclItemOptions): { item: AclItem; end: number } {
  let { name, end: i } = readRoleName(text, start);
  if (text[i] !== '=') {
    // An old spelling: "group name=..." or "user name=...".
    if (name !== 'group' && name !== 'user') throw badAcl(`unrecognized key word: "${name}"`, 'ACL key word must be "group" or "user".');
    ({ name, end: i } = readRoleName(text, i));
    if (name === '') throw badAcl('missing name', 'A name must follow the "group" or "user" key word.');
  }
  if (text[i] !== '=') throw badAcl('missing "=" sign');
  let privileges = 0;
  let grantOptions = 0;
  let last = 0;
  for (i++; i < text.length && /[A-Za-z*]/.test(text[i]!); i++) {
    const c = text[i]!;
    if (c === '*') grantOptions |= last;
    else if (c === 'R') last = 0; // the old RULE privilege, dropped
    else {
      const index = aclRightLetters.indexOf(c);
      if (index < 0) throw badAcl(`invalid mode character: must be one of "${aclRightLetters}"`);
      last = 1 << index;
    }
    privileges |= last;
  }
  const grantee = name === '' ? PUBLIC_ROLE : lookUpRole(name, roleOid);
  let grantor = options.defaultGrantor ?? BOOTSTRAP_SUPERUSER;
  if (text[i] === '/') {
    const read = readRoleName(text, i + 1);
    if (read.name === '') throw badAcl('a name must follow the "/" sign');
    grantor = lookUpRole(read.name, roleOid);
    i = read.end;
  }
  return { item: aclItem(grantee, grantor, privileges, grantOptions), end: i };
}

/** Parses one aclitem's text, as aclitemin does. */
export function parseAclItem(text: string, roleOid: RoleOidOf, options: ParseAclItemOptions = {}): AclItem {
  const { item, end } = readAclItem(text, 0, roleOid, options);
  let i = end;
  while (isCSpace(text[i])) i++;
  if (i < text.length) throw badAcl('extra garbage at the end of the ACL specification');
  return item;
}

/** Splits a one-dimensional array literal into its element texts, as array_in reads them. */
function arrayElements(text: string): string[] {
  const malformed = (detail: string) => new FloeError(SqlState.invalidTextRepresentation, `malformed array literal: "${text}"`, { detail });
  let i = 0;
  while (isCSpace(text[i])) i++;
  if (text[i] !== '{') throw malformed('Array value must start with "{" or dimension information.');
  i++;
  const elements: string[] = [];
  const skipSpace = () => { while (isCSpace(text[i])) i++; };
  skipSpace();
  if (text[i] === '}') {
    i++;
  } else {
    for (;;) {
      skipSpace();
      let element = '';
      let quoted = false;
      if (text[i] === '{') throw new FloeError(SqlState.invalidParameterValue, 'ACL arrays must be one-dimensional');
      if (text[i] === '"') {
        quoted = true;
        for (i++; i < text.length && text[i] !== '"'; i++) {
          if (text[i] === '\\') i++;
          if (i < text.length) element += text[i];
        }
        if (text[i] !== '"') throw malformed('Unexpected end of input.');
        i++;
        skipSpace();
      } else {
        let trailingSpace = 0;
        for (; i < text.length && text[i] !== ',' && text[i] !== '}'; i++) {
          if (text[i] === '"' || text[i] === '{') throw malformed(`Unexpected "${text[i]}" character.`);
          if (text[i] === '\\') {
            i++;
            trailingSpace = 0;
          } else {
            trailingSpace = isCSpace(text[i]) ? trailingSpace + 1 : 0;
          }
          if (i < text.length) element += text[i];
        }
        element = element.slice(0, element.length - trailingSpace);
        if (element === '') throw malformed('Unexpected "," character.');
      }
      if (!quoted && element.toUpperCase() === 'NULL') throw new FloeError(SqlState.nullValueNotAllowed, 'ACL arrays must not contain null values');
      elements.push(element);
      if (text[i] === ',') { i++; continue; }
      if (text[i] === '}') { i++; break; }
      throw malformed('Unexpected end of input.');
    }
  }
  skipSpace();
  if (i < text.length) throw malformed('Junk after closing right brace.');
  return elements;
}

/** Parses an aclitem[]'s text (`{...}`), as array_in and aclitemin do. */
export function parseAcl(text: string, roleOid: RoleOidOf, options: ParseAclItemOptions = {}): Acl {
  return Object.freeze(arrayElements(text).map((element) => parseAclItem(element, roleOid, options)));
}
