import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { processAlive } from './process-alive.js';

/**
 * This process's name in the catalog's leases (subscription runners, replication slots):
 * `host:pid:nonce`. The nonce tells a process from a later one that reuses its pid.
 */
export const PROCESS_OWNER = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * A lease owner `host:pid` or `host:pid:nonce` of this host whose process is gone: its
 * lease need not be waited out. (A host name holds no colon.) A pid another process has
 * taken since reads as alive, so the lease is then waited out as before.
 */
export function isDeadLocalOwner(owner: string): boolean {
  const parts = owner.split(':');
  if (parts.length < 2 || parts.length > 3 || parts[0] !== hostname()) return false;
  const pid = Number(parts[1]);
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}
