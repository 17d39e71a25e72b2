/**
 * A coordinator step that BullMQ fails without running it ("job stalled more than allowable limit": its
 * process kept dying, or kept its event loop busy past the lock) ends its run as failed, with the reason,
 * instead of leaving the run waiting for a step that will never come. Real coordinator and worker
 * processes, real Redis and BullMQ: the step carries the deferred failure BullMQ's stalled check sets.
 */
import { queuePrefix } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisClient } from '../support/test-env';
import { type Stack, startStack } from '../support/stack';
import { waitFor } from '../support/service-processes';

describe('a step failed for good outside its processor', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('step-failed', { workers: 1, env: { ENGINE: 'simulated' }, workerEnv: { SIMULATED_LATENCY_MS: '4000' } });
  });
  afterAll(() => stack?.stop());

  it('ends the run as failed, saying why', { timeout: 60_000 }, async () => {
    const { id } = await stack.client.submit({ topic: 'a run whose next step BullMQ fails', engine: 'simulated' });
    await waitFor(async () => (await stack.client.run(id)).status === 'researching', 20_000, 'the run to research');
    // A step as BullMQ leaves one after too many stalls: its hash marked with the deferred failure.
    const job = await stack.queues.coordinator.add('resume', { step: 'resume', runId: id, round: 1, action: 'continue' }, { jobId: `${id}.stalled-step`, delay: 500 });
    const redis = redisClient();
    await redis.hset(`${queuePrefix(stack.prefix)}:coordinator:${job.id}`, 'defa', 'job stalled more than allowable limit');
    redis.disconnect();

    await waitFor(async () => (await stack.client.run(id)).status === 'failed', 20_000, 'the run to be failed');
    const run = await stack.client.run(id);
    expect(run.errors.map((e) => e.message)).toContain('resume failed: job stalled more than allowable limit');
    expect((await stack.queues.coordinator.getJob(job.id!))?.failedReason).toBe('job stalled more than allowable limit');
  });
});
