import { parseNumericHost, type HbaAddress, type HbaConnectionType, type HbaRule, type HbaToken, type IpAddress } from './hba-rules.js';

/** What rule choice needs to know of a connection that has sent its startup packet. */
export interface HbaConnection {
  readonly type: 'local' | 'host';
  readonly ssl: boolean;
  /** The peer as node gives it: IPv4, IPv6 (a `%zone` is ignored) or IPv4-mapped `::ffff:1.2.3.4`. */
  readonly address: string;
  readonly database: string;
  readonly user: string;
  /**
   * Whether `user` is a member of `role`, directly or through other roles. As in PostgreSQL,
   * being a superuser does not make one a member; an unknown user or role is no member.
   */
  isMemberOf(user: string, role: string): boolean;
  /** A physical replication connection (replication=true). A logical one (replication=database) is not. */
  readonly isReplication: boolean;
}

/** The first rule that matches, as PostgreSQL's check_hba picks it; undefined means reject. */
export function matchHbaRule(rules: readonly HbaRule[], conn: HbaConnection): HbaRule | undefined {
  const client = conn.type === 'host' ? clientAddress(conn.address) : null;
  return rules.find((rule) =>
    typeMatches(rule.type, conn) &&
    addressMatches(rule.address, client) &&
    databaseMatches(rule.databases, conn) &&
    userMatches(rule.users, conn));
}

function typeMatches(type: HbaConnectionType, conn: HbaConnection): boolean {
  switch (type) {
    case 'local':
      return conn.type === 'local';
    case 'host':
    case 'hostnogssenc': // Floe never encrypts with GSSAPI, so every TCP connection is "no GSS"
      return conn.type === 'host';
    case 'hostssl':
      return conn.type === 'host' && conn.ssl;
    case 'hostnossl':
      return conn.type === 'host' && !conn.ssl;
    default: {
      const never: never = type;
      throw new Error(`unknown hba connection type ${String(never)}`);
    }
  }
}

/**
 * A mapped address is an IPv4 client that reached a dual-stack socket. PostgreSQL listens on
 * IPv6 only-v6, so such a client would have come in over IPv4 and met the IPv4 rules only.
 */
function clientAddress(text: string): IpAddress | null {
  const ip = parseNumericHost(text);
  if (ip === null || ip.family === 4) return ip;
  const mapped = ip.bytes.subarray(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff;
  return mapped ? { family: 4, bytes: ip.bytes.slice(12) } : ip;
}

function addressMatches(address: HbaAddress | null, client: IpAddress | null): boolean {
  if (address === null || address.kind === 'all') return true;
  if (client === null || client.family !== address.family) return false;
  return client.bytes.every((b, i) => ((b ^ address.address[i]!) & address.mask[i]!) === 0);
}

function isKeyword(token: HbaToken, keyword: string): boolean {
  return !token.quoted && token.text === keyword;
}

function databaseMatches(databases: readonly HbaToken[], conn: HbaConnection): boolean {
  return databases.some((token) => {
    // A physical replication connection names no database: only `replication` lets it in.
    if (conn.isReplication) return isKeyword(token, 'replication');
    if (isKeyword(token, 'all')) return true;
    if (isKeyword(token, 'sameuser')) return conn.database === conn.user;
    if (isKeyword(token, 'samerole') || isKeyword(token, 'samegroup')) return conn.isMemberOf(conn.user, conn.database);
    if (isKeyword(token, 'replication')) return false;
    return token.text === conn.database;
  });
}

function userMatches(users: readonly HbaToken[], conn: HbaConnection): boolean {
  return users.some((token) => {
    if (!token.quoted && token.text.startsWith('+')) return conn.isMemberOf(conn.user, token.text.slice(1));
    return isKeyword(token, 'all') || token.text === conn.user;
  });
}
