import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoordinatorConfig } from '../config/coordinator-config';
import { WebhookSecretStore } from './webhook-secret-store';
import { WebhookSecrets } from './webhook-secrets.service';

const SYNC_MS = 100;
const expected = (deployment: string, owner: string) => `whsec_${createHmac('sha256', deployment).update(`webhook:${owner}`).digest('base64')}`;

// Replicas of one deployment are instances over one Redis (the real one, under a prefix of their own).
describe('WebhookSecrets without WEBHOOK_SECRET, across replicas', () => {
  let redis: Redis;
  const prefix = `t-whsecret-${randomBytes(3).toString('hex')}`;
  const key = `${prefix}:webhook-secret`;
  const replicas: WebhookSecrets[] = [];
  const replica = (config: Partial<CoordinatorConfig> = {}) => {
    const all = { QUEUE_PREFIX: prefix, WEBHOOK_SECRET_SYNC_MS: SYNC_MS, ...config } as CoordinatorConfig;
    const r = new WebhookSecrets(new WebhookSecretStore(redis, all), all);
    replicas.push(r);
    return r;
  };

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterEach(async () => {
    for (const r of replicas.splice(0)) r.onModuleDestroy();
    vi.restoreAllMocks();
    await redis.del(key);
  });
  afterAll(() => redis.disconnect());

  it('warns at startup when WEBHOOK_SECRET is unset, and only then', () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    replica().onApplicationBootstrap();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^WEBHOOK_SECRET is unset: .* Set WEBHOOK_SECRET \(openssl rand -hex 32\), the same on every replica/);
    replica({ WEBHOOK_SECRET: 'x'.repeat(32) }).onApplicationBootstrap();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('replicas starting at once on an empty Redis make one secret between them', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const [a, b] = [replica(), replica()];
    const [sa, sb, sa2] = await Promise.all([a.forOwner('k1'), b.forOwner('k1'), a.forOwner('k1')]);
    expect(sb).toBe(sa);
    expect(sa2).toBe(sa);
    expect(sa).toBe(expected((await redis.get(key))!, 'k1'));
    expect(await b.forOwner('k2')).not.toBe(sa);
  });

  it('after Redis loses the secret, a live replica puts its own back and a restarted one adopts it', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const live = replica();
    const before = await live.forOwner('k1');
    const deployment = await redis.get(key);
    await redis.del(key); // Redis restarted without its data
    const restarted = replica();
    expect(await restarted.forOwner('k1')).toBe(before);
    expect(await live.forOwner('k1')).toBe(before);
    expect(await redis.get(key)).toBe(deployment);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => /put back the one this replica signs with/.test(m)).length).toBeGreaterThan(0);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => /made a new one/.test(m))).toHaveLength(1);
  });

  it('a replica finding another secret in Redis signs with that one, as the others do, and says so as an error', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const a = replica();
    await a.forOwner('k1');
    const other = randomBytes(32).toString('hex');
    await redis.set(key, other);
    expect(await a.forOwner('k1')).toBe(expected(other, 'k1'));
    expect(await replica().forOwner('k1')).toBe(expected(other, 'k1'));
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0]![0])).toMatch(/is not the one this replica signed with/);
    expect(String(error.mock.calls[0]![0])).not.toContain(other);
  });

  it('with WEBHOOK_SECRET set, signs with it and keeps nothing in Redis', async () => {
    const secret = randomBytes(32).toString('hex');
    expect(await replica({ WEBHOOK_SECRET: secret }).forOwner('k1')).toBe(expected(secret, 'k1'));
    expect(await redis.exists(key)).toBe(0);
  });
});
