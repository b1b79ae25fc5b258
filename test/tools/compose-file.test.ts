import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { runFloe } from '../../src/cli/floe-cli.js';

/**
 * No Docker engine runs here, so docker/compose.yaml cannot be started; what can be checked
 * is that it asks floe only for what floe has: every floe command it runs exists, every
 * flag it passes is in that command's --help, and the S3 flags point at the MinIO service
 * with the credentials MinIO is given.
 */
interface Service { command?: string[]; entrypoint?: string[]; environment?: Record<string, string>; image?: string; build?: unknown }

const compose = parse(readFileSync(fileURLToPath(new URL('../../docker/compose.yaml', import.meta.url)), 'utf8'), { merge: true }) as { services: Record<string, Service> };

async function helpOf(command: string): Promise<string> {
  let out = '';
  const code = await runFloe([command, '--help'], { stdout: (t) => { out += t; }, stderr: (t) => { out += t; } });
  assert.equal(code, 0, `floe ${command} --help: ${out}`);
  return out;
}

test('every floe command and flag in docker/compose.yaml is one floe knows', async () => {
  const floeServices = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  assert.deepEqual(floeServices.map(([name]) => name).sort(), ['gateway', 'optimizer']);
  for (const [name, s] of floeServices) {
    const cmd = s.command!;
    assert.deepEqual(cmd.slice(0, 2), ['node', 'bin/floe.js'], name);
    const help = await helpOf(cmd[2]!);
    const flags = cmd.slice(3).filter((a) => a.startsWith('--'));
    assert.ok(flags.length > 0);
    for (const flag of flags) assert.ok(help.includes(`${flag} `) || help.includes(`${flag}]`) || help.includes(`${flag}\n`), `${name}: floe ${cmd[2]} --help does not list ${flag}`);
    const value = (flag: string) => cmd[cmd.indexOf(flag) + 1];
    assert.equal(value('--data'), 's3://floe/warehouse', name);
    assert.equal(value('--s3-endpoint'), 'http://minio:9000', name);
    assert.equal(s.environment?.AWS_ACCESS_KEY_ID, compose.services.minio!.environment!.MINIO_ROOT_USER, name);
    assert.equal(s.environment?.AWS_SECRET_ACCESS_KEY, compose.services.minio!.environment!.MINIO_ROOT_PASSWORD, name);
    // The catalog service's database, with the user and password it is given.
    const pgEnv = compose.services.catalog!.environment!;
    assert.equal(value('--catalog'), `postgres://${pgEnv.POSTGRES_USER}:${pgEnv.POSTGRES_PASSWORD}@catalog:5432/${pgEnv.POSTGRES_DB}`, name);
  }
  assert.match(compose.services["minio-bucket"]!.entrypoint!.join(" "), /mc mb --ignore-existing local\/floe/);
});
