import { Controller, Get, HttpException, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { REDIS } from '../redis/redis.module';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly dispatcher: TaskDispatcher,
  ) {}

  @Get('healthz')
  async health() {
    try {
      await this.redis.ping();
      return { status: 'ok', redis: 'ok' };
    } catch (err) {
      throw new HttpException({ status: 'unavailable', redis: (err as Error).message }, 503);
    }
  }

  /** Ready when Redis answers and both queues can be read. */
  @Get('readyz')
  async ready() {
    try {
      await this.redis.ping();
      const [coordinator, subagents] = await Promise.all([
        this.dispatcher.coordinatorQueue.getJobCounts('waiting', 'active', 'failed'),
        this.dispatcher.subagentQueue.getJobCounts('waiting', 'active', 'failed'),
      ]);
      return { status: 'ready', queues: { coordinator, subagents } };
    } catch (err) {
      throw new HttpException({ status: 'not-ready', error: (err as Error).message }, 503);
    }
  }
}
