import { Controller, Get, HttpException, Inject } from '@nestjs/common';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { ApiTags } from '@nestjs/swagger';
import type { Principal } from '../auth/principal';
import { OptionalCaller } from '../auth/request-principal';
import { TaskDispatcher } from '../queues/task-dispatcher';
import { RedisHealth } from '../redis/redis-health';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly redis: RedisHealth,
    private readonly dispatcher: TaskDispatcher,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  /** BullMQ's connections retry forever while Redis is away: bound every probe so a probe never hangs. */
  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    const ms = this.config.READY_TIMEOUT_MS;
    return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);
  }

  /** Open to anyone; why Redis is unavailable (addresses, errors) only to an admin. */
  @Get('healthz')
  async health(@OptionalCaller() caller: Principal | undefined) {
    try {
      await this.bounded(this.redis.ping(), 'redis');
      return { status: 'ok', redis: 'ok' };
    } catch (err) {
      throw new HttpException({ status: 'unavailable', redis: caller?.admin ? (err as Error).message : 'unavailable' }, 503);
    }
  }

  /** Ready when Redis answers and both queues can be read; the queue depths and errors only to an admin. */
  @Get('readyz')
  async ready(@OptionalCaller() caller: Principal | undefined) {
    try {
      await this.bounded(this.redis.ping(), 'redis');
      const [coordinator, subagents] = await Promise.all([
        this.bounded(this.dispatcher.coordinatorQueue.getJobCounts('waiting', 'active', 'failed'), 'coordinator queue'),
        this.bounded(this.dispatcher.subagentQueue.getJobCounts('waiting', 'active', 'failed'), 'subagent queue'),
      ]);
      return caller?.admin ? { status: 'ready', queues: { coordinator, subagents } } : { status: 'ready' };
    } catch (err) {
      throw new HttpException(caller?.admin ? { status: 'not-ready', error: (err as Error).message } : { status: 'not-ready' }, 503);
    }
  }
}
