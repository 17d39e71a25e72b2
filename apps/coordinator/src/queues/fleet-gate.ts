import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { breakerSettingsFromEnv, FleetRequestGate } from '@orrery/runtime';
import type { RedisClient } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { REDIS } from '../redis/redis.module';
import { TaskDispatcher } from './task-dispatcher';

/**
 * The deployment's Messages API rate-limit gate, as the coordinator takes part in it: the hub's own Claude calls
 * (plan, critique, gaps, judge) wait behind the same wall as the workers' tasks, and a 429 the hub meets also stops
 * the workers from starting new tasks for the retry-after. The same gate is the provider's breaker (5xx, 529, no
 * connection across the fleet): the hub's calls wait for its probe like the workers' do.
 */
@Injectable()
export class FleetGate implements OnModuleInit {
  readonly gate: FleetRequestGate;

  constructor(
    @Inject(REDIS) redis: RedisClient,
    @Inject(COORDINATOR_CONFIG) config: CoordinatorConfig,
    private readonly engines: EngineFactory,
    dispatcher: TaskDispatcher,
  ) {
    this.gate = new FleetRequestGate(redis, config.QUEUE_PREFIX, { onPause: (ms) => dispatcher.subagentQueue.rateLimit(ms), breaker: breakerSettingsFromEnv() });
  }

  onModuleInit(): void {
    this.engines.useRequestGate(this.gate);
  }
}
