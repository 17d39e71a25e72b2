import { Inject, Injectable } from '@nestjs/common';
import { type WebhookDelivery, WebhookDeliverySchema } from '@orrery/protocol';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { RunKeys } from '../redis/run-keys';

/** Every delivery attempt of a run's webhooks, kept as long as the run. */
@Injectable()
export class WebhookLog {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RunKeys,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async add(runId: string, delivery: WebhookDelivery): Promise<void> {
    const key = this.keys.webhooks(runId);
    await this.redis.multi().rpush(key, JSON.stringify(delivery)).expire(key, this.config.RUN_RETENTION_SECONDS).exec();
  }

  async list(runId: string): Promise<WebhookDelivery[]> {
    const raw = await this.redis.lrange(this.keys.webhooks(runId), 0, -1);
    return raw.map((r) => WebhookDeliverySchema.parse(JSON.parse(r)));
  }
}
