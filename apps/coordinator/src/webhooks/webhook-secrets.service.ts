import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { createHmac, randomBytes } from 'node:crypto';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/**
 * Each key's signing secret, derived from one deployment secret: HMAC-SHA256(deployment secret, owner). A
 * tenant reads its own at GET /v1/webhooks/secret and can verify only its own runs' webhooks. The deployment
 * secret is WEBHOOK_SECRET, or else one made once and kept in Redis, so that every replica signs alike.
 */
@Injectable()
export class WebhookSecrets {
  private deployment?: Promise<string>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** In the Standard Webhooks form, `whsec_` and the base64 of 32 bytes. */
  async forOwner(owner: string): Promise<string> {
    const key = createHmac('sha256', await this.deploymentSecret()).update(`webhook:${owner}`).digest('base64');
    return `whsec_${key}`;
  }

  private deploymentSecret(): Promise<string> {
    if (this.config.WEBHOOK_SECRET) return Promise.resolve(this.config.WEBHOOK_SECRET);
    this.deployment ??= (async () => {
      const key = `${this.config.QUEUE_PREFIX}:webhook-secret`;
      await this.redis.set(key, randomBytes(32).toString('hex'), 'NX');
      const secret = await this.redis.get(key);
      if (!secret) throw new Error('the webhook secret could not be read from Redis');
      return secret;
    })().catch((err: unknown) => {
      this.deployment = undefined;
      throw err;
    });
    return this.deployment;
  }
}
