/**
 * pg_hba.conf rules: PostgreSQL 15's file format, parsed the way its hba.c does, for the part of
 * it Floe can honour. A line that does not parse becomes an error line and the rest of the file
 * is still read, as `pg_hba_file_rules` shows it; whoever loads the file refuses it when any line
 * has an error, as PostgreSQL refuses to start.
 */

/** PostgreSQL's connection types, less hostgssenc: Floe has no GSSAPI encryption to require. */
export type HbaConnectionType = 'local' | 'host' | 'hostssl' | 'hostnossl' | 'hostnogssenc';

export type HbaAuthMethod = 'trust' | 'reject' | 'scram-sha-256' | 'md5' | 'password' | 'cert';

/** One item of a DATABASE or USER list. A quoted item is a name, never a keyword or `+role`. */
export interface HbaToken {
  readonly text: string;
  readonly quoted: boolean;
}

export interface IpAddress {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array;
}

export type HbaAddress =
  | { readonly kind: 'all' }
  | {
    readonly kind: 'range';
    readonly family: 4 | 6;
    readonly address: Uint8Array;
    /** Need not be contiguous: PostgreSQL accepts any mask written as an address. */
    readonly mask: Uint8Array;
    /** As pg_hba_file_rules shows them. */
    readonly addressText: string;
    readonly maskText: string;
  };

export interface HbaRule {
  readonly kind: 'rule';
  readonly lineNumber: number;
  readonly type: HbaConnectionType;
  readonly databases: readonly HbaToken[];
  readonly users: readonly HbaToken[];
  /** Null on a `local` line. */
  readonly address: HbaAddress | null;
  readonly method: HbaAuthMethod;
  /** name → value as written; a repeated name keeps its last value. */
  readonly options: ReadonlyMap<string, string>;
  /** The certificate check the line demands: clientcert as written, or verify-full for cert. */
  readonly clientCert: 'verify-ca' | 'verify-full' | null;
  readonly rawLine: string;
}

export interface HbaLineError {
  readonly kind: 'error';
  readonly lineNumber: number;
  readonly error: string;
  readonly rawLine: string;
}

export type HbaLine = HbaRule | HbaLineError;

export interface HbaFileResult {
  readonly fileName: string;
  /** Every line that is not blank or a comment, in file order. */
  readonly lines: readonly HbaLine[];
  readonly rules: readonly HbaRule[];
  /** Why the file must not be used, one message each; empty when it may. */
  readonly errors: readonly string[];
}

/** A row of PostgreSQL 15's pg_hba_file_rules view, column for column. */
export interface PgHbaFileRuleRow {
  line_number: number;
  type: string | null;
  database: string[] | null;
  user_name: string[] | null;
  address: string | null;
  netmask: string | null;
  auth_method: string | null;
  options: string[] | null;
  error: string | null;
}

export function parseHbaFile(text: string, fileName: string): HbaFileResult {
  const lines: HbaLine[] = [];
  for (const logical of logicalLines(text)) {
    const tokenized = tokenizeLine(logical.text);
    if (tokenized.kind === 'error') {
      lines.push({ kind: 'error', lineNumber: logical.lineNumber, error: tokenized.error, rawLine: logical.text });
    } else if (tokenized.fields.length > 0) {
      lines.push(parseLine(tokenized.fields, logical.lineNumber, logical.text));
    }
  }
  const rules = lines.filter((l): l is HbaRule => l.kind === 'rule');
  const errors = lines.flatMap((l) => l.kind === 'error' ? [`line ${l.lineNumber} of configuration file "${fileName}": ${l.error}`] : []);
  // With no rule nobody could ever connect, so PostgreSQL refuses an empty file too.
  if (errors.length === 0 && rules.length === 0) errors.push(`configuration file "${fileName}" contains no entries`);
  return { fileName, lines, rules, errors };
}

export function pgHbaFileRuleRows(result: HbaFileResult): PgHbaFileRuleRow[] {
  return result.lines.map((line) => {
    if (line.kind === 'error') {
      return {
        line_number: line.lineNumber, type: null, database: null, user_name: null, address: null,
        netmask: null, auth_method: null, options: null, error: line.error,
      };
    }
    const options = [
      ...(line.options.has('map') ? [`map=${line.options.get('map')}`] : []),
      ...(line.clientCert !== null ? [`clientcert=${line.clientCert}`] : []),
    ];
    return {
      line_number: line.lineNumber,
      type: line.type,
      database: line.databases.map((t) => t.text),
      user_name: line.users.map((t) => t.text),
      address: line.address === null ? null : line.address.kind === 'all' ? 'all' : line.address.addressText,
      netmask: line.address?.kind === 'range' ? line.address.maskText : null,
      auth_method: line.method,
      options: options.length > 0 ? options : null,
      error: null,
    };
  });
}

/** The file Floe uses when given no --hba file, parsed, so pg_hba_file_rules can show it. */
export function defaultHbaFile(superuser: string): HbaFileResult {
  const name = quoteHbaToken(superuser);
  const text = [
    '# Floe\'s built-in rules (no --hba file): the bootstrap superuser needs no password on',
    '# loopback; everyone else gives a SCRAM password, from anywhere.',
    `local  all  ${name}                 trust`,
    `host   all  ${name}  127.0.0.1/32   trust`,
    `host   all  ${name}  ::1/128        trust`,
    '# Physical replication connections match only "replication" lines, as in PostgreSQL.',
    `host   replication  ${name}  127.0.0.1/32  trust`,
    `host   replication  ${name}  ::1/128       trust`,
    'host   all  all  0.0.0.0/0       scram-sha-256',
    'host   all  all  ::/0            scram-sha-256',
    '',
  ].join('\n');
  const result = parseHbaFile(text, '(built-in default)');
  if (result.errors.length > 0) throw new Error(`built-in hba rules for superuser ${JSON.stringify(superuser)}: ${result.errors.join('; ')}`);
  return result;
}

export function defaultHbaRules(superuser: string): HbaRule[] {
  return [...defaultHbaFile(superuser).rules];
}

/** Quoted, so the name is never read as a keyword, a +role or a list. */
function quoteHbaToken(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

// ---- Lines ----------------------------------------------------------------------------------

interface LogicalLine {
  readonly lineNumber: number;
  readonly text: string;
}

/** Physical lines joined at a trailing backslash; the joined line keeps its first line's number. */
function logicalLines(text: string): LogicalLine[] {
  const physical = text.split('\n');
  if (physical.at(-1) === '') physical.pop(); // the file's final newline ends a line, it starts none
  const lines: LogicalLine[] = [];
  let next = 0;
  while (next < physical.length) {
    const lineNumber = next + 1;
    let buffer = '';
    // A backslash counts only past the last one taken, so `\\` then an empty line does not join twice.
    let lengthAtLastBackslash = 0;
    for (;;) {
      buffer = buffer + physical[next++]!;
      buffer = buffer.replace(/[\r\n]+$/, '');
      if (buffer.length > lengthAtLastBackslash && buffer.endsWith('\\')) {
        buffer = buffer.slice(0, -1);
        lengthAtLastBackslash = buffer.length;
        if (next < physical.length) continue;
      }
      break;
    }
    lines.push({ lineNumber, text: buffer });
  }
  return lines;
}

// ---- Tokens ---------------------------------------------------------------------------------

/** PostgreSQL's MAX_TOKEN is 10240 bytes with the terminating NUL. */
const MAX_TOKEN_BYTES = 10239;

type Field = readonly HbaToken[];

type TokenizedLine = { readonly kind: 'fields'; readonly fields: Field[] } | { readonly kind: 'error'; readonly error: string };

type NextField = { readonly kind: 'field'; readonly tokens: HbaToken[] } | { readonly kind: 'error'; readonly error: string };

type NextToken =
  | { readonly kind: 'token'; readonly token: HbaToken; readonly endsWithComma: boolean }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly error: string };

class LineCursor {
  readonly chars: readonly string[];
  position = 0;

  constructor(line: string) {
    // PostgreSQL reads the line as a C string: nothing after a NUL exists for it.
    this.chars = Array.from(line.split('\0')[0]!);
  }

  get atEnd(): boolean {
    return this.position >= this.chars.length;
  }

  get current(): string {
    return this.chars[this.position]!;
  }

  skipToEnd(): void {
    this.position = this.chars.length;
  }
}

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r';
}

function tokenizeLine(line: string): TokenizedLine {
  const cursor = new LineCursor(line);
  const fields: Field[] = [];
  while (!cursor.atEnd) {
    const field = nextField(cursor);
    if (field.kind === 'error') return field;
    if (field.tokens.length > 0) fields.push(field.tokens);
  }
  return { kind: 'fields', fields };
}

/** One whitespace-separated field: a comma list of tokens (`a, b` is one field, `a ,b` two). */
function nextField(cursor: LineCursor): NextField {
  const tokens: HbaToken[] = [];
  for (;;) {
    const next = nextToken(cursor);
    if (next.kind === 'error') return next;
    if (next.kind === 'none') break;
    if (!next.token.quoted && next.token.text.length > 1 && next.token.text.startsWith('@')) {
      cursor.skipToEnd();
      return { kind: 'error', error: `secondary authentication file "${next.token.text}" is not supported by this build` };
    }
    tokens.push(next.token);
    if (!next.endsWithComma) break;
  }
  return { kind: 'field', tokens };
}

function nextToken(cursor: LineCursor): NextToken {
  while (!cursor.atEnd && (isBlank(cursor.current) || cursor.current === ',')) cursor.position++;
  let text = '';
  let bytes = 0;
  let inQuote = false;
  let afterQuoteInQuote = false; // the previous char was a `"` inside quotes: a second one is literal
  let sawQuote = false;
  let quotedFromStart = false;
  while (!cursor.atEnd) {
    const c = cursor.current;
    if (isBlank(c) && !inQuote) break;
    if (c === '#' && !inQuote) {
      cursor.skipToEnd();
      break;
    }
    const kept = c !== '"' || afterQuoteInQuote;
    if (bytes + (kept ? Buffer.byteLength(c) : 1) > MAX_TOKEN_BYTES) {
      cursor.skipToEnd();
      return { kind: 'error', error: 'authentication file token too long' };
    }
    if (c === ',' && !inQuote) return { kind: 'token', token: { text, quoted: quotedFromStart }, endsWithComma: true };
    if (kept) {
      text += c;
      bytes += Buffer.byteLength(c);
    }
    afterQuoteInQuote = inQuote && c === '"' ? !afterQuoteInQuote : false;
    if (c === '"') {
      inQuote = !inQuote;
      sawQuote = true;
      if (text === '') quotedFromStart = true;
    }
    cursor.position++;
  }
  return sawQuote || text !== '' ? { kind: 'token', token: { text, quoted: quotedFromStart }, endsWithComma: false } : { kind: 'none' };
}

function isKeyword(token: HbaToken, keyword: string): boolean {
  return !token.quoted && token.text === keyword;
}

// ---- Fields ---------------------------------------------------------------------------------

/** What PostgreSQL accepts in the type field; Floe refuses hostgssenc later on. */
type WrittenConnectionType = HbaConnectionType | 'hostgssenc';

const connectionTypes: ReadonlySet<string> = new Set<WrittenConnectionType>(['local', 'host', 'hostssl', 'hostnossl', 'hostgssenc', 'hostnogssenc']);

const supportedMethods: ReadonlySet<string> = new Set<HbaAuthMethod>(['trust', 'reject', 'scram-sha-256', 'md5', 'password', 'cert']);

/** Methods PostgreSQL knows that Floe does not offer; they get PostgreSQL's "not supported by this build". */
const otherMethods: ReadonlySet<string> = new Set(['ident', 'peer', 'gss', 'sspi', 'pam', 'bsd', 'ldap', 'radius']);

/** PostgreSQL's options for methods Floe lacks, with the methods its error names. */
const otherMethodOptions: ReadonlyMap<string, string> = new Map([
  ...['pamservice', 'pam_use_hostname'].map((o) => [o, 'pam'] as const),
  ...['ldapurl', 'ldaptls', 'ldapscheme', 'ldapserver', 'ldapport', 'ldapbinddn', 'ldapbindpasswd',
    'ldapsearchattribute', 'ldapsearchfilter', 'ldapbasedn', 'ldapprefix', 'ldapsuffix'].map((o) => [o, 'ldap'] as const),
  ...['krb_realm', 'include_realm'].map((o) => [o, 'gssapi and sspi'] as const),
  ...['compat_realm', 'upn_username'].map((o) => [o, 'sspi'] as const),
  ...['radiusservers', 'radiusports', 'radiussecrets', 'radiusidentifiers'].map((o) => [o, 'radius'] as const),
]);

/** Thrown inside parseLine only, to leave it with PostgreSQL's message for the line. */
class LineError {
  constructor(readonly message: string) {}
}

/** One field of exactly one token; PostgreSQL's complaint otherwise. */
function single(field: Field | undefined, missing: string, multiple: string): HbaToken {
  if (field === undefined) throw new LineError(missing);
  if (field.length > 1) throw new LineError(multiple);
  return field[0]!;
}

/**
 * The fields in PostgreSQL's order, each checked as parse_hba_line checks it, so a line
 * PostgreSQL rejects gets its message. Something PostgreSQL accepts but Floe cannot honour is
 * reported only once the rest of the line has passed, for the same reason; methods are the
 * exception, refused at once, as PostgreSQL refuses the ones a build lacks.
 */
function parseLine(fields: readonly Field[], lineNumber: number, rawLine: string): HbaLine {
  try {
    let cannotHonour: string | null = null;
    const typeField = fields[0]!; // tokenizeLine gives no line without a field
    if (typeField.length > 1) throw new LineError('multiple values specified for connection type');
    const typeToken = typeField[0]!;
    let next = 1;
    if (!connectionTypes.has(typeToken.text)) throw new LineError(`invalid connection type "${typeToken.text}"`);
    const type = typeToken.text as WrittenConnectionType;

    const databases = fields[next++];
    if (databases === undefined) throw new LineError('end-of-line before database specification');
    const users = fields[next++];
    if (users === undefined) throw new LineError('end-of-line before role specification');

    let address: HbaAddress | null = null;
    if (type !== 'local') {
      const token = single(fields[next++], 'end-of-line before IP address specification', 'multiple values specified for host address');
      if (isKeyword(token, 'all')) {
        address = { kind: 'all' };
      } else if (isKeyword(token, 'samehost') || isKeyword(token, 'samenet')) {
        cannotHonour = `address keyword "${token.text}" is not supported by this build`;
      } else {
        const written = parseAddress(token.text, () => fields[next++]);
        if (written.kind === 'host name') cannotHonour = `invalid IP address "${written.name}": host names are not supported by this build`;
        else address = written;
      }
    }

    const methodToken = single(fields[next++], 'end-of-line before authentication method', 'multiple values specified for authentication type');
    if (otherMethods.has(methodToken.text)) {
      // PostgreSQL's own complaints about these come first where it has them.
      if (type !== 'local' && methodToken.text === 'peer') throw new LineError('peer authentication is only supported on local sockets');
      if (type === 'local' && methodToken.text === 'gss') throw new LineError('gssapi authentication is not supported on local sockets');
      throw new LineError(`invalid authentication method "${methodToken.text}": not supported by this build`);
    }
    if (!supportedMethods.has(methodToken.text)) throw new LineError(`invalid authentication method "${methodToken.text}"`);
    const method = methodToken.text as HbaAuthMethod;
    if (method === 'cert' && type !== 'hostssl') throw new LineError('cert authentication is only supported on hostssl connections');

    const options = new Map<string, string>();
    let clientCert: HbaRule['clientCert'] = null;
    for (const token of fields.slice(next).flat()) {
      const equals = token.text.indexOf('=');
      if (equals < 0) throw new LineError(`authentication option not in name=value format: ${token.text}`);
      const name = token.text.slice(0, equals);
      const value = token.text.slice(equals + 1);
      checkOption(name, value, type, method);
      if (name === 'clientcert') clientCert = value as 'verify-ca' | 'verify-full';
      options.set(name, value);
    }
    // cert checks the certificate fully whatever clientcert says (it may only say verify-full).
    if (method === 'cert') clientCert = 'verify-full';

    if (type === 'hostgssenc') throw new LineError('hostgssenc record cannot match because GSSAPI is not supported by this build');
    if (cannotHonour !== null) throw new LineError(cannotHonour);
    return { kind: 'rule', lineNumber, type, databases, users, address, method, options, clientCert, rawLine };
  } catch (e) {
    if (e instanceof LineError) return { kind: 'error', lineNumber, error: e.message, rawLine };
    throw e;
  }
}

function checkOption(name: string, value: string, type: WrittenConnectionType, method: HbaAuthMethod): void {
  const onlyFor = (methods: string) => new LineError(`authentication option "${name}" is only valid for authentication methods ${methods}`);
  switch (name) {
    case 'map':
      if (method !== 'cert') throw onlyFor('ident, peer, gssapi, sspi, and cert');
      return;
    case 'clientcert':
      if (type !== 'hostssl') throw new LineError('clientcert can only be configured for "hostssl" rows');
      if (value === 'verify-ca' && method === 'cert') throw new LineError('clientcert can only be set to "verify-full" when using "cert" authentication');
      // PostgreSQL only logs this one and leaves the view's error empty; Floe says it.
      if (value !== 'verify-ca' && value !== 'verify-full') throw new LineError(`invalid value for clientcert: "${value}"`);
      return;
    case 'clientname':
      if (type !== 'hostssl') throw new LineError('clientname can only be configured for "hostssl" rows');
      if (value !== 'CN' && value !== 'DN') throw new LineError(`invalid value for clientname: "${value}"`);
      return;
    default: {
      const methods = otherMethodOptions.get(name);
      if (methods !== undefined) throw onlyFor(methods);
      throw new LineError(`unrecognized authentication option name: "${name}"`);
    }
  }
}

/**
 * ADDRESS as `ip/bits`, or `ip` with the mask in the next field. Anything that is no numeric
 * address PostgreSQL takes for a host name, with no mask field after it.
 */
function parseAddress(text: string, nextField: () => Field | undefined): HbaAddress | { readonly kind: 'host name'; readonly name: string } {
  const slash = text.indexOf('/');
  const ipText = slash < 0 ? text : text.slice(0, slash);
  const ip = parseNumericHost(ipText);
  if (ip === null) {
    if (slash >= 0) throw new LineError(`specifying both host name and CIDR mask is invalid: "${text}"`);
    return { kind: 'host name', name: text };
  }
  let mask: Uint8Array;
  if (slash >= 0) {
    const bits = parseCidrBits(text.slice(slash + 1), ip.family);
    if (bits === null) throw new LineError(`invalid CIDR mask in address "${text}"`);
    mask = cidrMask(bits, ip.bytes.length);
  } else {
    const maskToken = single(nextField(), 'end-of-line before netmask specification', 'multiple values specified for netmask');
    const parsed = parseNumericHost(maskToken.text);
    // getaddrinfo's EAI_NONAME text, which PostgreSQL quotes.
    if (parsed === null) throw new LineError(`invalid IP mask "${maskToken.text}": Name or service not known`);
    if (parsed.family !== ip.family) throw new LineError('IP address and mask do not match');
    mask = parsed.bytes;
  }
  return { kind: 'range', family: ip.family, address: ip.bytes, mask, addressText: formatIp(ip.family, ip.bytes), maskText: formatIp(ip.family, mask) };
}

/** strtol's view of the bits after the slash: leading white space and a sign allowed. */
function parseCidrBits(text: string, family: 4 | 6): number | null {
  if (!/^[ \t\n\v\f\r]*[+-]?[0-9]+$/.test(text)) return null;
  const bits = Number(text.replace(/^[ \t\n\v\f\r]+/, ''));
  const max = family === 4 ? 32 : 128;
  // Math.abs turns the -0 that "-0" reads as into 0.
  return bits >= 0 && bits <= max ? Math.abs(bits) : null;
}

function cidrMask(bits: number, length: number): Uint8Array {
  const mask = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const inByte = Math.min(8, Math.max(0, bits - i * 8));
    mask[i] = (0xff << (8 - inByte)) & 0xff;
  }
  return mask;
}

// ---- Numeric addresses ----------------------------------------------------------------------

/**
 * An address as getaddrinfo(AI_NUMERICHOST) reads one for PostgreSQL: IPv4 in inet_aton's
 * forms (`127.1`, octal `010.0.0.1`, hex `0x7f.0.0.1`), or IPv6 with an optional `%zone`, which
 * is dropped (PostgreSQL compares the address bytes only). Null for anything else.
 */
export function parseNumericHost(text: string): IpAddress | null {
  const v4 = parseInetAton(text);
  if (v4 !== null) return { family: 4, bytes: v4 };
  const percent = text.indexOf('%');
  if (percent >= 0 && !/^[A-Za-z0-9_.-]+$/.test(text.slice(percent + 1))) return null;
  const v6 = parseIpv6(percent < 0 ? text : text.slice(0, percent));
  return v6 === null ? null : { family: 6, bytes: v6 };
}

function parseInetAton(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]+$/.test(part)) value = parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = Number(part);
    else return null;
    values.push(value);
  }
  // Each part but the last is one byte; the last fills the bytes that remain.
  const last = values.pop()!;
  if (values.some((v) => v > 0xff)) return null;
  const remaining = 4 - values.length;
  if (last >= 2 ** (8 * remaining)) return null;
  const bytes = new Uint8Array(4);
  values.forEach((v, i) => { bytes[i] = v; });
  for (let i = 0; i < remaining; i++) bytes[3 - i] = Math.floor(last / 2 ** (8 * i)) % 256;
  return bytes;
}

/** inet_pton's IPv4: exactly four decimal bytes, no leading zeros. */
function parseDottedQuad(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255)) return null;
  return Uint8Array.from(parts.map(Number));
}

function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string, isLastHalf: boolean): number[] | null => {
    if (half === '') return [];
    const words: number[] = [];
    const pieces = half.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        words.push(parseInt(piece, 16));
      } else if (i === pieces.length - 1 && isLastHalf) {
        // An IPv4 tail, as in ::ffff:1.2.3.4, is allowed last only.
        const quad = parseDottedQuad(piece);
        if (quad === null) return null;
        words.push((quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!);
      } else {
        return null;
      }
    }
    return words;
  };
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const written = head.length + tail.length;
  // `::` stands for at least one zero group.
  if (halves.length === 2 ? written > 7 : written !== 8) return null;
  const words = [...head, ...new Array<number>(8 - written).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => { bytes[2 * i] = w >> 8; bytes[2 * i + 1] = w & 0xff; });
  return bytes;
}

/** As glibc's inet_ntop writes it, which is what pg_hba_file_rules shows. */
function formatIp(family: 4 | 6, bytes: Uint8Array): string {
  if (family === 4) return Array.from(bytes).join('.');
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // The first longest run of two or more zero words becomes `::`.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) { i++; continue; }
    let end = i;
    while (end < 8 && words[end] === 0) end++;
    if (end - i > best.length) best = { start: i, length: end - i };
    i = end;
  }
  if (best.length < 2) best = { start: -1, length: 0 };
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (best.start >= 0 && i >= best.start && i < best.start + best.length) {
      if (i === best.start) out += ':';
      continue;
    }
    if (i !== 0) out += ':';
    // ::a.b.c.d and ::ffff:a.b.c.d keep their IPv4 part dotted.
    if (i === 6 && best.start === 0 && (best.length === 6 || (best.length === 5 && words[5] === 0xffff))) {
      out += Array.from(bytes.subarray(12)).join('.');
      break;
    }
    out += words[i]!.toString(16);
  }
  if (best.start >= 0 && best.start + best.length === 8) out += ':';
  return out;
}
