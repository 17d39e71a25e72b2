import type { RedisClient } from '@orrery/runtime';

/** Whether the coordinator's Redis answers, for the health checks (provided by RedisModule, on its client). */
export class RedisHealth {
  constructor(private readonly redis: RedisClient) {}

  async ping(): Promise<void> {
    await this.redis.ping();
  }
}
