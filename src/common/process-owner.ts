import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { processAlive } from './process-alive.js';

/**
 * This process's name in the catalog's leases (subscription runners, replication slots):
 * `host:pid:nonce`. The nonce tells a process from a later one that reuses its pid.
 */
export const PROCESS_OWNER = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** A lease owner `host:pid:…` of this host whose process is gone: its lease need not be waited out. */
export function isDeadLocalOwner(owner: string): boolean {
  const parts = owner.split(':');
  if (parts.length < 3 || parts.slice(0, -2).join(':') !== hostname()) return false;
  const pid = Number(parts[parts.length - 2]);
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}
