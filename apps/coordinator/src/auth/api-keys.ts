import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { LOCAL_PRINCIPAL, ownerIdOfKey, type Principal } from './principal';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Hashing first gives equal-length buffers, so the comparison leaks neither content nor length. */
function matching(presented: Buffer, keys: readonly Buffer[]): number {
  let found = -1;
  keys.forEach((k, i) => {
    if (timingSafeEqual(presented, k)) found = i;
  });
  return found;
}

/**
 * The configured keys: API_KEYS (tenants) and ADMIN_API_KEYS (operators; also valid API keys). With neither,
 * the service is in keyless loopback mode and every caller is the local principal.
 */
@Injectable()
export class ApiKeys {
  private readonly keys: Buffer[];
  private readonly principals: Principal[];

  constructor(@Inject(COORDINATOR_CONFIG) config: CoordinatorConfig) {
    const admin = new Set(config.ADMIN_API_KEYS);
    const all = [...new Set([...config.API_KEYS, ...config.ADMIN_API_KEYS])];
    this.keys = all.map(digest);
    this.principals = all.map((k) => ({ id: ownerIdOfKey(k), admin: admin.has(k) }));
  }

  get keyless(): boolean {
    return this.keys.length === 0;
  }

  /** The principal of a bearer key, or undefined when it is no configured key. */
  principalOfKey(key: string): Principal | undefined {
    if (this.keyless) return LOCAL_PRINCIPAL;
    const i = matching(digest(key), this.keys);
    return i >= 0 ? this.principals[i] : undefined;
  }

  /**
   * The key an `Authorization` header presents: `Bearer <key>`, or with `basic` also `Basic` with the key as the
   * password (any user name); undefined when it presents none.
   */
  keyOfHeader(authorization: string | undefined, { basic = false } = {}): string | undefined {
    const key = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1] ?? (basic ? basicPassword(authorization) : undefined);
    return key?.trim() || undefined;
  }
}

/** The password of `Basic base64(user:password)`; the user name is whatever the browser's prompt was given. */
function basicPassword(authorization: string | undefined): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}
