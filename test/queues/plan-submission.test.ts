/**
 * Run submission fails at once while Redis is away, and leaves nothing to be sent later: a POST that
 * answered 503 must not have its plan job added on reconnect (a run nobody was told about). Real
 * redis-server, real BullMQ.
 */
import { FlowProducer, Queue } from 'bullmq';
import { queuePrefix } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORDINATOR_QUEUE, SUBAGENT_QUEUE } from '@orrery/protocol';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config/coordinator-config';
import { DispatchedTasks } from '../../apps/coordinator/src/queues/dispatched-tasks';
import { TaskDispatcher } from '../../apps/coordinator/src/queues/task-dispatcher';
import { OwnedRedis } from '../chaos/chaos-support';
import { waitFor } from '../support/service-processes';
import { uniquePrefix } from '../support/test-env';

describe('plan submission while Redis is down', () => {
  let redis: OwnedRedis;
  let dispatcher: TaskDispatcher;
  let handles: { close(): Promise<void> }[];
  let inspect: Queue;
  const prefix = uniquePrefix('plan-submission');

  beforeAll(async () => {
    redis = await OwnedRedis.start();
    const connection = { url: redis.url };
    const coordinator = new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(prefix) });
    const subagents = new Queue(SUBAGENT_QUEUE, { connection, prefix: queuePrefix(prefix) });
    const flows = new FlowProducer({ connection, prefix: queuePrefix(prefix) });
    for (const h of [coordinator, subagents, flows]) h.on('error', () => undefined);
    inspect = new Queue(COORDINATOR_QUEUE, { connection, prefix: queuePrefix(prefix) });
    inspect.on('error', () => undefined);
    handles = [coordinator, subagents, flows, inspect];
    dispatcher = new TaskDispatcher(coordinator, subagents, flows, loadCoordinatorConfig({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix }), new DispatchedTasks());
    await dispatcher.onModuleInit();
  });

  afterAll(async () => {
    await dispatcher?.onModuleDestroy();
    await Promise.all((handles ?? []).map((h) => h.close().catch(() => undefined)));
    await redis?.destroy();
  });

  it('fails instead of waiting for Redis, and the failed plan job never appears once Redis is back', { timeout: 60_000 }, async () => {
    const lost = '00000000-0000-4000-8000-00000000000a';
    const later = '00000000-0000-4000-8000-00000000000b';
    await redis.stop('SIGKILL');
    const t0 = Date.now();
    await expect(dispatcher.enqueuePlan(lost)).rejects.toThrow();
    // Failing, not waiting for the reconnect (30 s and more): about a second here, bounded loosely for loaded machines.
    expect(Date.now() - t0).toBeLessThan(5000);

    await redis.start();
    // Submission works again once its connection is back...
    await waitFor(async () => dispatcher.enqueuePlan(later).then(() => true, () => false), 30_000, 'submission to work again');
    expect(await inspect.getJob(`${later}.plan`)).toBeDefined();
    // ...and the plan job that failed was not queued offline and sent on reconnect.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await inspect.getJob(`${lost}.plan`)).toBeUndefined();
  });
});
