import type { HbaFileResult } from './hba-rules.js';

/** A role as authentication needs it (src/lake's RoleRecord satisfies it). */
export interface LoginRole {
  readonly name: string;
  readonly superuser: boolean;
  readonly canLogin: boolean;
  /** May start a walsender (a `replication` connection) without being a superuser. */
  readonly replication: boolean;
  /** -1: no limit. */
  readonly connectionLimit: number;
  /** A SCRAM-SHA-256 or md5 verifier, or null: password methods fail. */
  readonly password: string | null;
  /** The password is refused after this (microseconds since the epoch); null: never. */
  readonly validUntilMicros: bigint | null;
}

/** One connection attempt's end, for an audit trail: the startup packet's facts and how authentication ended. */
export interface LoginAttemptEvent {
  readonly user: string;
  readonly database: string;
  readonly remoteAddress: string;
  readonly applicationName: string;
  readonly outcome: 'success' | 'failure';
  /** '00000' on success; the FATAL error's SQLSTATE otherwise. */
  readonly sqlstate: string;
}

/**
 * Who may connect, decided outside the wire: the pg_hba rules in force and the roles as
 * they are now. Both are asked afresh for every connection, so a role made or changed a
 * moment ago is what the next login is checked against.
 */
export interface AuthProvider {
  /** The rules file in force (its rules are tried in order; the first match decides). */
  hba(): HbaFileResult;
  role(name: string): LoginRole | undefined;
  /** hba's `+role`: `user` is a member of `role`, directly or through other roles. */
  isMemberOf(user: string, role: string): boolean;
}
