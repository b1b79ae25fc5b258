import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_BOOTSTRAP_SUPERUSER, DEFAULT_ROLE_ATTRIBUTES, openCatalog } from '../lake/index.js';
import { formatScramVerifier, makeScramVerifier, md5StoredPassword } from '../wire/index.js';
import { UsageError, parseCommandLine } from '../tools/command-line.js';
import { WAREHOUSE_FLAGS, WAREHOUSE_USAGE, warehouseLocation } from '../tools/warehouse-location.js';

const USER_USAGE = `usage: floe user add NAME [--password PW] [--auth scram-sha-256|md5] [--superuser]
${WAREHOUSE_USAGE}
  Adds a login role to the warehouse's catalog, or sets the password of one that exists (as
  CREATE ROLE NAME LOGIN PASSWORD … does); the password from --password, FLOE_PASSWORD, or a
  line on stdin. --auth md5 keeps an md5 verifier instead of SCRAM-SHA-256's.
  --superuser: the role is a superuser (also for admin actions in the management API).
  A bootstrap for a warehouse nobody can log in to yet; after that, use CREATE ROLE.`;

async function readLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split('\n')[0]!.replace(/\r$/, '');
}

/** `floe user add NAME`: a login role with a password, written to the warehouse's catalog (a running gateway sees it at the next login). */
export async function runUserCommand(argv: string[]): Promise<void> {
  const parsed = parseCommandLine(USER_USAGE, argv, (args) => parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...WAREHOUSE_FLAGS,
      password: { type: 'string' },
      auth: { type: 'string', default: 'scram-sha-256' },
      superuser: { type: 'boolean', default: false },
    },
  }));
  const { values, positionals } = parsed;
  const [sub, name] = positionals;
  if (sub !== 'add' || name === undefined || positionals.length > 2) throw new UsageError('user: expected "add NAME"', USER_USAGE);
  const method = values.auth!;
  if (method !== 'scram-sha-256' && method !== 'md5') throw new UsageError('--auth must be scram-sha-256 or md5', USER_USAGE);
  const password = values.password ?? process.env.FLOE_PASSWORD ?? (await readLine());
  if (password === '') throw new UsageError('empty password', USER_USAGE);
  const location = warehouseLocation(values, USER_USAGE);
  mkdirSync(location.dir, { recursive: true });
  const catalog = openCatalog(location.dir, location.catalog ?? { kind: 'sqlite' });
  try {
    catalog.roles.ensureBootstrap(DEFAULT_BOOTSTRAP_SUPERUSER, null);
    const verifier = method === 'md5' ? md5StoredPassword(name, password) : formatScramVerifier(makeScramVerifier(password));
    const superuser = values.superuser === true;
    const existing = catalog.roles.get(name);
    if (existing === undefined) catalog.roles.create(name, { ...DEFAULT_ROLE_ATTRIBUTES, canLogin: true, superuser, password: verifier });
    else catalog.roles.alter(existing.oid, { canLogin: true, password: verifier, ...(superuser ? { superuser } : {}) });
    process.stdout.write(`role "${name}" ${existing === undefined ? 'created' : 'updated'} (LOGIN, ${method}${superuser ? ', SUPERUSER' : ''})\n`);
  } finally {
    catalog.close();
  }
}
