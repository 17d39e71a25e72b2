import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/** The deployment's webhook secret, kept in Redis when WEBHOOK_SECRET is unset (see WebhookSecrets). */
@Injectable()
export class WebhookSecretStore {
  readonly key: string;

  constructor(@Inject(REDIS) private readonly redis: Redis, @Inject(COORDINATOR_CONFIG) config: CoordinatorConfig) {
    this.key = `${config.QUEUE_PREFIX}:webhook-secret`;
  }

  async get(): Promise<string | null> {
    return this.redis.get(this.key);
  }

  /** SET NX and GET in one transaction: whether `candidate` was put, and what Redis holds now. */
  async publish(candidate: string): Promise<{ current: string; put: boolean }> {
    const replies = await this.redis.multi().set(this.key, candidate, 'NX').get(this.key).exec();
    const [[setError, set], [getError, current]] = replies ?? [[null, null], [null, null]];
    if (setError || getError || typeof current !== 'string') throw new Error('the webhook secret could not be read from Redis');
    return { current, put: set === 'OK' };
  }
}
