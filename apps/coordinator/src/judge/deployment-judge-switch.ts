import { Inject, Injectable } from '@nestjs/common';
import { JudgeSwitch } from '@orrery/runtime';
import type { Redis } from 'ioredis';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/** The deployment's judge switch (Redis), as the hub reads and an admin sets it. */
@Injectable()
export class DeploymentJudgeSwitch extends JudgeSwitch {
  constructor(@Inject(REDIS) redis: Redis, @Inject(COORDINATOR_CONFIG) config: CoordinatorConfig) {
    super(redis, config.QUEUE_PREFIX);
  }
}
