import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { JudgeSwitch } from '@orrery/runtime';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';

/** The deployment's judge switch (Redis), as the hub reads and an admin sets it. */
@Injectable()
export class DeploymentJudgeSwitch extends JudgeSwitch implements OnModuleInit {
  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
    private readonly engines: EngineFactory,
  ) {
    super(redis, config.QUEUE_PREFIX);
  }

  /** Engines built in this process (the CLI hosts the workers too) read the same switch and JUDGE. */
  onModuleInit(): void {
    this.engines.useJudgeSwitch({ timeoutMs: this.config.JUDGE_TIMEOUT_MS, enabled: () => this.modelJudging(this.config.JUDGE) });
  }
}
