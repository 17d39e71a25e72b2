import { createHash } from 'node:crypto';

/**
 * Who is calling, resolved once per request (or per MCP session) and passed to every service that reads or
 * changes runs. `id` is what a run records as its owner and what quotas are counted under: a hash of the key,
 * never the key. Admins see every run, may write to Bull Board, and are not held to per-key quotas.
 */
export interface Principal {
  readonly id: string;
  readonly admin: boolean;
}

/** Keyless loopback mode: the one local user, who is also the operator. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: 'local', admin: true });

/** The owner id of a key: `key:` and the first 32 hex digits (128 bits) of its SHA-256. */
export function ownerIdOfKey(key: string): string {
  return `key:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** A principal sees its own runs; an admin sees all. */
export function canSee(principal: Principal, owner: string): boolean {
  return principal.admin || principal.id === owner;
}
