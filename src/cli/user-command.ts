import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { addUser, usersFilePath } from './users-file.js';
import type { AuthMethod } from './users-file.js';
import { UsageError, parseCommandLine } from '../tools/command-line.js';
import { WAREHOUSE_FLAGS, WAREHOUSE_USAGE, warehouseLocation } from '../tools/warehouse-location.js';

const USER_USAGE = `usage: floe user add NAME [--password PW] [--auth scram-sha-256|md5|password] [--superuser]
${WAREHOUSE_USAGE}
  Adds a user who may connect from other hosts; the password from --password, FLOE_PASSWORD, or a line on stdin.
  --superuser: the user may take admin actions in the management API (pause, resume, optimize, cancel).`;

async function readLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split('\n')[0]!.replace(/\r$/, '');
}

/** `floe user add NAME`: a user who may connect with a password, in the warehouse's users file. */
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
  const password = values.password ?? process.env.FLOE_PASSWORD ?? (await readLine());
  if (password === '') throw new Error('empty password');
  // users.json is local: in the warehouse directory, or in --state-dir for data on S3.
  const dataDir = warehouseLocation(values, USER_USAGE).dir;
  mkdirSync(dataDir, { recursive: true });
  const method = values.auth as AuthMethod;
  if (!['scram-sha-256', 'md5', 'password'].includes(method)) throw new Error(`--auth must be scram-sha-256, md5 or password`);
  addUser(usersFilePath(dataDir), name, password, method, { superuser: values.superuser === true });
  process.stdout.write(`user "${name}" added to ${usersFilePath(dataDir)} (${method}${values.superuser === true ? ', superuser' : ''})\n`);
}
